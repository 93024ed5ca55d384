"""PeTra: a bounded, parameter-free entity memory read left to right (Toshniwal et al. 2020).

Plain tensors in, plain tensors out; nothing here knows about spaCy. For a batch of padded token
vectors ``X`` (B × T × D) the module returns, per token, the entity probability e_t, the overwrite and
coreference probabilities o_t, c_t over the N cells and the usage after the step (see ``MemoryOutput``).

Equations (DESIGN.md §5):
    h_t = GRU(x_1..x_t);  e_t = σ(MLP1(h_t))
    sim_i = MLP2([h_t; m_i; h_t ⊙ m_i; u_i]), masked to -1e4 on unused cells
    [c_1..c_N, n_t] = e_t · softmax([sim_1..sim_N, 0])
    o_i = n_t on the least-used cell (Gumbel-softmax over (1 - u)/τ while training)
    m_i ← (1 - o_i - c_i) m_i + o_i h_t + c_i MLP3([h_t; m_i]);   u_i ← min(1, o_i + c_i + γ u_i)
"""
from dataclasses import dataclass
from typing import List

import torch
from torch import nn
from torch.nn import functional as F

UNUSED_CELL_SCORE = -1e4


@dataclass
class MemoryOutput:
    """Per-token memory decisions of a batch: entity (B, T), overwrite/coref/usage (B, T, N)."""

    entity: torch.Tensor
    overwrite: torch.Tensor
    coref: torch.Tensor
    usage: torch.Tensor
    lengths: torch.Tensor

    def tensors(self) -> List[torch.Tensor]:
        return [self.entity, self.overwrite, self.coref, self.usage]


class SplitInputMLP(nn.Module):
    """An MLP with two ReLU hidden layers whose first layer is split by input block.

    The block that depends only on the token (h_t) can be projected for the whole sequence before the
    recurrence; the memory-dependent blocks are projected inside it. The maths equals one MLP on the
    concatenated input.
    """

    def __init__(self, token_width: int, memory_widths: List[int], hidden: int, n_out: int):
        super().__init__()
        self.token_proj = nn.Linear(token_width, hidden)
        self.memory_projs = nn.ModuleList(nn.Linear(w, hidden, bias=False) for w in memory_widths)
        self.rest = nn.Sequential(nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_out))

    def project_tokens(self, h: torch.Tensor) -> torch.Tensor:
        return self.token_proj(h)

    def forward(self, token_part: torch.Tensor, memory_inputs: List[torch.Tensor]) -> torch.Tensor:
        pre = token_part
        for proj, block in zip(self.memory_projs, memory_inputs):
            pre = pre + proj(block)
        return self.rest(pre)


