"""CoreLM (Stylianou & Vlahavas 2021) as a torch module: an Entity-Gating layer on top of a pretrained causal LM.

The base LM (any Hugging Face causal LM: GPT-2, Llama/SmolLM2, …) reads the document in strided windows. Its
last decoder block's output h (before the base's final norm) goes through the Entity-Gating layer, then
through the base's own final norm and LM head:

    EG_A = s · LN_A(EntityAttention(h)) + h                                   (Eq. 10)
    EG_B = s · LN_B(FFN(LN_F(EG_A))) + EG_A                                   (Eq. 11)
    g = δ · σ(V LN_in(h)),   z = (1 − g) ⊙ EG_B + g ⊙ h                       (Eqs. 14–15)
    p(x_{t+1} | ·) = softmax(head(final_norm(z_t)))                           (Eq. 12: the base's own norm)
    EntityAttention = softmax(Q K^T / √d_k) V, Q from LN_in(h), K and V from the entity vectors of the
    positions read so far, per head, causal                                   (Eq. 13)

Entity vectors. Every position carries the entity of the piece it has just read (0: none). Entity 0 has a
static learned vector E_0; entity k ≥ 1 starts as the vector of ones (the paper's initialisation) and is
updated as its mentions are read: E_k(t) = 1 + W_u · mean of LN_in(h_j) over the positions j ≤ t that read
one of its pieces. The sums and counts behind the means persist over the whole document (``EntityStore``),
across the base's windows, which is what carries information beyond the LM's context.

Departures from the paper, for a frozen pre-norm base: the gains of LN_A and LN_B start at zero, so an
untrained layer returns h and the model equals the base LM (tested); queries, the FFN and the gate read
normalised inputs (LN_in, LN_F), and the two residual branches are scaled by s = RMS(h) at each position,
because a Llama residual stream is not normalised (SmolLM2-135M: RMS ≈ 44, single coordinates over 4,000):
without s, a trained layer's branches moved h by less than 0.1 % and gold entities changed dev perplexity by
0.01 % (measured: 34.618 against 34.622 without entities). The attention runs over the block of
``stride`` positions being scored (the long-range part is in the entity vectors).
"""
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, List, Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F


def module_at(module: nn.Module, path: str) -> Optional[nn.Module]:
    """The submodule at a dotted attribute path ("model.norm"), or None where the model has none."""
    for name in path.split("."):
        module = getattr(module, name, None)
        if module is None:
            return None
    return module


def final_norm(base: nn.Module) -> nn.Module:
    """The base LM's norm after its last decoder block (Llama ``model.norm``, GPT-2 ``transformer.ln_f``, …)."""
    for path in ("model.norm", "transformer.ln_f", "gpt_neox.final_layer_norm", "model.decoder.final_layer_norm"):
        module = module_at(base, path)
        if module is not None:
            return module
    raise ValueError(f"[spacy-entmem] CoreLM cannot find the final norm of a {type(base).__name__}: supported are "
                     "Llama-style (model.norm), GPT-2 (transformer.ln_f), GPT-NeoX and OPT models")


def block_windows(n: int, window: int, stride: int) -> Iterator[Tuple[int, int, int]]:
    """(start, first_scored, end): the base reads positions [start, end) and scores [first_scored, end); the
    scored blocks are [0, stride), [stride, 2·stride), …, each read with up to ``window − stride`` earlier
    positions as context."""
    for first in range(0, n, stride):
        end = min(first + stride, n)
        yield max(0, end - window), first, end


