"""GAP evaluation of a pipeline: threshold on validation, official scoring on validation and test."""
import json
import time
from pathlib import Path
from typing import Dict, List, Tuple

from spacy.language import Language
from spacy.training import Example

from ..scorers import gap_pair_probabilities
from .convert import ConversionReport, read_gap_rows, row_to_doc
from .scoring import GapGold, decide, score_gap, select_threshold, write_system_tsv


def pair_probabilities(
    nlp: Language, tsv: Path, batch_size: int = 64
) -> Tuple[List[GapGold], Dict[str, Tuple[float, float]], float, int]:
    """Gold, P(A~pronoun) and P(B~pronoun) per example, seconds spent in nlp.pipe and words processed."""
    report = ConversionReport()
    rows = list(read_gap_rows(tsv))
    references = [row_to_doc(nlp, row, report) for row in rows]
    start = time.perf_counter()
    predicted = list(nlp.pipe((row.text for row in rows), batch_size=batch_size))
    seconds = time.perf_counter() - start
    gold, probabilities = [], {}
    for row, pred, ref in zip(rows, predicted, references):
        gold.append(GapGold(row.id, row.spans[0][1], row.a_coref, row.b_coref))
        probabilities[row.id] = gap_pair_probabilities(Example(pred, ref), ref.spans["gap"])
    return gold, probabilities, seconds, sum(len(doc) for doc in predicted)


def evaluate_gap(nlp: Language, validation: Path, test: Path, output_dir: Path, batch_size: int = 64) -> Dict:
    output_dir.mkdir(parents=True, exist_ok=True)
    val_gold, val_probs, _, _ = pair_probabilities(nlp, validation, batch_size)
    threshold, val_scores = select_threshold(val_gold, val_probs)
    test_gold, test_probs, seconds, words = pair_probabilities(nlp, test, batch_size)
    test_answers = decide(test_probs, threshold)
    test_scores = score_gap(test_gold, test_answers)
    write_system_tsv(output_dir / "gap-validation.system.tsv", decide(val_probs, threshold))
    write_system_tsv(output_dir / "gap-test.system.tsv", test_answers)
    result = {
        "threshold": threshold,
        "validation": val_scores.as_dict(prefix=""),
        "test": test_scores.as_dict(prefix=""),
        "validation_row": val_scores.table_row(),
        "test_row": test_scores.table_row(),
        "test_words_per_second": words / seconds if seconds else None,
    }
    (output_dir / "gap_scores.json").write_text(json.dumps(result, indent=2), encoding="utf8")
    return result
