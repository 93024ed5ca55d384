"""The Referential Reader (Liu et al. 2019): a recurrent reader with a key/value/salience entity memory.

Plain tensors in, plain tensors out. Per token step t (DESIGN.md §5), with x_t the token vector:

    h̃_t = tanh(W h_{t-1} + U x_t)                         pre-recurrent state
    e_t = σ(w_e · h̃_t),  r_t = σ(w_r · h̃_t)              entity and referential gates
    α_t = e_t r_t · softmax_i(k_i · W_q h̃_t + b)           attention over the cells
    u_i = min(α_i, 2 s_i)                                  update gates, bounded by twice the salience
    o   = (e_t - Σ_i u_i) on the lowest-salience cell      (Gumbel-softmax while training, argmin at inference)
    k_i ← (1 - u_i - o_i) k_i + u_i GRU_k(h̃_t, k_i) + o_i GRU_k(h̃_t, 0)    (values v_i likewise with GRU_v)
    s_i ← u_i + o_i + (1 - u_i - o_i) λ_t s_i,  λ_t = e_t 0.5^(1/4) + (1 - e_t) 0.5^(1/30)
    c_t = Σ_i u_i,  m_t = Σ_i s_i v_i / Σ_i s_i            coreferential gate, salience-weighted read-out
    h_t = GRU(x_t, (1 - c_t) h_{t-1} + c_t m_t)

The α_t of the paper is scaled by e_t here so that the overwrite mass e_t - Σ u is never negative.
Outputs use PeTra's names (``MemoryOutput``): coref = u, usage = salience s. The link probability of the
paper's Eq. 5, Σ_i (u+o)_{t1,i} Π_{t1<j≤t2} (1 - o_{j,i}) u_{t2,i}, is then ``log_link_probability``.
Because the memory feeds back into h_t, nothing but the input projection can be computed before the loop.
"""
import math
from typing import Optional

import torch
from torch import nn

from .outputs import MemoryOutput, NextTokenHead, choose_lowest, empty_output, token_mask, validate_lm_vocab_size


def half_life_decay(steps: float) -> float:
    return math.pow(0.5, 1.0 / steps)