def base_states(base: nn.Module, inputs: torch.Tensor, bos_id: int, window: int, stride: int,
                ) -> Iterator[Tuple[int, int, torch.Tensor]]:
    """Per scored block [first, end), (first, end, the base LM's pre-norm states (end − first, width) of the
    positions that predict the block's pieces): position t has read ``<bos>`` and pieces < t of its window.
    ``inputs``: (n,) piece ids."""
    norm, captured = final_norm(base), []
    hook = norm.register_forward_hook(lambda module, args, output: captured.append(args[0]))
    try:
        for start, first, end in block_windows(len(inputs), window, stride):
            ids = torch.cat([inputs.new_tensor([bos_id]), inputs[start:end - 1]]).unsqueeze(0)
            captured.clear()
            base.base_model(input_ids=ids)
            yield first, end, captured[-1][0, first - start:]
    finally:
        hook.remove()


@dataclass
class EntityStore:
    """Per entity id (0 unused), the sum of the normalised states that read its pieces, and how many."""

    sums: torch.Tensor
    counts: torch.Tensor

    @classmethod
    def empty(cls, width: int, device=None) -> "EntityStore":
        return cls(torch.zeros(1, width, device=device), torch.zeros(1, device=device))

    def detached(self) -> "EntityStore":
        """The same sums and counts without their graph (training steps block by block)."""
        return EntityStore(self.sums.detach(), self.counts.detach())

    def grown(self, n_entities: int) -> "EntityStore":
        extra = n_entities + 1 - len(self.counts)
        if extra <= 0:
            return self
        return EntityStore(F.pad(self.sums, (0, 0, 0, extra)), F.pad(self.counts, (0, extra)))


def running_sums(values: torch.Tensor, groups: torch.Tensor, n_groups: int) -> torch.Tensor:
    """For each row i, the sum of ``values`` over rows j ≤ i of the same group (a segmented cumulative sum)."""
    order = torch.argsort(groups, stable=True)
    sorted_sums = values[order].cumsum(0)
    sizes = torch.bincount(groups, minlength=n_groups)
    starts = torch.cumsum(sizes, 0) - sizes  # where each group begins in sorted order
    before = torch.cat([values.new_zeros(1, values.shape[1]), sorted_sums])[starts[groups[order]]]
    out = torch.empty_like(values)
    out[order] = sorted_sums - before
    return out


