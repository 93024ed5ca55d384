"""GAP with the pronoun resolver's probabilities averaged over each example and its gender-swapped copy (the
counterfactual copy of ``entmem gap-gender-swap``): an answer that cannot depend on the gender it is read in.
The threshold is chosen on validation (its own averaged probabilities), then test is scored, as ``entmem
gap-evaluate`` does; the original probabilities are scored the same way beside them.

    python benchmarks/gap_counterfactual_average.py [--model default] [--output-dir gap_counterfactual] \
        ../shared/data/gap/gap-validation.tsv ../shared/data/gap/gap-test.tsv

An example whose swapped copy was left out (its names do not fall on token boundaries) keeps its own
probabilities.
"""
import argparse
import json
from pathlib import Path
from typing import Dict, Tuple

from spacy_entmem.cli import load_for_command
from spacy_entmem.corpora.gender_swap import SWAPPED_SUFFIX, swap_gap_file
from spacy_entmem.evaluation.gap import bootstrap_intervals, decide, interval_row, score_gap, select_threshold
from spacy_entmem.evaluation.gap_evaluate import pair_probabilities, pronoun_resolver_of
from spacy_entmem.models.memory import packaged_name_genders
from spacy_entmem.pipeline.pronoun_resolver import use_query_memory

Probabilities = Dict[str, Tuple[float, float]]


def averaged(original: Probabilities, swapped: Probabilities) -> Probabilities:
    """Each example's (P(A), P(B)) averaged with its swapped copy's, where it has one."""
    by_original = {key[: -len(SWAPPED_SUFFIX)]: value for key, value in swapped.items()}
    return {key: tuple((a + b) / 2 for a, b in zip(value, by_original[key])) if key in by_original else value
            for key, value in original.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("validation", type=Path)
    parser.add_argument("test", type=Path)
    parser.add_argument("--model", default="default")
    parser.add_argument("--output-dir", type=Path, default=Path("gap_counterfactual"))
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    nlp = use_query_memory(load_for_command(args.model, None))
    resolver = pronoun_resolver_of(nlp)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    read = {}
    for split, tsv in (("validation", args.validation), ("test", args.test)):
        swapped_tsv = args.output_dir / f"{tsv.stem}.swapped.tsv"
        swap_gap_file(nlp, tsv, swapped_tsv, packaged_name_genders(), batch_size=args.batch_size)
        gold, original, _, _ = pair_probabilities(nlp, tsv, args.batch_size, resolver)
        _, swapped, _, _ = pair_probabilities(nlp, swapped_tsv, args.batch_size, resolver)
        read[split] = (gold, {"original": original, "averaged": averaged(original, swapped)})
    results = {}
    for reading in ("original", "averaged"):
        threshold, validation = select_threshold(read["validation"][0], read["validation"][1][reading])
        test_gold, test_probabilities = read["test"][0], read["test"][1][reading]
        answers = decide(test_probabilities, threshold)
        test = score_gap(test_gold, answers)
        results[reading] = {"threshold": threshold, "validation_row": validation.table_row(),
                            "test_row": test.table_row(),
                            "test_interval_row": interval_row(bootstrap_intervals(test_gold, answers))}
    (args.output_dir / "counterfactual.json").write_text(json.dumps(results, indent=2), encoding="utf8")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
