"""Do the pronoun resolver's answers and the clusters agree? For each GAP query (run as ``entmem gap-evaluate``
runs it: the annotated spans among the memory's candidates), the resolver's answer (A: yes / no, B: yes / no)
against what the clusters say of the pronoun (in A's cluster? in B's?), as the memory wrote them and after the
resolver aligned them (``align_clusters``); and how many queries got two "yes".

    python benchmarks/resolver_agreement.py ../shared/data/gap/gap-validation.tsv [--pipeline DIR]
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import SpanGroup
from spacy.training import Example

import spacy_entmem
from spacy_entmem.evaluation.gap_evaluate import _predict_with_annotated_candidates, _read_tsv, pronoun_resolver_of
from spacy_entmem.evaluation.scorers import gap_query_ranges
from spacy_entmem.pipeline.clusters import doc_mentions


def linked(doc, pronoun, name) -> bool:
    entity = {(start, end): entity for start, end, entity in doc_mentions(doc)[0]}
    return entity.get(pronoun) is not None and entity.get(pronoun) == entity.get(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tsv", type=Path)
    parser.add_argument("--pipeline", default=None, help="a pipeline directory (default: the shipped one)")
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline) if args.pipeline else spacy_entmem.load_default()
    resolver = pronoun_resolver_of(nlp)
    rows, references = _read_tsv(nlp, args.tsv)
    docs = _predict_with_annotated_candidates(nlp, rows, references, 64)
    before = after = both = 0
    for doc, reference in zip(docs, references):
        pronoun, a, b = gap_query_ranges(Example(doc, reference), reference.spans["gap"])
        memory_says = (linked(doc, pronoun, a), linked(doc, pronoun, b))
        answer = resolver.answer(doc, SpanGroup(doc, name="query"), pronoun, a, b, resolver.resolve(doc, pronoun, a, b))
        before += memory_says == answer
        after += (linked(doc, pronoun, a), linked(doc, pronoun, b)) == answer
        both += all(answer)
    n = len(docs)
    print(f"{args.tsv.name}: {n} queries; the clusters say what the answer says: {100 * before / n:.1f} % as the "
          f"memory wrote them, {100 * after / n:.1f} % after the resolver aligned them; two 'yes': {both}")


if __name__ == "__main__":
    main()