class EntityGating(nn.Module):
    """The Entity-Gating layer (Eqs. 10–15) with the entity vectors it reads (see the module docstring)."""

    def __init__(self, width: int, n_heads: int = 9, delta: float = 0.5, dropout: float = 0.1,
                 ffn_width: Optional[int] = None):
        super().__init__()
        if width % n_heads:
            raise ValueError(f"[spacy-entmem] CoreLM: the base's width {width} is not divisible by n_heads {n_heads}")
        self.n_heads, self.delta = n_heads, delta
        self.input_norm = nn.LayerNorm(width)
        self.query, self.key, self.value, self.out = (nn.Linear(width, width) for _ in range(4))
        self.attention_norm = nn.LayerNorm(width)
        ffn_width = ffn_width or 4 * width
        self.ffn = nn.Sequential(nn.Linear(width, ffn_width), nn.GELU(), nn.Linear(ffn_width, width))
        self.ffn_input_norm, self.ffn_norm = nn.LayerNorm(width), nn.LayerNorm(width)
        self.gate = nn.Linear(width, width)
        self.entity_update = nn.Linear(width, width)
        self.no_entity = nn.Parameter(torch.ones(width))  # E_0
        self.dropout = nn.Dropout(dropout)
        for norm in (self.attention_norm, self.ffn_norm):  # an untrained layer passes h through
            nn.init.zeros_(norm.weight)

    def forward(self, h: torch.Tensor, entities: torch.Tensor, store: EntityStore) -> Tuple[torch.Tensor, EntityStore]:
        """h (n, width): one block's pre-norm states; entities (n,): the entity each position has read (0: none).
        Returns z (n, width) and the store with the block's positions added."""
        normed = self.input_norm(h)
        n_entities = int(entities.max()) if len(entities) else 0
        store = store.grown(n_entities)
        # sums and counts in one segmented pass: the count is a column of ones summed alongside
        running = running_sums(torch.cat([normed, torch.ones_like(normed[:, :1])], dim=1), entities, len(store.counts))
        sums = store.sums[entities] + running[:, :-1]
        counts = store.counts[entities] + running[:, -1]
        dynamic = 1.0 + self.entity_update(sums / counts.clamp(min=1.0).unsqueeze(-1))
        vectors = torch.where((entities > 0).unsqueeze(-1), dynamic, self.no_entity.expand_as(dynamic))
        attended = self.out(self._attention(self.query(normed), self.key(vectors), self.value(vectors)))
        scale = h.pow(2).mean(-1, keepdim=True).sqrt()  # the residual stream's size at each position
        a = scale * self.attention_norm(self.dropout(attended)) + h
        b = scale * self.ffn_norm(self.dropout(self.ffn(self.ffn_input_norm(a)))) + a
        g = self.delta * torch.sigmoid(self.gate(normed))
        z = (1 - g) * b + g * h
        is_entity = (entities > 0).to(normed.dtype).unsqueeze(-1)
        new_sums = store.sums.index_add(0, entities, normed * is_entity)
        new_counts = store.counts.index_add(0, entities, is_entity[:, 0])
        return z, EntityStore(new_sums, new_counts)

    def _attention(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        n, width = q.shape
        heads = [x.view(n, self.n_heads, width // self.n_heads).transpose(0, 1) for x in (q, k, v)]
        out = F.scaled_dot_product_attention(*heads, is_causal=True)
        return out.transpose(0, 1).reshape(n, width)


def config_problems(delta: float, window: int, stride: int) -> List[str]:
    problems = []
    if not 0.0 <= delta <= 1.0:
        problems.append(f"delta must be in [0, 1], got {delta}")
    if not 0 < stride <= window:
        problems.append(f"stride must be in [1, window = {window}], got {stride}")
    return problems


class EntityGatedLM(nn.Module):
    """A base causal LM with an Entity-Gating layer; scores a document's pieces given the entity each read piece
    belongs to. ``gated = False`` is the base LM alone (no layer: the zero-shot baseline)."""

    def __init__(self, base: nn.Module, bos_id: int, n_heads: int = 9, delta: float = 0.5, dropout: float = 0.1,
                 window: int = 512, stride: int = 384, gated: bool = True, freeze_base: bool = True):
        super().__init__()
        problems = config_problems(delta, window, stride)
        if not 0.0 <= dropout < 1.0:
            problems.append(f"dropout must be in [0, 1), got {dropout}")
        if problems:
            raise ValueError("[spacy-entmem] invalid EntityGatedLM config: " + "; ".join(problems))
        self.base, self.bos_id, self.window, self.stride = base, bos_id, window, stride
        self.freeze_base = freeze_base
        width = base.get_input_embeddings().weight.shape[1]
        self.gating = EntityGating(width, n_heads, delta, dropout) if gated else None
        for p in base.parameters():  # a base shared with a frozen model arrives with requires_grad off
            p.requires_grad_(not freeze_base)

    def block_log_probs(self, states: torch.Tensor, targets: torch.Tensor, entities: torch.Tensor,
                        store: Optional[EntityStore], scored: Optional[torch.Tensor] = None,
                        ) -> Tuple[torch.Tensor, Optional[EntityStore], torch.Tensor]:
        """(log p of one block's target pieces, the entity store after the block, the logits) from the base's
        pre-norm states that predict them; with ``scored`` (positions in the block) only those go through the
        LM head (the gating layer reads every position)."""
        if self.gating is not None:
            if store is None:
                store = EntityStore.empty(states.shape[1], states.device)
            states, store = self.gating(states, entities, store)
        if scored is not None:
            states, targets = states[scored], targets[scored]
        logits = self.base.get_output_embeddings()(final_norm(self.base)(states)).float()
        return torch.log_softmax(logits, dim=-1).gather(1, targets.unsqueeze(1))[:, 0], store, logits

    def blocks(self, pieces: torch.Tensor) -> Iterator[Tuple[int, int, torch.Tensor]]:
        """(first, end, pre-norm states) per scored block of a document's pieces (no gradient into a frozen base)."""
        grad = torch.is_grad_enabled() and not self.freeze_base
        blocks = base_states(self.base, pieces, self.bos_id, self.window, self.stride)
        while True:
            with torch.set_grad_enabled(grad):  # around the base only: the caller's mode holds between blocks
                block = next(blocks, None)
            if block is None:
                return
            yield block

    def forward(self, documents: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
        """log p (B, N) of the pieces of B documents given as (pieces, read entities) (``read_document``),
        padded with zeros after each document's end."""
        scored = [self.read_document(pieces, read) for pieces, read in documents]
        return nn.utils.rnn.pad_sequence(scored, batch_first=True) if scored else torch.zeros(0, 0)

    def read_document(self, pieces: torch.Tensor, read_entities: torch.Tensor) -> torch.Tensor:
        """log p (n,) of each piece of one document. ``pieces`` (n,) ids; ``read_entities`` (n,): the entity of
        the piece *before* each one (0 for the first and for non-entity pieces), i.e. what the position that
        predicts piece t has read."""
        return self.score(pieces, read_entities)[0]

    def score(self, pieces: torch.Tensor, read_entities: torch.Tensor, scored_from: int = 0) -> Tuple[torch.Tensor, int]:
        """``score_blocks`` over the base's own blocks of a document (moved to the model's device)."""
        device = self.base.get_input_embeddings().weight.device
        pieces, read_entities = pieces.to(device), read_entities.to(device)
        return self.score_blocks(self.blocks(pieces), pieces, read_entities, scored_from)

    def score_blocks(self, blocks: Iterable[Tuple[int, int, torch.Tensor]], pieces: torch.Tensor,
                     read_entities: torch.Tensor, scored_from: int = 0,
                     step: Optional[Callable[[torch.Tensor, EntityStore], EntityStore]] = None,
                     ) -> Tuple[torch.Tensor, int]:
        """(log p of the pieces from ``scored_from`` on, how many of them are the argmax) over a document's
        (first, end, pre-norm states) blocks (``blocks``, or a cache of them), the entity store carried from
        block to block. ``step(logp, store)``, if given, runs after each block (a training step) and returns the
        store to carry on with; the returned log p are then detached."""
        store, out, n_argmax = None, [], 0
        for first, end, states in blocks:
            scored = None
            if scored_from > first:
                scored = torch.arange(min(scored_from - first, end - first), end - first, device=pieces.device)
            logp, store, logits = self.block_log_probs(states, pieces[first:end], read_entities[first:end], store,
                                                       scored)
            if step is not None:
                store, logp = step(logp, store), logp.detach()
            targets = pieces[first:end] if scored is None else pieces[first:end][scored]
            n_argmax += int((logits.argmax(-1) == targets).sum())
            out.append(logp)
        return (torch.cat(out) if out else torch.zeros(0, device=pieces.device)), n_argmax

    # a frozen base is not saved with the layer: it is rebuilt from the config's base model
    def state_dict(self, *args, **kwargs):
        full = super().state_dict(*args, **kwargs)
        if self.freeze_base:
            for key in [k for k in full if k.startswith("base.")]:
                del full[key]
        return full

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        if self.freeze_base:
            state_dict = {**{f"base.{k}": v for k, v in self.base.state_dict().items()}, **state_dict}
        return super().load_state_dict(state_dict, strict=strict, assign=assign)


def read_entities_of(entities: torch.Tensor) -> torch.Tensor:
    """From the entity of each piece to the entity each predicting position has read (shifted by one)."""
    return torch.cat([entities.new_zeros(1), entities[:-1]]) if len(entities) else entities
