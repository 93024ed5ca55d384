"""Beam search over the mention memory's decisions (inference only).

Greedy reading takes the best action at every candidate, so one early mistake changes the cells that every
later decision reads (a narrator split in two after one misplaced "his"). Beam search keeps the ``width`` best
partial readings of each document instead, scored by the sum of their decisions' scores (log p of the action
plus the decision offsets, as the greedy loop maximises step by step), and returns the best complete one. Each
reading keeps its own memory: cell vectors, their share of the similarity MLP's first layer, and the symbolic
``CellState``; the readings of a batch are rows of one batch of documents × width, so a step costs one batched
pass as in the greedy loop. Width 1 is the greedy loop.

The decision constraints of the greedy loop hold in every reading (agreement: no join with a disagreeing cell;
narrator, speaker and apposition continuity: the rule's action only, a quoted I's speaker and an apposed name's
nominal followed by its entity in that reading; name continuity: a held name joins its cell or is ignored). Pruned
candidates (``pruning_bound``) are not read, as in greedy reading (IGNORE in every reading).
"""
from dataclasses import dataclass
from typing import TYPE_CHECKING, List, Optional

import numpy
import torch

from .mention_memory import IGNORE, CellState, decide, entity_of_step, follower_steps, join_where_free
from .outputs import MemoryOutput, token_mask

if TYPE_CHECKING:
    from .mention_memory import MentionMemory


@dataclass
class BeamStep:
    """One step of every reading: the parent each kept reading came from (B, width), the parents' action
    log-probabilities (R, N + 2), and the kept readings' action (R,), cell (R,; -1 if ignored), usage after
    the step (R, N) and the entity the step joined or began (R,; -1 if ignored or padding); R = B × width."""

    parents: numpy.ndarray
    log_p: torch.Tensor
    action: numpy.ndarray
    cell: numpy.ndarray
    usage: numpy.ndarray
    entity: numpy.ndarray