class PetraMemory(nn.Module):
    """The GRU encoder and the PeTra memory, batched over documents, looping over time steps only."""

    def __init__(
        self,
        input_width: int,
        hidden_width: int = 300,
        n_cells: int = 10,
        mlp_width: int = 300,
        usage_decay: float = 0.98,
        dropout: float = 0.0,
        gumbel_hard: bool = False,
    ):
        super().__init__()
        self.n_cells = n_cells
        self.hidden_width = hidden_width
        self.usage_decay = usage_decay
        self.gumbel_hard = gumbel_hard
        self.temperature = 1.0
        self.dropout = nn.Dropout(dropout)
        self.encoder = nn.GRU(input_width, hidden_width, batch_first=True)
        self.entity_mlp = nn.Sequential(
            nn.Linear(hidden_width, mlp_width), nn.ReLU(),
            nn.Linear(mlp_width, mlp_width), nn.ReLU(),
            nn.Linear(mlp_width, 1),
        )
        # MLP2 on [h; m; h ⊙ m; u] and MLP3 on [h; m]
        self.similarity_mlp = SplitInputMLP(hidden_width, [hidden_width, hidden_width, 1], mlp_width, 1)
        self.coref_update_mlp = SplitInputMLP(hidden_width, [hidden_width], mlp_width, hidden_width)

    def encode(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        # Empty documents are packed as one zero step; their outputs are masked afterwards.
        packed = nn.utils.rnn.pack_padded_sequence(
            self.dropout(X), lengths.clamp(min=1).cpu(), batch_first=True, enforce_sorted=False
        )
        out, _ = self.encoder(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=X.shape[1])
        return self.dropout(h)

    def forward(self, X: torch.Tensor, lengths: torch.Tensor) -> MemoryOutput:
        B, T, _ = X.shape
        N, H = self.n_cells, self.hidden_width
        if T == 0:
            empty = X.new_zeros(B, 0, N)
            return MemoryOutput(X.new_zeros(B, 0), empty, empty.clone(), empty.clone(), lengths)
        h = self.encode(X, lengths)
        token_mask = torch.arange(T, device=X.device)[None, :] < lengths[:, None]
        # Memory-independent work, once for the whole sequence.
        entity = torch.sigmoid(self.entity_mlp(h).squeeze(-1)) * token_mask
        sim_token = self.similarity_mlp.project_tokens(h)
        update_token = self.coref_update_mlp.project_tokens(h)

        memory = X.new_zeros(B, N, H)
        usage = X.new_zeros(B, N)
        steps_o, steps_c, steps_u = [], [], []
        for t in range(T):
            h_t = h[:, t, None, :].expand(B, N, H)
            sim = self.similarity_mlp(
                sim_token[:, t, None, :], [memory, h_t * memory, usage.unsqueeze(-1)]
            ).squeeze(-1)
            sim = torch.where(usage > 0, sim, torch.full_like(sim, UNUSED_CELL_SCORE))
            scores = torch.cat([sim, sim.new_zeros(B, 1)], dim=-1)
            probs = entity[:, t, None] * torch.softmax(scores, dim=-1)
            coref, new_entity = probs[:, :N], probs[:, N]
            overwrite = self.choose_overwrite_cell(usage, sim) * new_entity[:, None]
            updated = self.coref_update_mlp(update_token[:, t, None, :], [memory])
            o, c = overwrite.unsqueeze(-1), coref.unsqueeze(-1)
            memory = (1 - o - c) * memory + o * h_t + c * updated
            usage = torch.clamp(overwrite + coref + self.usage_decay * usage, max=1.0)
            # Padded positions leave the memory alone apart from decay, which no real token sees.
            steps_o.append(overwrite)
            steps_c.append(coref)
            steps_u.append(usage)
        mask3 = token_mask.unsqueeze(-1)
        return MemoryOutput(
            entity=entity,
            overwrite=torch.stack(steps_o, dim=1) * mask3,
            coref=torch.stack(steps_c, dim=1) * mask3,
            usage=torch.stack(steps_u, dim=1) * mask3,
            lengths=lengths,
        )

    def choose_overwrite_cell(self, usage: torch.Tensor, sim: torch.Tensor) -> torch.Tensor:
        """One-hot (or relaxed) choice of the cell to overwrite: the least used one.

        Training draws a Gumbel-softmax over (1 - u)/τ. Inference is deterministic: lowest usage
        (empty cells first, as they have usage 0), ties broken by highest similarity, then lowest index.
        """
        if self.training:
            return F.gumbel_softmax(1.0 - usage, tau=self.temperature, hard=self.gumbel_hard)
        lowest = usage.min(dim=-1, keepdim=True).values
        tied = usage <= lowest
        tie_score = torch.where(tied, sim, torch.full_like(sim, -float("inf")))
        choice = tie_score.argmax(dim=-1)
        return F.one_hot(choice, num_classes=self.n_cells).to(usage.dtype)


def pad_sequences(arrays: List[torch.Tensor]) -> torch.Tensor:
    """Pad a list of (T_i, D) tensors to (B, max T, D) with zeros."""
    return nn.utils.rnn.pad_sequence(arrays, batch_first=True)


def validate_memory_config(
    n_cells: int, hidden_width: int, mlp_width: int, usage_decay: float, dropout: float
) -> None:
    """Raise ValueError naming the first out-of-range PeTra setting."""
    checks = [
        (n_cells >= 1, f"n_cells must be at least 1, got {n_cells}"),
        (hidden_width >= 1, f"hidden_width must be at least 1, got {hidden_width}"),
        (mlp_width >= 1, f"mlp_width must be at least 1, got {mlp_width}"),
        (0.0 < usage_decay < 1.0, f"usage_decay must be in (0, 1), got {usage_decay}"),
        (0.0 <= dropout < 1.0, f"dropout must be in [0, 1), got {dropout}"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"[spacy-entmem] invalid PeTra memory config: {message}")


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

