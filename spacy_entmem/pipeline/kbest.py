"""Approximate k-best coreference from a teacher-forced ``entity_memory`` (for reranking, EntityNLM §5.2).

Ji et al. build their k-best list from one greedy output: every suboptimal choice (a mention's antecedent
other than the chosen one) is scored by how far it falls below the chosen one; taking these choices in
ascending order of that gap, each one changed in the 1-best output gives a candidate, kept when its clusters
differ from every candidate so far. The memory decides left to right, so here a candidate forces one step's
action (ignore, new entity, or join another cell) and lets the memory decide the rest greedily from there: every
candidate is a state sequence the memory can reach, and the steps before the forced one are the 1-best's.
Forced runs go through the memory in batches (one row per candidate, the same document in every row).
"""
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Tuple

import numpy
from spacy.tokens import Doc

from ..models.memory import is_teacher_forced, torch_memory
from ..nn.memory.mention_memory import action_index
from .memory_log import decode_span_mentions, group_clusters

Mention = Tuple[int, int]


@dataclass
class Alternative:
    """One candidate of the k-best list: its clusters (singletons included, ordered by first mention), the
    memory's score of its decisions (Σ over steps of the greedy score of the action taken: log p after the
    decision offsets) and the (step, action index) forced to reach it (None for the 1-best)."""

    clusters: List[List[Mention]]
    memory_score: float
    forced: Optional[Tuple[int, int]] = None

    def key(self) -> FrozenSet[FrozenSet[Mention]]:
        return frozenset(frozenset(cluster) for cluster in self.clusters)


def suboptimal_choices(scores: numpy.ndarray, chosen: numpy.ndarray) -> List[Tuple[int, int]]:
    """(step, action index) of every finite non-chosen action, ascending by its gap to the chosen one
    (ties: earlier step, lower index). ``scores`` (M, A), ``chosen`` (M,)."""
    gap = scores[numpy.arange(len(chosen)), chosen][:, None] - scores
    gap[numpy.arange(len(chosen)), chosen] = numpy.inf
    steps, actions = numpy.nonzero(numpy.isfinite(gap))
    order = numpy.lexsort((actions, steps, gap[steps, actions]))
    return list(zip(steps[order].tolist(), actions[order].tolist()))


def kbest(pipe, doc: Doc, k: int, batch_size: int = 32, max_runs: Optional[int] = None) -> List[Alternative]:
    """Up to ``k`` alternatives with distinct clusters, the 1-best first, for a doc that went through the
    pipeline up to ``pipe`` (an ``entity_memory`` with a teacher-forced memory; its candidates and token
    vectors are read from the doc). ``max_runs`` caps the forced runs (default 10 × k)."""
    if not is_teacher_forced(pipe.model):
        raise ValueError(f"[spacy-entmem] k-best lists need a teacher-forced memory (spacy_entmem.MentionMemory.v1); "
                         f"component {pipe.name!r} has another architecture")
    if k < 1:
        raise ValueError(f"[spacy-entmem] k must be at least 1, got {k}")
    module = torch_memory(pipe.model)
    spans = pipe.candidates(doc)
    module.record_decision_scores = True
    try:
        (best,), out = _runs(pipe, module, doc, spans, [None])
        found = {best.key(): best}
        if not len(spans):
            return [best]
        n = len(spans)
        chosen = action_index(out.actions[0, :n].numpy(), out.cells[0, :n].numpy())
        choices = suboptimal_choices(out.decision_scores[0, :n], chosen)[:10 * k if max_runs is None else max_runs]
        for start in range(0, len(choices), batch_size):
            if len(found) >= k:
                break
            for alternative in _runs(pipe, module, doc, spans, choices[start:start + batch_size])[0]:
                if len(found) < k:
                    found.setdefault(alternative.key(), alternative)
    finally:
        module.record_decision_scores = False
        module.forced_actions = None
    return list(found.values())


def _runs(pipe, module, doc: Doc, spans: numpy.ndarray, forced: List[Optional[Tuple[int, int]]]):
    """(alternatives, the memory's output) of one batch that runs the memory once per entry of ``forced``
    (None: no step forced)."""
    n = len(spans)
    module.forced_actions = numpy.full((len(forced), n), -1, dtype="int64")
    for row, choice in enumerate(forced):
        if choice is not None:
            module.forced_actions[row, choice[0]] = choice[1]
    out = pipe.run_memory([doc] * len(forced), [spans] * len(forced))
    alternatives = []
    for row, choice in enumerate(forced):
        actions, cells = out.actions[row, :n].numpy(), out.cells[row, :n].numpy()
        taken = out.decision_scores[row, numpy.arange(n), action_index(actions, cells)] if n else numpy.zeros(0)
        clusters = group_clusters(decode_span_mentions(actions, cells, spans))
        alternatives.append(Alternative(clusters, float(taken.sum()), choice))
    return alternatives, out