def step_scores(memory: "MentionMemory", log_p: torch.Tensor, state: CellState, disagree, forced: numpy.ndarray,
                active: numpy.ndarray, holder: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(R, N + 2) float64 what each action adds to a reading's score: log p plus the decision offsets; −inf
    for empty cells, cells a constraint forbids, and every action but the ``forced`` one (≥ 0) where a rule
    decides (a name's ``holder`` cell: see ``MentionMemory.decision_scores``); a finished document (not
    ``active``) can only IGNORE, at no cost."""
    scores = memory.decision_scores(log_p, disagree, dtype="float64", holder=holder)
    scores[:, 2:][~state.used] = -numpy.inf
    ruled = numpy.flatnonzero(forced >= 0)
    if len(ruled):
        kept = scores[ruled, forced[ruled]]
        scores[ruled] = -numpy.inf
        scores[ruled, forced[ruled]] = kept
    scores[~active] = -numpy.inf
    scores[~active, IGNORE] = 0.0
    return scores


def best_children(beam: numpy.ndarray, scores: numpy.ndarray) -> tuple:
    """For beam (B, K) scores of the readings and their actions' scores (B·K, A): the K best (reading,
    action) pairs of each document, best first (ties: the earlier reading, then the lower action index, as
    greedy argmax). Returns (parents (B, K) reading index within the document, actions (B, K) column, totals
    (B, K))."""
    B, K = beam.shape
    A = scores.shape[1]
    with numpy.errstate(invalid="ignore"):  # -inf + inf: no reading
        totals = beam.reshape(-1, 1) + scores
    totals = numpy.where(numpy.isnan(totals), -numpy.inf, totals).reshape(B, K * A)
    order = numpy.argsort(-totals, axis=1, kind="stable")[:, :K]
    return order // A, order % A, numpy.take_along_axis(totals, order, axis=1)


def read_memory_beam(memory: "MentionMemory", g: torch.Tensor, sim_token: torch.Tensor, mention_score: torch.Tensor,
                     new_score: torch.Tensor, spans: numpy.ndarray, attrs: numpy.ndarray, n_spans: torch.Tensor,
                     width: int) -> MemoryOutput:
    """The best reading found by a beam of ``width`` readings per document, as ``MentionMemory.read_memory``'s
    output (the log's probabilities are those of the chosen reading's steps)."""
    B, M, H = g.shape
    N, K = memory.n_cells, width
    R = B * K
    doc = numpy.repeat(numpy.arange(B), K)
    doc_t = memory._tensor(doc)
    active_mask = token_mask(n_spans, M)
    active = active_mask.numpy()[doc]  # (R, M)
    state = CellState(R, N)
    cells_memory = g.new_zeros(R, N, H)
    memory_part = g.new_zeros(R, N, memory.similarity_mlp.token_proj.out_features)
    beam = numpy.full((B, K), -numpy.inf)
    beam[:, 0] = 0.0  # one reading to start with
    feature_table = memory.projected_feature_table()
    block = numpy.arange(B)[:, None] * K
    history: List[BeamStep] = []
    leaders = memory.leader_steps(spans, attrs)
    leaders = leaders[doc] if leaders is not None else None  # (R, M), as each reading's document
    followers = follower_steps(leaders)
    step_entity = numpy.full((R, M), -1) if leaders is not None else None  # per reading, as the greedy loop's
    for t in range(M):
        g_t, sim_t = g[:, t].index_select(0, doc_t), sim_token[:, t].index_select(0, doc_t)
        attrs_t, spans_t = attrs[doc, t], spans[doc, t]
        coref, disagree = memory._cell_scores(g_t, sim_t, cells_memory, memory_part, state, attrs_t, spans_t[:, 0],
                                              active[:, t], feature_table)
        mention_t = mention_score[:, t].index_select(0, doc_t)[:, None]
        new_t = new_score[:, t].index_select(0, doc_t)[:, None]
        logits = torch.cat([torch.zeros_like(mention_t), mention_t + new_t, mention_t + coref], dim=-1)
        log_p = torch.log_softmax(logits, dim=-1)
        forced = numpy.full(R, -1)
        if memory.narrator_continuity:
            narrator = state.narrator_cell(attrs_t, active[:, t])
            forced = join_where_free(None, narrator)
        if leaders is not None and memory.follows_at(leaders, followers, t):
            forced = join_where_free(forced, memory.leader_cells(
                state, leaders[:, t], t, step_entity, attrs, spans, disagree, docs=doc,
                follower_t=None if followers is None else followers[:, t]))
        holder = memory.name_holders(state, attrs_t, spans_t[:, 0], active[:, t], disagree)
        holder = memory.binder_holders(state, attrs_t, active[:, t], disagree, holder)
        holder = memory.singular_they_holders(state, attrs_t, spans_t[:, 0], active[:, t], disagree, holder)
        holder = memory.plural_they_holders(state, attrs_t, spans_t[:, 0], active[:, t], disagree, holder, log_p)
        scores = step_scores(memory, log_p, state, disagree, forced, active[:, t], holder)
        parents, columns, beam = best_children(beam, scores)
        rows = (block + parents).reshape(-1)
        columns = columns.reshape(-1)
        state = state.select(rows)
        if step_entity is not None:
            step_entity = step_entity[rows]
        rows_t = memory._tensor(rows)
        cells_memory, memory_part = cells_memory.index_select(0, rows_t), memory_part.index_select(0, rows_t)
        decision = decide(columns, state)
        cells_memory, memory_part = memory._update(cells_memory, memory_part, g_t, decision, active[:, t])
        state.apply(decision.action, decision.cell, attrs_t, spans_t[:, 1], memory.usage_decay, active[:, t])
        entity = numpy.where(active[:, t], entity_of_step(state, decision), -1)
        if step_entity is not None:
            step_entity[:, t] = entity
        ignored = decision.action == IGNORE
        history.append(BeamStep(parents, log_p.detach(), decision.action, numpy.where(ignored, -1, decision.cell),
                                state.usage.astype("float32"), entity))
    return best_reading(memory, history, n_spans, active_mask, g.dtype)


def best_reading(memory: "MentionMemory", history: List[BeamStep], n_spans: torch.Tensor, active_mask: torch.Tensor,
                 dtype: torch.dtype) -> MemoryOutput:
    """Follow the best final reading of each document (index 0: the children are sorted) back through
    ``history`` and return its steps as the memory's output."""
    B, K = history[0].parents.shape
    block = numpy.arange(B) * K
    kept = numpy.zeros(B, dtype="int64")
    log_p, actions, cells, usage, entities = [], [], [], [], []
    for step in reversed(history):
        rows = block + kept
        parents = step.parents[numpy.arange(B), kept]
        log_p.append(step.log_p.index_select(0, memory._tensor(block + parents)))
        actions.append(step.action[rows])
        cells.append(step.cell[rows])
        usage.append(step.usage[rows])
        entities.append(step.entity[rows])
        kept = parents
    out = memory._output(torch.stack(log_p[::-1], dim=1), numpy.stack(actions[::-1], 1),
                         numpy.stack(cells[::-1], 1), memory._tensor(numpy.stack(usage[::-1], 1)).to(dtype), n_spans,
                         active_mask)
    out.entities = numpy.stack(entities[::-1], 1)
    return out
