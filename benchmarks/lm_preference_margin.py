"""Choosing the causal-LM preference's ``margin`` on dev: CoNLL F1 / LEA on LitBank and GUM dev and accuracy on
the role-and-participant set's dev part, for each margin, in one process (the LM's scores are kept between the
passes, so each pass after the first costs what the pipeline without the LM costs).

    python benchmarks/lm_preference_margin.py [--margins 0 1 2 4 8] [--corpora corpus/litbank/dev.spacy ...]
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import role_participant  # noqa: E402

import spacy_entmem  # noqa: E402
from spacy_entmem.evaluation.coref_evaluate import evaluate_corpus  # noqa: E402


class RememberedScores:
    """A reading scorer that keeps every answer of the one it wraps."""

    def __init__(self, scorer):
        self.scorer, self.seen = scorer, {}

    def continuation_log_probs(self, prefixes, continuation):
        key = (tuple(prefixes), continuation)
        if key not in self.seen:
            self.seen[key] = self.scorer.continuation_log_probs(prefixes, continuation)
        return self.seen[key]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--margins", type=float, nargs="+", default=[0.0, 1.0, 2.0, 4.0, 8.0])
    parser.add_argument("--corpora", nargs="+", default=["corpus/litbank/dev.spacy", "corpus/gum_rd/dev.spacy"])
    args = parser.parse_args()
    nlp = spacy_entmem.load_default(lm_preference=True)
    preference = nlp.get_pipe("entmem_lm_preference")
    preference._scorer = RememberedScores(preference.scorer)
    suite = [item for item in role_participant.items() if item["part"] == "dev"]
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for margin in args.margins:
            preference.margin = margin
            row = {"margin": margin}
            for corpus in args.corpora:
                preference.asked = preference.moved = 0
                scores = evaluate_corpus(nlp, Path(corpus), Path(out), Path(corpus).stem)
                row[corpus] = [round(scores["coref_conll_f"], 2), round(scores["coref_lea_f"], 2),
                               preference.moved]
            row["role_participant_dev"] = role_participant.evaluate(nlp, suite)["all items"]["accuracy"]
            rows.append(row)
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
