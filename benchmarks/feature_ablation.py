"""How much a trained mention memory relies on each symbolic pair feature: hold one feature at its "not
applicable" category (0) at inference and score a dev corpus again (the model was trained with all features,
so this measures reliance, not what training without the feature would reach).

    python benchmarks/feature_ablation.py MODEL corpus/litbank/dev.spacy [--output metrics/feature_ablation.json]
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
from spacy_entmem.nn.memory.mention_memory import PAIR_FEATURE_NAMES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    nlp = spacy.load(args.model)
    references = _read(nlp, args.corpus)
    predicted, _ = _predict(nlp, references, batch_size=4)  # candidates and token vectors stay as they are
    memory = nlp.get_pipe("entity_memory")
    module = torch_memory(memory.model)
    rows = []
    for index, name in [(None, "all features")] + list(enumerate(PAIR_FEATURE_NAMES)):
        module.disabled_pair_features = () if index is None else (index,)
        for _ in memory.pipe(predicted, batch_size=8):
            pass
        scores = score_entity_memory([Example(p, r) for p, r in zip(predicted, references)])
        rows.append({"without": name, "lea_f": scores["coref_lea_f"], "conll_f": scores["coref_conll_f"]})
        print(f"{name:40s} LEA {100 * scores['coref_lea_f']:.1f}  CoNLL {100 * scores['coref_conll_f']:.1f}")
    module.disabled_pair_features = ()
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(rows, indent=2), encoding="utf8")


if __name__ == "__main__":
    main()
