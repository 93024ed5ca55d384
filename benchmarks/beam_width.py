"""CoNLL F1 and LEA of a pipeline at several ``beam_width`` settings, on one or more coreference corpora read as
one (e.g. LitBank dev + GUM dev, the default's selection set).

    python benchmarks/beam_width.py corpus/litbank/dev.spacy corpus/gum_rd/dev.spacy --widths 1 2 4 8 16 32
    python benchmarks/beam_width.py corpus/litbank/test.spacy --widths 1 4 8

Prints one JSON line per width: CoNLL F1, LEA, predicted clusters (2+ mentions) and the seconds the pipeline
took (the other decision settings stay the pipeline's own).
"""
import argparse
import json
import tempfile
from pathlib import Path

from spacy_entmem.cli import load_pipeline
from spacy_entmem.evaluation.coref_evaluate import evaluate_corpus


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpora", nargs="+", help=".spacy files with gold coref_clusters_N, read as one corpus")
    parser.add_argument("--model", default="default")
    parser.add_argument("--widths", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args()
    nlp = load_pipeline(args.model, None)
    with tempfile.TemporaryDirectory() as tmp:
        for width in args.widths:
            nlp.get_pipe("entity_memory").cfg["beam_width"] = width
            scores = evaluate_corpus(nlp, args.corpora, Path(tmp), f"beam{width}")
            print(json.dumps({"beam_width": width, "conll_f1": round(100 * scores["coref_conll_f"], 2),
                              "lea_f1": round(100 * scores["coref_lea_f"], 2),
                              "predicted_clusters": scores["predicted_clusters"],
                              "seconds": round(scores["seconds"], 1)}), flush=True)


if __name__ == "__main__":
    main()
