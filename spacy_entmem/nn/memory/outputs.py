"""What every memory model returns, and what is computed from it independently of the model.

Both memories (PeTra and the Referential Reader) fit one interface: per token an entity probability,
per cell an overwrite and a coreference (update) probability and a usage/salience value. The link
probability between two tokens (PeTra's Eq. and the Referential Reader's Eq. 5) has the same form for
both, so losses, decoding and evaluation are shared.
"""
from dataclasses import dataclass, replace
from typing import List, Optional

import numpy
import torch
from torch import nn


@dataclass
class MemoryOutput:
    """Per-token memory decisions of a batch: entity (B, T), overwrite/coref/usage (B, T, N).

    ``next_logprob`` (B, T), when the model has a language-model head and token ids were given, holds
    log p(w_{t+1} | w_1..w_t) at positions t < length - 1 and 0 elsewhere.
    """

    entity: torch.Tensor
    overwrite: torch.Tensor
    coref: torch.Tensor
    usage: torch.Tensor
    lengths: torch.Tensor
    next_logprob: Optional[torch.Tensor] = None
    # teacher-forced models: log p(gold action) per step (B, T) in training; the hard decisions taken
    # inside the loop, action (B, T) and cell (B, T), -1 where ignored
    gold_logprob: Optional[torch.Tensor] = None
    actions: Optional[torch.Tensor] = None
    cells: Optional[torch.Tensor] = None
    supervised_steps: int = 0  # how many steps gold_logprob supervises
    # at inference with ``record_decision_scores``: (B, T, N + 2) the scores each greedy decision maximised
    decision_scores: Optional[numpy.ndarray] = None
    # at inference with a pruning bound: (B, T) the candidates the loop skipped (IGNORE without being read)
    pruned: Optional[numpy.ndarray] = None
    # teacher-forced models at inference: (B, T) the entity id each step joined or began (-1: ignored), counted
    # from the carried memory's ``next_entity`` (0 without one)
    entities: Optional[numpy.ndarray] = None
    # with a carried memory (``MentionMemory.carried``): each document's memory at its end (``carry.CarriedMemory``)
    final_states: Optional[list] = None

    DIFFERENTIABLE = ("entity", "overwrite", "coref", "usage", "next_logprob", "gold_logprob")

    def tensors(self) -> List[torch.Tensor]:
        """The float outputs a loss may reach, in a fixed order (absent optional ones left out)."""
        return [getattr(self, name) for name in self.DIFFERENTIABLE if getattr(self, name) is not None]

    def with_tensors(self, tensors: List[torch.Tensor]) -> "MemoryOutput":
        """A copy whose float outputs are ``tensors`` (in the order of ``tensors()``)."""
        present = [name for name in self.DIFFERENTIABLE if getattr(self, name) is not None]
        return replace(self, **dict(zip(present, tensors)))

    def next_token_mask(self) -> torch.Tensor:
        """(B, T) bool: positions that have a next token to predict."""
        T = self.entity.shape[1]
        return torch.arange(T)[None, :] < (self.lengths[:, None] - 1)


def empty_output(X: torch.Tensor, lengths: torch.Tensor, n_cells: int) -> MemoryOutput:
    """The output for a batch whose longest document has no tokens."""
    B = X.shape[0]
    empty = X.new_zeros(B, 0, n_cells)
    return MemoryOutput(X.new_zeros(B, 0), empty, empty.clone(), empty.clone(), lengths)


def pad_sequences(arrays: List[torch.Tensor]) -> torch.Tensor:
    """Pad a list of (T_i, D) tensors to (B, max T, D) with zeros."""
    return nn.utils.rnn.pad_sequence(arrays, batch_first=True)


def token_mask(lengths: torch.Tensor, T: int) -> torch.Tensor:
    return torch.arange(T, device=lengths.device)[None, :] < lengths[:, None]


UNUSED_CELL_BONUS = 10.0


def overwrite_logits(usage: torch.Tensor) -> torch.Tensor:
    """Logits of the cell a new entity takes: log(1 − u + ε), plus a large bonus for unused cells. Noise on
    1 − u itself (range [0, 1]) would leave the Gumbel sample near uniform over the cells."""
    return torch.log((1.0 - usage).clamp(min=0.0) + 1e-4) + UNUSED_CELL_BONUS * (usage <= 0).to(usage.dtype)


def choose_lowest(usage: torch.Tensor, tie_score: torch.Tensor, training: bool, temperature: float,
                  hard: bool) -> torch.Tensor:
    """One-hot (or relaxed) choice of the cell to overwrite: the least used / least salient one.

    Training draws a Gumbel-softmax over ``overwrite_logits(u)`` / τ. Inference is deterministic: lowest
    usage (empty cells first), ties broken by the highest ``tie_score`` (the paper's similarity rule),
    then lowest index.
    """
    if training:
        return nn.functional.gumbel_softmax(overwrite_logits(usage), tau=temperature, hard=hard)
    lowest = usage.min(dim=-1, keepdim=True).values
    tied = usage <= lowest
    score = torch.where(tied, tie_score, torch.full_like(tie_score, -float("inf")))
    return nn.functional.one_hot(score.argmax(dim=-1), num_classes=usage.shape[-1]).to(usage.dtype)


def log_link_probability(
    out: MemoryOutput, doc_index: torch.Tensor, first: torch.Tensor, second: torch.Tensor,
    log_floor: float = 1e-6,
) -> torch.Tensor:
    """log P(t1 ~ t2) for token pairs (first[k] < second[k]) of documents doc_index[k].

    P(t1 ~ t2) = Σ_i (o+c)_{t1,i} · Π_{t1<j≤t2} (1 - o_{j,i}) · c_{t2,i}, with the product taken in log
    space from cumulative sums (float64), and only for the requested pairs.
    """
    survive = torch.cumsum(torch.log(torch.clamp(1.0 - out.overwrite, min=log_floor)).double(), dim=1)
    log_keep = (survive[doc_index, second] - survive[doc_index, first]).to(out.coref.dtype)
    start = out.overwrite[doc_index, first] + out.coref[doc_index, first]
    end = out.coref[doc_index, second]
    prob = (start * torch.exp(log_keep) * end).sum(dim=-1)
    return torch.log(torch.clamp(prob, min=1e-12))


class NextTokenHead(nn.Module):
    """Language-model head: log p(w_{t+1} | state_t) with torch's adaptive softmax."""

    def __init__(self, width: int, vocab_size: int):
        super().__init__()
        cutoffs = [c for c in (2000, 10000) if c < vocab_size - 1]
        self.softmax = nn.AdaptiveLogSoftmaxWithLoss(width, vocab_size, cutoffs=cutoffs or [vocab_size - 1],
                                                     div_value=4.0)

    def forward(self, states: torch.Tensor, token_ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """states (B, T, H), token_ids (B, T) → (B, T) log-prob of the next token, 0 where none."""
        B, T, _ = states.shape
        result = states.new_zeros(B, T)
        if T < 2:
            return result
        mask = token_mask(lengths - 1, T - 1)
        if not bool(mask.any()):
            return result
        picked = self.softmax(states[:, :-1][mask], token_ids[:, 1:][mask]).output
        result[:, :-1] = result[:, :-1].masked_scatter(mask, picked)
        return result


def validate_lm_vocab_size(lm_vocab_size: int) -> List[str]:
    if lm_vocab_size == 0 or lm_vocab_size >= 3:
        return []
    return [f"lm_vocab_size must be 0 (no language-model head) or at least 3, got {lm_vocab_size}"]
