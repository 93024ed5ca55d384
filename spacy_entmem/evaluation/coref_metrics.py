"""Coreference metrics on exact-match mentions: MUC, B³, CEAF-e, CoNLL F1 and LEA (no torch).

A clustering is a list of clusters, each a collection of hashable mentions (e.g. (start, end) pairs).
Each function returns (recall, precision) for one document's key and response; ``CorefScorer``
accumulates numerators and denominators over documents as the reference scorer does.
"""
from collections import defaultdict
from typing import Dict, Hashable, Iterable, List, Optional, Sequence, Set, Tuple

import numpy

from .bootstrap import check_settings, percentile_interval

Cluster = Set[Hashable]
Counts = Tuple[float, float, float, float]  # recall num, recall den, precision num, precision den
METRICS = ("muc", "b3", "ceafe", "lea")


def as_clusters(clusters: Iterable[Iterable[Hashable]], keep_singletons: bool = True) -> List[Cluster]:
    result = [set(c) for c in clusters]
    return [c for c in result if c and (keep_singletons or len(c) > 1)]


def _mention_to_cluster(clusters: Sequence[Cluster]) -> Dict[Hashable, int]:
    return {m: i for i, c in enumerate(clusters) for m in c}


def muc(key: Sequence[Cluster], response: Sequence[Cluster]) -> Counts:
    def partition_counts(gold: Sequence[Cluster], pred: Sequence[Cluster]) -> Tuple[float, float]:
        where = _mention_to_cluster(pred)
        num = den = 0.0
        for cluster in gold:
            parts = {where.get(m, ("unaligned", m)) for m in cluster}
            num += len(cluster) - len(parts)
            den += len(cluster) - 1
        return num, den

    rn, rd = partition_counts(key, response)
    pn, pd = partition_counts(response, key)
    return rn, rd, pn, pd


def b_cubed(key: Sequence[Cluster], response: Sequence[Cluster]) -> Counts:
    def side(gold: Sequence[Cluster], pred: Sequence[Cluster]) -> Tuple[float, float]:
        where = _mention_to_cluster(pred)
        num = 0.0
        den = 0.0
        for cluster in gold:
            overlaps: Dict[int, int] = defaultdict(int)
            for m in cluster:
                if m in where:
                    overlaps[where[m]] += 1
            num += sum(count * count for count in overlaps.values()) / len(cluster)
            den += len(cluster)
        return num, den

    rn, rd = side(key, response)
    pn, pd = side(response, key)
    return rn, rd, pn, pd


def ceaf_e(key: Sequence[Cluster], response: Sequence[Cluster]) -> Counts:
    """Entity-based CEAF with φ4 similarity and the optimal one-to-one alignment (scipy)."""
    if not key or not response:
        return 0.0, float(len(key)), 0.0, float(len(response))
    similarity = numpy.zeros((len(key), len(response)))
    for i, k in enumerate(key):
        for j, r in enumerate(response):
            common = len(k & r)
            if common:
                similarity[i, j] = 2.0 * common / (len(k) + len(r))
    from scipy.optimize import linear_sum_assignment  # here: scipy.optimize takes 0.3 s to import

    rows, cols = linear_sum_assignment(-similarity)
    total = float(similarity[rows, cols].sum())
    return total, float(len(key)), total, float(len(response))


def lea(key: Sequence[Cluster], response: Sequence[Cluster]) -> Counts:
    """Link-based entity-aware metric (Moosavi & Strube 2016); a singleton's one "link" is itself."""
    def links(n: int) -> int:
        return n * (n - 1) // 2 if n > 1 else 1

    def side(gold: Sequence[Cluster], pred: Sequence[Cluster]) -> Tuple[float, float]:
        where = _mention_to_cluster(pred)
        num = den = 0.0
        for cluster in gold:
            overlaps: Dict[int, int] = defaultdict(int)
            for m in cluster:
                if m in where:
                    overlaps[where[m]] += 1
            if len(cluster) == 1:
                (only,) = tuple(cluster)
                resolved = 1 if only in where and len(pred[where[only]]) == 1 else 0
            else:
                resolved = sum(links(common) for common in overlaps.values() if common > 1)
            num += len(cluster) * resolved / links(len(cluster))
            den += len(cluster)
        return num, den

    rn, rd = side(key, response)
    pn, pd = side(response, key)
    return rn, rd, pn, pd


