"""PeTra over mention spans: the memory steps once per candidate mention instead of once per token.

A left-to-right GRU reads the tokens as in PeTra. Each candidate span [s, e) is represented by
    g = tanh(W [h_s; h_{e-1}; mean(h_s..h_{e-1}); w(e - s)])
(first and last state, the mean state, a learned width embedding). The candidates, ordered by where
they end (inner mentions first), are the steps of PeTra's memory (``PetraMemory.read_memory``): e is the
probability that the candidate is a mention, OVERWRITE starts a new entity, COREF joins a cell's entity.
A multi-token name is one step, so it can no longer split across cells, and nested mentions are
separate steps. The loop visits candidates only, so the cost is linear in the number of candidates, and span vectors are
built a chunk of candidates at a time, so working memory stays bounded on long documents.
"""
import torch
from torch import nn

from .outputs import MemoryOutput, empty_output
from .petra import PetraMemory


class SpanPetraMemory(PetraMemory):
    def __init__(
        self,
        input_width: int,
        hidden_width: int = 300,
        n_cells: int = 20,
        mlp_width: int = 300,
        usage_decay: float = 0.98,
        dropout: float = 0.0,
        gumbel_hard: bool = False,
        max_span_width: int = 20,
        width_embedding: int = 20,
    ):
        super().__init__(input_width, hidden_width, n_cells, mlp_width, usage_decay, dropout, gumbel_hard)
        self.max_span_width = max_span_width
        self.width_embedding = nn.Embedding(max_span_width + 1, width_embedding)
        self.span_projection = nn.Sequential(nn.Linear(3 * hidden_width + width_embedding, hidden_width), nn.Tanh())

    def forward(self, X: torch.Tensor, lengths: torch.Tensor, spans: torch.Tensor,
                n_spans: torch.Tensor) -> MemoryOutput:
        """X (B, T, D) token vectors; spans (B, M, 2) [start, end) per candidate in step order, padded
        rows ignored beyond n_spans (B,). Returns one step per candidate: entity (B, M), ... (B, M, N)."""
        if X.shape[1] == 0 or spans.shape[1] == 0:
            return empty_output(X, n_spans, self.n_cells)
        h = self.encode(X, lengths)
        return self.read_memory(self.represent_spans(h, spans), n_spans)

    def represent_spans(self, h: torch.Tensor, spans: torch.Tensor, chunk: int = 1024) -> torch.Tensor:
        """Span vectors, ``chunk`` candidates at a time. Candidates come in step order (by end), so each
        chunk covers a short stretch of tokens: the running sums for the mean are taken over that stretch
        only (float64), and the working memory does not grow with the document."""
        return torch.cat([self._represent_chunk(h, spans[:, i: i + chunk]) for i in range(0, spans.shape[1], chunk)],
                         dim=1)

    def _represent_chunk(self, h: torch.Tensor, spans: torch.Tensor) -> torch.Tensor:
        B, T, H = h.shape
        starts, ends = spans[..., 0], spans[..., 1]
        lo, hi = int(starts.min()), int(ends.max())
        local = h[:, lo:hi]
        width = (ends - starts).clamp(min=1)
        cumulative = torch.cat([local.new_zeros(B, 1, H, dtype=torch.float64), local.double().cumsum(dim=1)], dim=1)
        mean = ((rows_at(cumulative, ends - lo) - rows_at(cumulative, starts - lo)) / width[..., None]).to(h.dtype)
        first, last = rows_at(h, starts), rows_at(h, (ends - 1).clamp(min=0))
        width_vector = self.width_embedding(width.clamp(max=self.max_span_width))
        return self.span_projection(torch.cat([first, last, mean, width_vector], dim=-1))


def rows_at(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """x[b, index[b, m]] for x (B, T, H) and index (B, M): the same values as advanced indexing, through one
    ``index_select`` on the flattened rows (about 10x faster on the CPU)."""
    B, T, H = x.shape
    flat = index + torch.arange(B, device=index.device)[:, None] * T
    return x.reshape(B * T, H).index_select(0, flat.reshape(-1)).view(*index.shape, H)
