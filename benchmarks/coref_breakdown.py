"""Where the grammar rules count in the corpora: CoNLL F1 / LEA per GUM genre (from the document ids) and, per
pronoun type, how often a gold pronoun's nearest earlier mention in its predicted cluster is in its gold cluster
(resolution accuracy over the gold pronouns that have an earlier gold mention), for the shipped pipeline
("after") and for it without the parse and the grammar rules ("before": parser off, syntactic_binding,
person_agreement and singular_they off, no places or times in the animacy rule), in one run.

    python benchmarks/coref_breakdown.py corpus/gum/test.spacy corpus/litbank/test.spacy --output rows.json
"""
import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

from spacy.tokens import DocBin
from spacy.training import Example

import spacy_entmem
import spacy_entmem.linguistics.syntax as syntax
from spacy_entmem.evaluation.coref_evaluate import DOC_ID, reference_inputs
from spacy_entmem.evaluation.grammar_variants import PREVIOUS_DEFAULT, grammar_variant
from spacy_entmem.evaluation.coref_metrics import CorefScorer
from spacy_entmem.evaluation.scorers import predicted_clusters
from spacy_entmem.training.targets import gold_clusters

PRONOUN_TYPES = {
    "personal (he, she, him, her, it)": {"he", "she", "him", "it"},
    "possessive (his, her, its, their, …)": {"his", "hers", "its", "their", "theirs"},
    "reflexive": set(syntax.REFLEXIVES),
    "first / second person": {"i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours"},
    "they / them": {"they", "them"},
}


def pronoun_type(doc, start: int, end: int, possessive_her: bool) -> str:
    word = doc[start].lower_ if end - start == 1 else ""
    if word == "her":
        return "possessive (his, her, its, their, …)" if possessive_her else "personal (he, she, him, her, it)"
    return next((name for name, words in PRONOUN_TYPES.items() if word in words), "")


def genre(doc_id: str) -> str:
    parts = doc_id.split("_")
    return parts[1] if len(parts) > 2 and parts[0] == "GUM" else "litbank" if doc_id else "?"


def breakdown(nlp, references: List) -> Dict[str, Dict[str, float]]:
    predicted = list(nlp.pipe(reference_inputs(nlp, references), batch_size=4))
    scorers, right = defaultdict(lambda: CorefScorer(True)), defaultdict(list)
    for pred, ref in zip(predicted, references):
        key, response = gold_clusters(ref), predicted_clusters(Example(pred, ref))
        scorers[genre(str(ref.user_data.get(DOC_ID, "")))].add(key, response)
        scorers["all"].add(key, response)
        gold_of = {span: k for k, cluster in enumerate(key) for span in cluster}
        pred_of = {span: k for k, cluster in enumerate(response) for span in cluster}
        for span, k in gold_of.items():
            kind = pronoun_type(pred, span[0], span[1], pred[span[0]].tag_ == "PRP$")
            earlier = [other for other, j in gold_of.items() if j == k and other[1] <= span[0]]
            if not kind or not earlier:
                continue
            antecedents = [other for other, j in pred_of.items()
                           if span in pred_of and j == pred_of[span] and other[1] <= span[0]]
            nearest = max(antecedents, key=lambda s: s[1]) if antecedents else None
            right[kind].append(nearest is not None and gold_of.get(nearest) == k)
    rows = {name: {"conll": round(100 * s.scores()["conll_f"], 2), "lea": round(100 * s.scores()["lea_f"], 2),
                   "documents": len(s.documents)} for name, s in scorers.items()}
    rows.update({kind: {"accuracy": round(100 * sum(v) / len(v), 1), "n": len(v)} for kind, v in right.items()})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default()
    result = {}
    for corpus in args.corpora:
        references = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
        after = breakdown(nlp, references)
        with grammar_variant(nlp, **PREVIOUS_DEFAULT):
            before = breakdown(nlp, references)
        result[str(corpus)] = {"before": before, "after": after}
        print(f"== {corpus}")
        for name in after:
            a, b = after[name], before.get(name, {})
            if "conll" in a:
                print(f"{name:40s} CoNLL {b.get('conll', 0):6.2f} -> {a['conll']:6.2f}   LEA {b.get('lea', 0):6.2f} -> "
                      f"{a['lea']:6.2f}   ({a['documents']} docs)")
            else:
                print(f"{name:40s} accuracy {b.get('accuracy', 0):5.1f} -> {a['accuracy']:5.1f} %  ({a['n']} pronouns)")
    if args.output:
        args.output.write_text(json.dumps(result, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
