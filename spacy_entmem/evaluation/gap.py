"""GAP scoring exactly as the official ``gap_scorer.py`` computes it (see data/gap/SOURCE.md), threshold
selection, and the system file in the official format (``ID<TAB>A<TAB>B``, no header). No torch."""
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy

from .bootstrap import check_settings, percentile_interval

FEMININE = {"she", "her", "hers"}
MASCULINE = {"he", "his", "him"}
THRESHOLDS = [round(0.01 * i, 2) for i in range(100)]
SystemAnswer = Tuple[Optional[bool], Optional[bool]]


@dataclass(frozen=True)
class GapGold:
    id: str
    pronoun: str
    a_coref: bool
    b_coref: bool

    @property
    def gender(self) -> str:
        form = self.pronoun.lower()
        if form in FEMININE:
            return "feminine"
        if form in MASCULINE:
            return "masculine"
        raise ValueError(f"[spacy-entmem] GAP example {self.id}: unknown pronoun form '{self.pronoun}'")


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, gold: bool, system: Optional[bool]) -> None:
        if system is None:  # missing or unreadable prediction: a false negative, whatever gold says
            self.fn += 1
        elif gold and system:
            self.tp += 1
        elif system:
            self.fp += 1
        elif gold:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def recall(self) -> float:
        return 100.0 * self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def precision(self) -> float:
        return 100.0 * self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class GapScores:
    overall: Counts
    masculine: Counts
    feminine: Counts

    @property
    def bias(self) -> Optional[float]:
        if self.masculine.f1 == 0 or self.feminine.f1 == 0:
            return None
        return self.feminine.f1 / self.masculine.f1

    def as_dict(self, prefix: str = "gap_") -> Dict[str, Optional[float]]:
        result: Dict[str, Optional[float]] = {}
        for name, counts in (("", self.overall), ("_masc", self.masculine), ("_fem", self.feminine)):
            result[f"{prefix}p{name}"] = counts.precision
            result[f"{prefix}r{name}"] = counts.recall
            result[f"{prefix}f1{name}"] = counts.f1
        result[f"{prefix}bias"] = self.bias
        return result

    def table_row(self) -> str:
        bias = f"{self.bias:.2f}" if self.bias is not None else "-"
        return (
            f"O {self.overall.f1:.1f}  M {self.masculine.f1:.1f}  F {self.feminine.f1:.1f}  B {bias}"
        )


def score_gap(gold: Sequence[GapGold], system: Mapping[str, SystemAnswer]) -> GapScores:
    scores = GapScores(Counts(), Counts(), Counts())
    for example in gold:
        bucket = scores.feminine if example.gender == "feminine" else scores.masculine
        sys_a, sys_b = system.get(example.id, (None, None))
        for gold_value, sys_value in ((example.a_coref, sys_a), (example.b_coref, sys_b)):
            scores.overall.add(gold_value, sys_value)
            bucket.add(gold_value, sys_value)
    return scores


def bootstrap_intervals(gold: Sequence[GapGold], system: Mapping[str, SystemAnswer], samples: int = 1000,
                        level: float = 0.95, seed: int = 0) -> Dict[str, Tuple[float, float]]:
    """Percentile bootstrap intervals of F1 (overall, masculine, feminine) and of the bias F/M: the examples are
    drawn with replacement within each gender (GAP's splits hold as many of each), ``samples`` times. Shows
    how far a figure could move on another sample of the same kind of text."""
    check_settings(samples, level)
    by_gender = {}
    for gender in ("masculine", "feminine"):
        rows = []
        for example in (g for g in gold if g.gender == gender):
            counts = Counts()
            for gold_value, sys_value in zip((example.a_coref, example.b_coref), system.get(example.id, (None, None))):
                counts.add(gold_value, sys_value)
            rows.append((counts.tp, counts.fp, counts.fn))
        if not rows:
            raise ValueError(f"[spacy-entmem] bootstrap needs examples of both genders; none is {gender}")
        by_gender[gender] = numpy.array(rows, dtype="int64")
    rng = numpy.random.default_rng(seed)
    sums = {gender: rows[rng.integers(0, len(rows), size=(samples, len(rows)))].sum(axis=1)
            for gender, rows in by_gender.items()}

    def f1(counts):
        tp, fp, fn = counts[:, 0], counts[:, 1], counts[:, 2]
        return numpy.divide(200.0 * tp, 2 * tp + fp + fn, out=numpy.zeros(len(tp)), where=tp > 0)

    masc, fem = f1(sums["masculine"]), f1(sums["feminine"])
    drawn = {"f1": f1(sums["masculine"] + sums["feminine"]), "f1_masc": masc, "f1_fem": fem,
             "bias": numpy.divide(fem, masc, out=numpy.zeros(samples), where=masc > 0)}
    return {name: percentile_interval(values, level) for name, values in drawn.items()}


