"""How much a trained mention memory relies on each symbolic pair feature: hold one feature at its "not
applicable" category (0) at inference and score a dev corpus again (the model was trained with all features,
so this measures reliance, not what training without the feature would reach).

    python benchmarks/feature_ablation.py MODEL corpus/litbank/dev.spacy [--output metrics/feature_ablation.json]
    python benchmarks/feature_ablation.py MODEL corpus/litbank/dev.spacy --parse-only   # the parse's features

A memory built with the parse's features (spacy_entmem.MentionMemory.v2) also gets a row with all of them held
at 0 at once.
"""
import argparse
import json
from pathlib import Path

import spacy
from spacy.training import Example

import spacy_entmem  # noqa: F401
from spacy_entmem.models.memory import torch_memory
from spacy_entmem.evaluation.coref_evaluate import _predict, _read
from spacy_entmem.evaluation.scorers import score_entity_memory
from spacy_entmem.linguistics.cell_rules import ALL_FEATURE_NAMES, PAIR_FEATURE_NAMES, PARSE_FEATURE_NAMES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--parse-only", action="store_true", help="hold only the parse's features, one at a time")
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    references = _read(nlp, args.corpus)
    predicted, _ = _predict(nlp, references, batch_size=4)  # candidates and token vectors stay as they are
    memory = nlp.get_pipe("entity_memory")
    names = list(ALL_FEATURE_NAMES[:len(torch_memory(memory.model).feature_sizes)])
    variants = [("all features", [])] + [(name, [name]) for name in names
                                         if not args.parse_only or name not in PAIR_FEATURE_NAMES]
    if len(names) > len(PAIR_FEATURE_NAMES):
        variants.append(("all the parse's features", list(PARSE_FEATURE_NAMES)))
    kept = list(memory.cfg.get("disabled_pair_features", []))
    rows = []
    for name, disabled in variants:
        memory.cfg["disabled_pair_features"] = kept + disabled  # (the component sets them on its memory)
        for _ in memory.pipe(predicted, batch_size=8):
            pass
        scores = score_entity_memory([Example(p, r) for p, r in zip(predicted, references)])
        rows.append({"without": name, "lea_f": scores["coref_lea_f"], "conll_f": scores["coref_conll_f"]})
        print(f"{name:40s} CoNLL {100 * scores['coref_conll_f']:.2f}  LEA {100 * scores['coref_lea_f']:.2f}",
              flush=True)
    memory.cfg["disabled_pair_features"] = kept
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(rows, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
