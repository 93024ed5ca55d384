"""PeTra: a bounded, parameter-free entity memory read left to right (Toshniwal et al. 2020).

Plain tensors in, plain tensors out; nothing here knows about spaCy. For a batch of padded token
vectors ``X`` (B × T × D) the module returns, per token, the entity probability e_t, the overwrite and
coreference probabilities o_t, c_t over the N cells and the usage after the step (see ``MemoryOutput``).

Equations (DESIGN.md §5):
    h_t = GRU(x_1..x_t);  e_t = σ(MLP1(h_t))
    sim_i = MLP2([h_t; m_i; h_t ⊙ m_i; u_i]), masked to -1e4 on unused cells
    [c_1..c_N, n_t] = e_t · softmax([sim_1..sim_N, 0])
    o_i = n_t on the least-used cell (Gumbel-softmax over (1 - u)/τ while training; at inference ties
          between equally used cells go to the highest unmasked similarity, then the lowest index)
    m_i ← (1 - o_i - c_i) m_i + o_i h_t + c_i MLP3([h_t; m_i]);   u_i ← min(1, o_i + c_i + γ u_i)

Variants of the paper (§4.2): a learned initial memory (``learned_init``) and fixed learned keys
(``fixed_key_width`` of the cell dimensions hold a per-cell key that no update changes; 20 in the paper).
With either, the empty cells differ, and the similarity tie rule decides which one a new entity takes.
An optional next-token head (``lm_vocab_size``) adds the language-model objective on h_t.
"""
from typing import Iterator, List, Optional, Tuple

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from .outputs import (  # noqa: F401  (re-exported: the public names of this module)
    MemoryOutput, NextTokenHead, choose_lowest, empty_output, log_link_probability, pad_sequences,
    token_mask, validate_lm_vocab_size,
)

UNUSED_CELL_SCORE = -1e4


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


def encode_left_to_right(encoder: nn.GRU, X: torch.Tensor, lengths: torch.Tensor, chunk: int = 4096) -> torch.Tensor:
    """Run a batch-first GRU over padded sequences. Padding sits after each document's last token, so a
    left-to-right GRU's outputs at real positions do not depend on it. In training no packing is used
    (torch's CPU backward through packed sequences costs time quadratic in the length: 9.8 s against 0.5 s
    for 8 × 2,600 tokens, measured). The GRU runs ``chunk`` steps at a time with its state carried over, so
    its per-step workspace does not grow with the document. Outputs at padded positions are zeroed.
    Without autograd (inference) each chunk is packed, so the GRU steps only over the documents that
    still have tokens (a batch of GAP paragraphs is 42 % padding: the GRU takes 0.6× the time), and each
    chunk's outputs are written into one tensor, so the states exist once (concatenating the chunks and
    masking held three copies: 2.4 GB at 1M tokens). The weights are re-packed first: thinc's optimiser
    replaces each parameter's storage, which on CUDA leaves cuDNN a non-contiguous copy to make on every
    call (a no-op on CPU)."""
    encoder.flatten_parameters()
    B, T = X.shape[:2]
    if torch.is_grad_enabled():
        h = torch.cat([piece for _, piece in _gru_chunks(encoder, X, chunk)], dim=1)
        return h * token_mask(lengths, T).unsqueeze(-1).to(h.dtype)
    h = X.new_zeros(B, T, encoder.hidden_size)
    for start, rows, piece in _packed_gru_chunks(encoder, X, lengths.cpu(), chunk):
        h[rows, start: start + piece.shape[1]] = piece
    return h


def _gru_chunks(encoder: nn.GRU, X: torch.Tensor, chunk: int) -> Iterator[Tuple[int, torch.Tensor]]:
    """(first step, outputs) of the GRU over ``chunk`` steps of X at a time, its state carried over (the
    same outputs as one pass, with a workspace that does not grow with the length)."""
    state = None
    for start in range(0, X.shape[1], chunk):
        piece, state = encoder(X[:, start: start + chunk], state)
        yield start, piece