class ReferentialReaderMemory(nn.Module):
    """The Referential Reader, batched over documents, looping over time steps only."""

    def __init__(
        self,
        input_width: int,
        hidden_width: int = 300,
        n_cells: int = 2,
        key_width: int = 16,
        entity_half_life: float = 4.0,
        token_half_life: float = 30.0,
        dropout: float = 0.0,
        gumbel_hard: bool = False,
        lm_vocab_size: int = 0,
    ):
        super().__init__()
        self.n_cells = n_cells
        self.hidden_width = hidden_width
        self.key_width = key_width
        self.entity_decay = half_life_decay(entity_half_life)
        self.token_decay = half_life_decay(token_half_life)
        self.gumbel_hard = gumbel_hard
        self.temperature = 1.0
        self.dropout = nn.Dropout(dropout)
        self.input_proj = nn.Linear(input_width, hidden_width)  # U (with bias)
        self.state_proj = nn.Linear(hidden_width, hidden_width, bias=False)  # W
        self.gates = nn.Linear(hidden_width, 2)  # entity and referential gates
        self.query = nn.Linear(hidden_width, key_width, bias=False)
        self.attention_bias = nn.Parameter(torch.zeros(1))
        self.key_cell = nn.GRUCell(hidden_width, key_width)
        self.value_cell = nn.GRUCell(hidden_width, hidden_width)
        self.recurrent_cell = nn.GRUCell(input_width, hidden_width)
        self.lm_head = NextTokenHead(hidden_width, lm_vocab_size) if lm_vocab_size else None

    def forward(self, X: torch.Tensor, lengths: torch.Tensor,
                token_ids: Optional[torch.Tensor] = None) -> MemoryOutput:
        B, T, _ = X.shape
        N, H, K = self.n_cells, self.hidden_width, self.key_width
        if T == 0:
            return empty_output(X, lengths, N)
        X = self.dropout(X)
        mask = token_mask(lengths, T)
        projected = self.input_proj(X)  # U x_t for every t, before the loop
        state = X.new_zeros(B, H)
        keys, values = X.new_zeros(B, N, K), X.new_zeros(B, N, H)
        salience = X.new_zeros(B, N)
        steps_e, steps_o, steps_u, steps_s, states = [], [], [], [], []
        projected_steps, x_steps, mask_steps = projected.unbind(1), X.unbind(1), mask.unbind(1)
        for t in range(T):
            pre = torch.tanh(self.state_proj(state) + projected_steps[t])
            entity, referential = torch.sigmoid(self.gates(pre)).unbind(-1)
            scores = (keys @ self.query(pre).unsqueeze(-1)).squeeze(-1) + self.attention_bias
            attention = (entity * referential)[:, None] * torch.softmax(scores, dim=-1)
            update = torch.minimum(attention, 2.0 * salience)
            new_mass = torch.clamp(entity - update.sum(-1), min=0.0)
            # No similarity tie rule here: ties between equally salient cells go to the lowest index.
            choice = choose_lowest(salience, torch.zeros_like(salience), self.training, self.temperature,
                                   self.gumbel_hard)
            overwrite = choice * new_mass[:, None]
            keys = self.gated_update(self.key_cell, pre, keys, update, overwrite)
            values = self.gated_update(self.value_cell, pre, values, update, overwrite)
            decay = entity * self.entity_decay + (1 - entity) * self.token_decay
            salience = update + overwrite + (1 - update - overwrite) * decay[:, None] * salience
            coreferential = update.sum(-1, keepdim=True)
            readout = (salience.unsqueeze(-1) * values).sum(1) / salience.sum(-1, keepdim=True).clamp(min=1e-6)
            new_state = self.recurrent_cell(x_steps[t], (1 - coreferential) * state + coreferential * readout)
            # A padded position leaves the state of a finished document alone.
            keep = mask_steps[t][:, None]
            state = torch.where(keep, new_state, state)
            steps_e.append(entity)
            steps_o.append(overwrite)
            steps_u.append(update)
            steps_s.append(salience)
            states.append(state)
        mask3 = mask.unsqueeze(-1)
        next_logprob = None
        if self.lm_head is not None and token_ids is not None:
            next_logprob = self.lm_head(self.dropout(torch.stack(states, dim=1)), token_ids, lengths)
        return MemoryOutput(
            entity=torch.stack(steps_e, dim=1) * mask,
            overwrite=torch.stack(steps_o, dim=1) * mask3,
            coref=torch.stack(steps_u, dim=1) * mask3,
            usage=torch.stack(steps_s, dim=1) * mask3,
            lengths=lengths,
            next_logprob=next_logprob,
        )

    def gated_update(self, cell: nn.GRUCell, pre: torch.Tensor, memory: torch.Tensor,
                     update: torch.Tensor, overwrite: torch.Tensor) -> torch.Tensor:
        """(1 - u - o) m + u GRU(h̃, m) + o GRU(h̃, 0) for every cell at once."""
        B, N, W = memory.shape
        pre_cells = pre.unsqueeze(1).expand(B, N, -1).reshape(B * N, -1)
        updated = cell(pre_cells, memory.reshape(B * N, W)).view(B, N, W)
        fresh = cell(pre, memory.new_zeros(B, W)).unsqueeze(1)
        u, o = update.unsqueeze(-1), overwrite.unsqueeze(-1)
        return (1 - u - o) * memory + u * updated + o * fresh


def validate_reader_config(n_cells: int, hidden_width: int, key_width: int, entity_half_life: float,
                           token_half_life: float, dropout: float, lm_vocab_size: int = 0) -> None:
    """Raise ValueError naming the out-of-range Referential Reader settings."""
    checks = [
        (n_cells >= 1, f"n_cells must be at least 1, got {n_cells}"),
        (hidden_width >= 1, f"hidden_width must be at least 1, got {hidden_width}"),
        (key_width >= 1, f"key_width must be at least 1, got {key_width}"),
        (entity_half_life > 0, f"entity_half_life must be > 0, got {entity_half_life}"),
        (token_half_life > 0, f"token_half_life must be > 0, got {token_half_life}"),
        (0.0 <= dropout < 1.0, f"dropout must be in [0, 1), got {dropout}"),
    ]
    problems = [message for ok, message in checks if not ok] + validate_lm_vocab_size(lm_vocab_size)
    if problems:
        raise ValueError("[spacy-entmem] invalid Referential Reader config: " + "; ".join(problems))
