"""The memory log of one document (numpy, no torch) and what is read off it: hard per-token decisions,
whole mentions, clusters and link probabilities between spans.

A log is a dict of arrays: ``entity`` (T,), ``overwrite``, ``coref``, ``usage`` (T, N) and, once
decoded, ``action`` (T,) with 0 = IGNORE, 1 = OVERWRITE, 2 = COREF and ``cell`` (T,), -1 where ignored.
A span model's log has one step per candidate mention instead of per token, and ``spans`` (T, 2) holds
each step's [start, end) token range.
"""
from typing import Dict, List, Tuple

import numpy

ACTIONS = ("IGNORE", "OVERWRITE", "COREF")
IGNORE, OVERWRITE, COREF = 0, 1, 2
MemoryLog = Dict[str, numpy.ndarray]
Mention = Tuple[int, int, int]  # start, end (exclusive), entity id


def decode_actions(log: MemoryLog, entity_threshold: float = 0.5,
                   new_entity_bias: float = 1.0) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """Hard decision per token: IGNORE below the entity threshold, else the larger of the overwrite
    probability (on its cell, times ``new_entity_bias``) and the best coreference probability; ties go to
    COREF, then lowest cell."""
    entity, overwrite, coref = log["entity"], log["overwrite"], log["coref"]
    n_tokens = entity.shape[0]
    actions = numpy.zeros(n_tokens, dtype=numpy.int8)
    cells = numpy.full(n_tokens, -1, dtype=numpy.int16)
    if n_tokens == 0 or overwrite.shape[1] == 0:
        return actions, cells
    ow_cell = overwrite.argmax(axis=1)
    co_cell = coref.argmax(axis=1)
    rows = numpy.arange(n_tokens)
    is_entity = entity >= entity_threshold
    is_new = overwrite[rows, ow_cell] * new_entity_bias > coref[rows, co_cell]
    actions[is_entity & is_new] = OVERWRITE
    actions[is_entity & ~is_new] = COREF
    cells[:] = numpy.where(is_new, ow_cell, co_cell)
    cells[~is_entity] = -1
    return actions, cells


def step_entities(actions: numpy.ndarray, cells: numpy.ndarray) -> List[int]:
    """The entity id of every step (-1 where ignored): a cell holds one entity from its overwrite to the
    next; a COREF step joins the entity its cell holds."""
    cell_entity: Dict[int, int] = {}
    entities = []
    next_entity = 0
    for action, cell in zip(actions.tolist(), cells.tolist()):
        if action == IGNORE:
            entities.append(-1)
            continue
        if action == OVERWRITE or cell not in cell_entity:
            cell_entity[cell] = next_entity
            next_entity += 1
        entities.append(cell_entity[cell])
    return entities


def decode_mentions(actions: numpy.ndarray, cells: numpy.ndarray) -> List[Mention]:
    """Whole mentions of a token-level log: a COREF token that follows a token of the same entity extends
    that token's mention (multi-token names)."""
    mentions: List[List[int]] = []
    previous = -1
    for t, entity in enumerate(step_entities(actions, cells)):
        if entity >= 0 and entity == previous:
            mentions[-1][1] = t + 1
        elif entity >= 0:
            mentions.append([t, t + 1, entity])
        previous = entity
    return [tuple(m) for m in mentions]  # type: ignore[misc]


def decode_span_mentions(actions: numpy.ndarray, cells: numpy.ndarray, spans: numpy.ndarray) -> List[Mention]:
    """Mentions of a span-level log: every step that is not ignored is its candidate span."""
    return [(int(spans[t][0]), int(spans[t][1]), entity)
            for t, entity in enumerate(step_entities(actions, cells)) if entity >= 0]


def group_clusters_by_entity(mentions: List[Mention]) -> List[Tuple[int, List[Tuple[int, int]]]]:
    """(entity id, its mentions' spans), ordered by their first mention."""
    by_entity: Dict[int, List[Tuple[int, int]]] = {}
    for start, end, entity in mentions:
        by_entity.setdefault(entity, []).append((start, end))
    return sorted(by_entity.items(), key=lambda item: item[1][0])


def group_clusters(mentions: List[Mention]) -> List[List[Tuple[int, int]]]:
    """Mentions grouped by entity, clusters ordered by their first mention."""
    return [spans for _, spans in group_clusters_by_entity(mentions)]