METRIC_FUNCTIONS = {"muc": muc, "b3": b_cubed, "ceafe": ceaf_e, "lea": lea}


def prf(counts: Counts) -> Tuple[float, float, float]:
    rn, rd, pn, pd = counts
    recall = rn / rd if rd else 0.0
    precision = pn / pd if pd else 0.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f


class CorefScorer:
    """Accumulates every metric over documents; ``scores()`` gives P/R/F per metric and CoNLL F1, ``bootstrap()``
    intervals of CoNLL F1 and LEA over resampled documents."""

    def __init__(self, keep_singletons: bool = True):
        self.keep_singletons = keep_singletons
        self.documents: List[numpy.ndarray] = []  # per document: (len(METRICS), 4) counts

    def add(self, key: Iterable[Iterable[Hashable]], response: Iterable[Iterable[Hashable]]) -> None:
        k = as_clusters(key, self.keep_singletons)
        r = as_clusters(response, self.keep_singletons)
        self.documents.append(numpy.array([METRIC_FUNCTIONS[name](k, r) for name in METRICS], dtype="float64"))

    def scores(self) -> Dict[str, float]:
        result: Dict[str, float] = {}
        totals = numpy.sum(self.documents, axis=0) if self.documents else numpy.zeros((len(METRICS), 4))
        for name, counts in zip(METRICS, totals.tolist()):
            p, r, f = prf(tuple(counts))  # type: ignore[arg-type]
            result.update({f"{name}_p": p, f"{name}_r": r, f"{name}_f": f})
        result["conll_f"] = (result["muc_f"] + result["b3_f"] + result["ceafe_f"]) / 3
        return result

    def bootstrap(self, against: Optional["CorefScorer"] = None, samples: int = 1000, level: float = 0.95,
                  seed: int = 0) -> Dict[str, Tuple[float, float]]:
        """Percentile bootstrap intervals (F in [0, 1]) of ``conll_f`` and ``lea_f``: the documents drawn with
        replacement ``samples`` times, every metric summed over each draw as ``scores()`` sums them. With
        ``against`` (a scorer of another system on the same documents, in the same order) also ``conll_f_minus``
        and ``lea_f_minus``, this one's F minus the other's on the same draws (a paired bootstrap)."""
        if not self.documents:
            raise ValueError("[spacy-entmem] bootstrap needs at least one scored document")
        check_settings(samples, level)
        if against is not None and len(against.documents) != len(self.documents):
            raise ValueError(f"[spacy-entmem] a paired bootstrap needs the same documents: {len(self.documents)} "
                             f"scored here, {len(against.documents)} in the other scorer")
        draws = numpy.random.default_rng(seed).integers(0, len(self.documents), size=(samples, len(self.documents)))
        drawn = {"": _drawn_f(numpy.stack(self.documents), draws)}
        if against is not None:
            drawn["_minus"] = {name: f - other for (name, f), other in
                               zip(drawn[""].items(), _drawn_f(numpy.stack(against.documents), draws).values())}
        return {f"{name}{suffix}": percentile_interval(values, level)
                for suffix, by_name in drawn.items() for name, values in by_name.items()}


def _drawn_f(documents: numpy.ndarray, draws: numpy.ndarray) -> Dict[str, numpy.ndarray]:
    """CoNLL F1 and LEA F per draw: ``documents`` (n, len(METRICS), 4) counts, ``draws`` (samples, n) indices."""
    n, samples = len(documents), len(draws)
    times_drawn = numpy.zeros((samples, n))
    numpy.add.at(times_drawn, (numpy.arange(samples)[:, None], draws), 1.0)
    totals = (times_drawn @ documents.reshape(n, -1)).reshape(samples, *documents.shape[1:])  # (samples, metrics, 4)
    recall = numpy.divide(totals[..., 0], totals[..., 1], out=numpy.zeros(totals.shape[:2]), where=totals[..., 1] > 0)
    precision = numpy.divide(totals[..., 2], totals[..., 3], out=numpy.zeros(totals.shape[:2]),
                             where=totals[..., 3] > 0)
    f = numpy.divide(2 * precision * recall, precision + recall, out=numpy.zeros(totals.shape[:2]),
                     where=precision + recall > 0)
    by_metric = dict(zip(METRICS, f.T))
    return {"conll_f": (by_metric["muc"] + by_metric["b3"] + by_metric["ceafe"]) / 3, "lea_f": by_metric["lea"]}
