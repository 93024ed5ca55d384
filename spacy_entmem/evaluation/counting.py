"""People counting (PeTra §3.5): does the memory know how many people a text mentions?

A document's count is Σ_t Σ_i 1[o_{t,i} ≥ α], the number of overwrite decisions, with α chosen on the
annotated set to minimise the sum of absolute errors; and, with nothing to choose, the number of person entities
in the document's entity table (``Doc._.entities``: the clusters and single mentions the memory wrote, of kind
person). Both are reported. Reference counts come as a TSV ``ID<TAB>Count``
(an optional ``ID<TAB>Count`` header) keyed by GAP ids; they are not distributed with this package.
"""
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence

import numpy

from ..pipeline.memory_log import count_entities

ALPHAS = [round(0.01 * i, 2) for i in range(1, 100)]


def read_counts_tsv(path: Path) -> Dict[str, int]:
    """``ID<TAB>Count`` lines; malformed lines fail with the file and line."""
    counts: Dict[str, int] = {}
    with open(path, encoding="utf8", newline="") as f:
        for line_no, row in enumerate(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE), start=1):
            if not row or not any(cell.strip() for cell in row):
                continue
            where = f"{path}:{line_no}"
            if len(row) != 2:
                raise ValueError(f"[spacy-entmem] {where}: expected 'ID<TAB>Count', got {len(row)} column(s): {row}")
            doc_id, value = row[0].strip(), row[1].strip()
            if line_no == 1 and value.lower() == "count":
                continue
            if not value.isdigit():
                raise ValueError(f"[spacy-entmem] {where}: count must be a non-negative integer, got {value!r}")
            if doc_id in counts:
                raise ValueError(f"[spacy-entmem] {where}: duplicate ID {doc_id!r}")
            counts[doc_id] = int(value)
    if not counts:
        raise ValueError(f"[spacy-entmem] {path}: no counts found")
    return counts


@dataclass
class CountingResult:
    alpha: float
    error_sum: int
    n_docs: int
    baseline_count: int
    baseline_error_sum: int
    predicted: Dict[str, int]
    table_predicted: Dict[str, int] = field(default_factory=dict)  # person entities of ``Doc._.entities``
    gold: Dict[str, int] = field(default_factory=dict)

    @property
    def table_error_sum(self) -> int:
        return sum(abs(self.table_predicted[i] - self.gold[i]) for i in self.table_predicted)

    @property
    def mean_error(self) -> float:
        return self.error_sum / self.n_docs

    def as_dict(self) -> Dict:
        return {"alpha": self.alpha, "error_sum": self.error_sum, "mean_abs_error": self.mean_error,
                "n_docs": self.n_docs, "baseline_constant_count": self.baseline_count,
                "baseline_error_sum": self.baseline_error_sum, "predicted": self.predicted,
                "table_error_sum": self.table_error_sum, "table_mean_abs_error": self.table_error_sum / self.n_docs,
                "table_predicted": self.table_predicted}


def select_alpha(overwrites: Dict[str, numpy.ndarray], gold: Dict[str, int],
                 alphas: Sequence[float] = ALPHAS) -> CountingResult:
    """The α with the smallest sum of absolute count errors (ties → smallest α), and the best
    constant-count baseline for comparison."""
    ids = sorted(gold)
    missing = [i for i in ids if i not in overwrites]
    if missing:
        raise ValueError(f"[spacy-entmem] no memory log for {len(missing)} annotated id(s), e.g. {missing[:5]}")
    best = None
    for alpha in alphas:
        error = sum(abs(count_entities(overwrites[i], alpha) - gold[i]) for i in ids)
        if best is None or error < best[1]:
            best = (alpha, error)
    alpha, error = best
    values: List[int] = [gold[i] for i in ids]
    constant = int(numpy.median(values))
    return CountingResult(
        alpha=alpha, error_sum=error, n_docs=len(ids), baseline_count=constant,
        baseline_error_sum=sum(abs(v - constant) for v in values),
        predicted={i: count_entities(overwrites[i], alpha) for i in ids},
    )


def evaluate_counts(nlp, gap_tsv: Path, counts_tsv: Path, batch_size: int = 64) -> CountingResult:
    """Run the pipeline on the GAP rows that have reference counts, then choose α and score."""
    from ..corpora.gap import read_gap_rows

    gold = read_counts_tsv(counts_tsv)
    rows = [row for row in read_gap_rows(gap_tsv) if row.id in gold]
    unknown = sorted(set(gold) - {row.id for row in rows})
    if unknown:
        raise ValueError(f"[spacy-entmem] {counts_tsv}: {len(unknown)} id(s) not in {gap_tsv}, e.g. {unknown[:5]}")
    overwrites, people = {}, {}
    for row, doc in zip(rows, nlp.pipe((row.text for row in rows), batch_size=batch_size)):
        if doc._.entity_memory_log is None:
            raise ValueError("[spacy-entmem] the pipeline stores no memory log (set store_memory_log = true)")
        overwrites[row.id] = doc._.entity_memory_log["overwrite"]
        people[row.id] = count_people(doc)
    result = select_alpha(overwrites, gold)
    result.table_predicted, result.gold = people, gold
    return result


def count_people(doc) -> int:
    """The person entities of the doc's entity table (``Doc._.entities``)."""
    return sum(entity.kind == "person" for entity in doc._.entities)