def _packed_gru_chunks(encoder: nn.GRU, X: torch.Tensor, lengths: torch.Tensor,
                       chunk: int) -> Iterator[Tuple[int, torch.Tensor, torch.Tensor]]:
    """(first step, rows, outputs) of the GRU over ``chunk`` steps of X at a time: each chunk holds the rows
    (documents) with tokens in it, packed to their lengths, their states carried over; outputs past a
    document's end are 0."""
    B, T = X.shape[:2]
    state = X.new_zeros(encoder.num_layers, B, encoder.hidden_size)
    for start in range(0, T, chunk):
        alive = torch.nonzero(lengths > start).squeeze(1)
        if not len(alive):
            return
        steps = (lengths[alive] - start).clamp(max=chunk)
        index = alive.to(X.device)
        packed = pack_padded_sequence(X[index, start: start + int(steps.max())], steps, batch_first=True,
                                      enforce_sorted=False)
        out, last = encoder(packed, state[:, index])
        state[:, index] = last
        yield start, index, pad_packed_sequence(out, batch_first=True)[0]


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
        learned_init: bool = False,
        fixed_key_width: int = 0,
        lm_vocab_size: int = 0,
    ):
        super().__init__()
        self.n_cells = n_cells
        self.hidden_width = hidden_width
        self.usage_decay = usage_decay
        self.gumbel_hard = gumbel_hard
        self.fixed_key_width = fixed_key_width
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
        self.initial_memory = nn.Parameter(0.1 * torch.randn(n_cells, hidden_width)) if learned_init else None
        self.keys = nn.Parameter(torch.randn(n_cells, fixed_key_width)) if fixed_key_width else None
        self.lm_head = NextTokenHead(hidden_width, lm_vocab_size) if lm_vocab_size else None

    @property
    def cells_start_distinct(self) -> bool:
        return self.initial_memory is not None or self.keys is not None

    def encode(self, X: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return self.dropout(encode_left_to_right(self.encoder, self.dropout(X), lengths))

    def start_memory(self, X: torch.Tensor) -> torch.Tensor:
        B = X.shape[0]
        if self.initial_memory is not None:
            memory = self.initial_memory.unsqueeze(0).expand(B, -1, -1)
        else:
            memory = X.new_zeros(B, self.n_cells, self.hidden_width)
        return self.with_keys(memory)

    def with_keys(self, memory: torch.Tensor) -> torch.Tensor:
        """Put the fixed keys back into the first ``fixed_key_width`` dimensions of every cell."""
        if self.keys is None:
            return memory
        keys = self.keys.unsqueeze(0).expand(memory.shape[0], -1, -1)
        return torch.cat([keys, memory[..., self.fixed_key_width:]], dim=-1)

    def forward(self, X: torch.Tensor, lengths: torch.Tensor,
                token_ids: Optional[torch.Tensor] = None) -> MemoryOutput:
        if X.shape[1] == 0:
            return empty_output(X, lengths, self.n_cells)
        h = self.encode(X, lengths)
        out = self.read_memory(h, lengths)
        if self.lm_head is not None and token_ids is not None:
            out.next_logprob = self.lm_head(h, token_ids, lengths)
        return out

    def read_memory(self, h: torch.Tensor, lengths: torch.Tensor) -> MemoryOutput:
        """The memory loop over a padded sequence of states h (B × T × H), T ≥ 1: one step per token (or
        per mention, in the span model)."""
        B, T, _ = h.shape
        N, H = self.n_cells, self.hidden_width
        mask = token_mask(lengths, T)
        # Memory-independent work, once for the whole sequence.
        entity = torch.sigmoid(self.entity_mlp(h).squeeze(-1)) * mask
        sim_token = self.similarity_mlp.project_tokens(h)
        update_token = self.coref_update_mlp.project_tokens(h)

        memory = self.start_memory(h)
        usage = h.new_zeros(B, N)
        steps_o, steps_c, steps_u = [], [], []
        # unbind once: indexing h[:, t] inside the loop would make every step's backward allocate a
        # gradient as large as the whole sequence (quadratic in T)
        h_steps, sim_steps, update_steps = h.unbind(1), sim_token.unbind(1), update_token.unbind(1)
        entity_steps = entity.unbind(1)
        for t in range(T):
            h_t = h_steps[t][:, None, :].expand(B, N, H)
            raw_sim = self.similarity_mlp(
                sim_steps[t][:, None, :], [memory, h_t * memory, usage.unsqueeze(-1)]
            ).squeeze(-1)
            sim = torch.where(usage > 0, raw_sim, torch.full_like(raw_sim, UNUSED_CELL_SCORE))
            scores = torch.cat([sim, sim.new_zeros(B, 1)], dim=-1)
            probs = entity_steps[t][:, None] * torch.softmax(scores, dim=-1)
            coref, new_entity = probs[:, :N], probs[:, N]
            # Empty cells only differ when they start from learned content (or keys).
            tie_score = raw_sim if self.cells_start_distinct else sim
            choice = choose_lowest(usage, tie_score, self.training, self.temperature, self.gumbel_hard)
            overwrite = choice * new_entity[:, None]
            updated = self.coref_update_mlp(update_steps[t][:, None, :], [memory])
            o, c = overwrite.unsqueeze(-1), coref.unsqueeze(-1)
            memory = self.with_keys((1 - o - c) * memory + o * h_t + c * updated)
            usage = torch.clamp(overwrite + coref + self.usage_decay * usage, max=1.0)
            # Padded positions leave the memory alone apart from decay, which no real token sees.
            steps_o.append(overwrite)
            steps_c.append(coref)
            steps_u.append(usage)
        mask3 = mask.unsqueeze(-1)
        return MemoryOutput(
            entity=entity,
            overwrite=torch.stack(steps_o, dim=1) * mask3,
            coref=torch.stack(steps_c, dim=1) * mask3,
            usage=torch.stack(steps_u, dim=1) * mask3,
            lengths=lengths,
        )


def memory_config_problems(n_cells: int, hidden_width: int, mlp_width: int, usage_decay: float,
                           dropout: float) -> List[str]:
    """What is out of range among the settings every PeTra-style memory shares."""
    checks = [
        (n_cells >= 1, f"n_cells must be at least 1, got {n_cells}"),
        (hidden_width >= 1, f"hidden_width must be at least 1, got {hidden_width}"),
        (mlp_width >= 1, f"mlp_width must be at least 1, got {mlp_width}"),
        (0.0 < usage_decay < 1.0, f"usage_decay must be in (0, 1), got {usage_decay}"),
        (0.0 <= dropout < 1.0, f"dropout must be in [0, 1), got {dropout}"),
    ]
    return [message for ok, message in checks if not ok]


def validate_memory_config(
    n_cells: int, hidden_width: int, mlp_width: int, usage_decay: float, dropout: float,
    fixed_key_width: int = 0, lm_vocab_size: int = 0,
) -> None:
    """Raise ValueError naming the out-of-range PeTra settings."""
    problems = memory_config_problems(n_cells, hidden_width, mlp_width, usage_decay, dropout)
    if not 0 <= fixed_key_width < hidden_width:
        problems.append(f"fixed_key_width must be in [0, hidden_width={hidden_width}), got {fixed_key_width}")
    problems += validate_lm_vocab_size(lm_vocab_size)
    if problems:
        raise ValueError("[spacy-entmem] invalid PeTra memory config: " + "; ".join(problems))
