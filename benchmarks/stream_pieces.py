"""Books and streams: each test document cut into 2, 4 and 8 consecutive pieces and read whole, as independent
documents, and as one stream (``spacy_entmem.Reader``), scored against the whole document's gold
(``spacy_entmem.evaluation.stream_pieces``).

    python benchmarks/stream_pieces.py corpus/litbank/test.spacy corpus/gum_rd/test.spacy --output metrics/stream_pieces.json

Needs the converted corpora (``entmem litbank-convert`` / ``gum-convert``, see the README).
"""
import argparse
import json
import time
from pathlib import Path

from spacy.tokens import DocBin

import spacy_entmem
from spacy_entmem.evaluation.stream_pieces import READINGS, score_pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="+", type=Path, help=".spacy files with gold coref_clusters_N groups")
    parser.add_argument("--pieces", default="2,4,8", help="comma-separated numbers of pieces")
    parser.add_argument("--mention-scheme", default="litbank")
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    nlp = spacy_entmem.load_default(mention_scheme=args.mention_scheme)
    counts = [int(k) for k in args.pieces.split(",")]
    results = {}
    for corpus in args.corpora:
        references = list(DocBin().from_disk(corpus).get_docs(nlp.vocab))
        start = time.perf_counter()
        scores = score_pieces(nlp, references, counts)
        results[str(corpus)] = {"documents": len(references), "words": sum(map(len, references)),
                                "seconds": time.perf_counter() - start, "scores": scores}
        print(f"\n{corpus} ({len(references)} documents)")
        print("| pieces | " + " | ".join(f"{r} CoNLL / LEA" for r in READINGS) + " |")
        for k in counts:
            cells = [f"{scores[k][r]['conll_f']:.1f} / {scores[k][r]['lea_f']:.1f}" for r in READINGS]
            print(f"| {k} | " + " | ".join(cells) + " |")
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