def interval_row(intervals: Mapping[str, Tuple[float, float]]) -> str:
    """The intervals as a one-line table row, like ``GapScores.table_row``."""
    (ol, oh), (ml, mh), (fl, fh), (bl, bh) = (intervals[k] for k in ("f1", "f1_masc", "f1_fem", "bias"))
    return f"O {ol:.1f}-{oh:.1f}  M {ml:.1f}-{mh:.1f}  F {fl:.1f}-{fh:.1f}  B {bl:.2f}-{bh:.2f}"


def decide(probabilities: Mapping[str, Tuple[float, float]], threshold: float,
           single: bool = False) -> Dict[str, SystemAnswer]:
    """"Yes" from ``threshold`` up; ``single``: at most one "yes" per query (GAP's gold never says both), for the
    likelier name (A on a tie)."""
    return {key: answer_pair(pa, pb, threshold, single) for key, (pa, pb) in probabilities.items()}


def answer_pair(pa: float, pb: float, threshold: float, single: bool = False) -> SystemAnswer:
    """(refers to A, refers to B) from their probabilities (see ``decide``)."""
    if single:
        return pa >= threshold and pa >= pb, pb >= threshold and pb > pa
    return pa >= threshold, pb >= threshold


def select_threshold(
    gold: Sequence[GapGold], probabilities: Mapping[str, Tuple[float, float]],
    thresholds: Iterable[float] = THRESHOLDS, single: bool = False,
) -> Tuple[float, GapScores]:
    """The threshold (first of the best, scanning upwards) with the highest overall F1 (answers as ``decide``)."""
    best: Optional[Tuple[float, GapScores]] = None
    for threshold in thresholds:
        scores = score_gap(gold, decide(probabilities, threshold, single))
        if best is None or scores.overall.f1 > best[1].overall.f1:
            best = (threshold, scores)
    assert best is not None
    return best


def _as_bool(value: str) -> Optional[bool]:
    value = value.strip().lower()
    return True if value == "true" else False if value == "false" else None


def read_gold_tsv(path: Path) -> List[GapGold]:
    """Gold examples of a GAP TSV, read as the official scorer does (first line is the header)."""
    rows = []
    with open(path, encoding="utf8", newline="") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader, None)
        for line_no, row in enumerate(reader, start=2):
            if len(row) < 10:
                raise ValueError(f"[spacy-entmem] {path}:{line_no}: expected 11 GAP columns, found {len(row)}")
            a, b = _as_bool(row[6]), _as_bool(row[9])
            if a is None or b is None:
                raise ValueError(f"[spacy-entmem] {path}:{line_no}: A-coref/B-coref must be TRUE or FALSE")
            rows.append(GapGold(row[0], row[2], a, b))
    return rows


def read_system_tsv(path: Path) -> Dict[str, SystemAnswer]:
    """A system file: ``ID<TAB>A<TAB>B`` per line, no header; the first line of an ID wins."""
    system: Dict[str, SystemAnswer] = {}
    with open(path, encoding="utf8", newline="") as f:
        for row in csv.reader(f, delimiter="\t"):
            if not row:
                continue
            values = (row + ["", "", ""])[:3]
            system.setdefault(values[0], (_as_bool(values[1]), _as_bool(values[2])))
    return system


def write_system_tsv(path: Path, answers: Mapping[str, SystemAnswer]) -> None:
    with open(path, "w", encoding="utf8", newline="") as f:
        for key, (a, b) in answers.items():
            f.write(f"{key}\t{'TRUE' if a else 'FALSE'}\t{'TRUE' if b else 'FALSE'}\n")