def log_mentions(log: MemoryLog) -> List[Mention]:
    """The mentions of a decoded log with their entity ids: the memory's own ids where its loop recorded them
    (``entity_id``: stable across a stream), else counted from the actions (``step_entities``)."""
    if "entity_id" in log and "spans" in log:
        return [(int(span[0]), int(span[1]), int(entity))
                for span, entity in zip(log["spans"].tolist(), log["entity_id"].tolist()) if entity >= 0]
    if "spans" in log:
        return decode_span_mentions(log["action"], log["cell"], log["spans"])
    return decode_mentions(log["action"], log["cell"])


def span_link_probability(
    log: MemoryLog, first: Tuple[int, int], second: Tuple[int, int], floor: float = 1e-6
) -> float:
    """Max over token pairs (t1 in first, t2 in second) of
    P(t1 ~ t2) = Σ_i (o+c)_{t1,i} · Π_{t1<j≤t2} (1 - o_{j,i}) · c_{t2,i}  (the same maths as the torch
    training loss, in float64 log space)."""
    overwrite, coref = log["overwrite"].astype(numpy.float64), log["coref"].astype(numpy.float64)
    lo = min(first[0], second[0])
    hi = max(first[1], second[1])
    survive = numpy.cumsum(numpy.log(numpy.clip(1.0 - overwrite[lo:hi], floor, None)), axis=0)
    best = 0.0
    for a in range(*first):
        for b in range(*second):
            if a == b:
                continue
            t1, t2 = min(a, b), max(a, b)
            keep = numpy.exp(survive[t2 - lo] - survive[t1 - lo])
            prob = float(((overwrite[t1] + coref[t1]) * keep * coref[t2]).sum())
            best = max(best, prob)
    return best


def steps_matching(log: MemoryLog, token_range: Tuple[int, int]) -> List[int]:
    """The steps of a span-level log that stand for ``token_range``: the candidate with exactly that span;
    else the candidates inside it (``Smith`` of ``John Smith``); else the shortest candidates containing it.
    (A long candidate that also covers another annotated span must not stand for both.)"""
    start, end = token_range
    spans = [tuple(span) for span in log["spans"].tolist()]
    exact = [t for t, span in enumerate(spans) if span == (start, end)]
    if exact:
        return exact
    inside = [t for t, (s, e) in enumerate(spans) if start <= s and e <= end]
    if inside:
        return inside
    containing = [t for t, (s, e) in enumerate(spans) if s <= start and end <= e]
    if not containing:
        return []
    shortest = min(spans[t][1] - spans[t][0] for t in containing)
    return [t for t in containing if spans[t][1] - spans[t][0] == shortest]


def steps_link_probability(log: MemoryLog, first: List[int], second: List[int], floor: float = 1e-6) -> float:
    """Max of P(t1 ~ t2) over step pairs from ``first`` × ``second`` (0 when either is empty)."""
    best = 0.0
    for a in first:
        for b in second:
            if a != b:
                lo, hi = min(a, b), max(a, b)
                best = max(best, span_link_probability(log, (lo, lo + 1), (hi, hi + 1), floor))
    return best


def held_link_probability(log: MemoryLog, first: List[int], second: List[int]) -> float:
    """For a memory that decides inside its loop: the largest probability that a step of ``second`` joins
    the entity that a step of ``first`` was put in — its COREF probability on the cell holding that entity
    at that moment (0 when that entity was forgotten or the earlier step was ignored)."""
    actions, cells = log["action"], log["cell"]
    entities = step_entities(actions, cells)
    best = 0.0
    for a in first:
        for b in second:
            lo, hi = min(a, b), max(a, b)
            entity = entities[lo]
            if entity < 0 or lo == hi:
                continue
            holder = int(cells[lo])
            # the entity stays in its cell until that cell is overwritten
            if any(actions[t] == OVERWRITE and cells[t] == holder for t in range(lo + 1, hi)):
                continue
            best = max(best, float(log["coref"][hi][holder]))
    return best


def count_entities(overwrite: numpy.ndarray, threshold: float) -> int:
    """People counting (PeTra §3.5): the number of overwrite decisions, Σ_t Σ_i 1[o_{t,i} ≥ α]."""
    return int((overwrite >= threshold).sum()) if overwrite.size else 0
