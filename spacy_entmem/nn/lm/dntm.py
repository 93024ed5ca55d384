"""The Dynamic Neural Text Model (Kobayashi et al. 2017) as a torch module: an LSTM language model over
anonymised text whose entity tokens ``[k]`` get dynamic embeddings in the input layer (Eq. 9), the output
layer (Eq. 10), or both.

A document is a sequence of sentences ``<bos> w_1 … w_n <eos>``; a mention of an anonymised entity is one
token whose word id is ``ENTITY`` and whose slot k (0 ≤ k < K, order of first appearance) says which entity.

    x_e = W_dx d_e + b^x_k        (input embedding of entity k; the baseline keeps b^x_k only)
    y_e = W_dy d_e + b^y_k        (output embedding; the baseline keeps b^y_k only)
    p(w_t | ·) = p(class of w_t | h_{t−1}) · p(w_t | class)           (torch's adaptive softmax over words,
    p([k] | ·) = p(ENTITY | h_{t−1}) · softmax_k(h_{t−1} · y_k)         ENTITY is one of its head classes)

After sentence i the context encoder (its own embeddings and a bidirectional LSTM over sentence i only)
gives, at each position t of an entity token, d' = ReLU(W_hd [h→_{t−1}; h←_{t+1}] + b_d) (Eq. 6); the
entity's contexts in the sentence are averaged and merged into d_e (GRU-ReLU, GRU, max-pool or latest).
Sentence i+1 reads the merged d_e: a token's probability never depends on its own sentence's later words.
d_e starts at zero, so before its first context an entity's embeddings are the static ones.
"""
from dataclasses import dataclass
from typing import Optional, Tuple

import torch
from torch import nn
from torch.nn import functional as F

UNKNOWN, BOS, EOS, ENTITY = 0, 1, 2, 3  # word ids of the special tokens; words start at N_SPECIAL
N_SPECIAL = 4
NO_ENTITY = -1
MERGES = ("gru_relu", "gru", "max", "latest")
DYNAMIC = ("none", "input", "output", "both")


@dataclass
class LMBatch:
    """B documents of S sentences of at most L tokens (padding: word 0 with mask 0).

    words (B, S, L) word ids (BOS first, EOS last); slots (B, S, L) entity slot or NO_ENTITY; mask (B, S, L)."""

    words: torch.Tensor
    slots: torch.Tensor
    mask: torch.Tensor


class DynamicEntityLM(nn.Module):
    """See the module docstring. ``dynamic`` = "none" is the paper's baseline (A), "input" (B), "output" (C),
    "both" (D)."""

    def __init__(self, vocab_size: int, n_slots: int = 50, embed_width: int = 256, hidden_width: int = 256,
                 context_width: int = 128, dynamic: str = "both", merge: str = "gru_relu", dropout: float = 0.3,
                 cutoffs: Tuple[int, ...] = (2000,)):
        super().__init__()
        if dynamic not in DYNAMIC:
            raise ValueError(f"dynamic must be one of {DYNAMIC}, got {dynamic!r}")
        if merge not in MERGES:
            raise ValueError(f"merge must be one of {MERGES}, got {merge!r}")
        self.vocab_size, self.n_slots, self.dynamic, self.merge = vocab_size, n_slots, dynamic, merge
        self.dropout = nn.Dropout(dropout)
        self.embedding = nn.Embedding(vocab_size, embed_width)
        self.static_input = nn.Embedding(n_slots, embed_width)   # b^x_k
        self.static_output = nn.Embedding(n_slots, hidden_width)  # b^y_k
        self.lstm = nn.LSTM(embed_width, hidden_width, batch_first=True)
        cutoffs = tuple(c for c in cutoffs if N_SPECIAL < c < vocab_size)
        self.words = nn.AdaptiveLogSoftmaxWithLoss(hidden_width, vocab_size, list(cutoffs), div_value=4.0)
        self.uses_context = dynamic != "none"
        if self.uses_context:
            self.context_embedding = nn.Embedding(vocab_size, embed_width)
            self.context_lstm = nn.LSTM(embed_width, context_width, batch_first=True, bidirectional=True)
            self.context_projection = nn.Linear(2 * context_width, context_width)  # W_hd, b_d
            if merge in ("gru_relu", "gru"):
                self.merge_cell = nn.GRUCell(context_width, context_width)
            self.to_input = nn.Linear(context_width, embed_width, bias=False)    # W_dx
            self.to_output = nn.Linear(context_width, hidden_width, bias=False)  # W_dy
        self.context_width = context_width

    def forward(self, batch: LMBatch) -> torch.Tensor:
        """(B, S, L) log p of every token given the tokens before it (0 at BOS and padding)."""
        B, S, L = batch.words.shape
        entities = batch.words.new_zeros(B, self.n_slots, self.context_width, dtype=torch.float32)
        state = None
        out = []
        for s in range(S):
            words, slots, mask = batch.words[:, s], batch.slots[:, s], batch.mask[:, s]
            x = self.embed_inputs(words, slots, entities)
            h, state = self.run_lstm(x, mask, state)
            out.append(self.score_sentence(h, words, slots, mask, entities))
            if self.uses_context:
                entities = self.read_contexts(words, slots, mask, entities)
        return torch.stack(out, dim=1) if out else batch.words.new_zeros(B, 0, L, dtype=torch.float32)

    def embed_inputs(self, words, slots, entities) -> torch.Tensor:
        x = self.embedding(words)
        is_entity = slots >= 0
        if is_entity.any():
            slot = slots.clamp(min=0)
            entity_x = self.static_input(slot)
            if self.dynamic in ("input", "both"):
                entity_x = entity_x + self.to_input(torch.gather(
                    entities, 1, slot[..., None].expand(-1, -1, entities.shape[-1])))
            x = torch.where(is_entity[..., None], entity_x, x)
        return self.dropout(x)

    def run_lstm(self, x, mask, state):
        """LSTM over one sentence per document (packed: each document's state is taken after its last real
        token and carried to the next sentence); a document that has no sentence here keeps its state."""
        lengths = mask.sum(dim=1)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.clamp(min=1).cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, (h_n, c_n) = self.lstm(packed, state)
        h, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        if state is not None:
            real = (lengths > 0)[None, :, None]
            h_n, c_n = torch.where(real, h_n, state[0]), torch.where(real, c_n, state[1])
        return self.dropout(h), (h_n, c_n)

    def score_sentence(self, h, words, slots, mask, entities) -> torch.Tensor:
        """(B, L) log p(token t | h_{t−1}) for t ≥ 1 of the sentence (BOS and padding: 0)."""
        B, L, H = h.shape
        if L < 2:
            return h.new_zeros(B, L)
        context, targets, target_slots = h[:, :-1], words[:, 1:], slots[:, 1:]
        flat_context = context.reshape(-1, H)
        class_targets = torch.where(target_slots >= 0, torch.full_like(targets, ENTITY), targets).reshape(-1)
        word_logp = self.words(flat_context, class_targets).output.view(B, L - 1)
        entity_logp = torch.log_softmax(torch.einsum("blh,bkh->blk", context, self.output_embeddings(entities)), -1)
        slot_logp = entity_logp.gather(-1, target_slots.clamp(min=0)[..., None]).squeeze(-1)
        logp = word_logp + torch.where(target_slots >= 0, slot_logp, torch.zeros_like(slot_logp))
        logp = logp * mask[:, 1:].to(logp.dtype)
        return torch.cat([h.new_zeros(B, 1), logp], dim=1)

    def output_embeddings(self, entities) -> torch.Tensor:
        """(B, K, H) y_k for every slot."""
        y = self.static_output.weight[None].expand(entities.shape[0], -1, -1)
        if self.dynamic in ("output", "both"):
            y = y + self.to_output(entities)
        return y

    def read_contexts(self, words, slots, mask, entities) -> torch.Tensor:
        """Merge the contexts of the entities mentioned in this sentence into their dynamic representation."""
        is_entity = (slots >= 0) & mask.bool()
        if not is_entity.any():
            return entities
        B, L = words.shape
        x = self.dropout(self.context_embedding(words))
        h, _ = self.context_lstm(x)
        width = h.shape[-1] // 2
        forward_h, backward_h = h[..., :width], h[..., width:]
        zeros = h.new_zeros(B, 1, width)
        before = torch.cat([zeros, forward_h[:, :-1]], dim=1)   # h→_{t−1}
        after = torch.cat([backward_h[:, 1:], zeros], dim=1)    # h←_{t+1}
        contexts = F.relu(self.context_projection(torch.cat([before, after], dim=-1)))  # (B, L, D)
        # mean context per (document, slot) over the entity's mentions in this sentence
        one_hot = F.one_hot(slots.clamp(min=0), self.n_slots).to(contexts.dtype) * is_entity[..., None].to(contexts.dtype)
        counts = one_hot.sum(dim=1)  # (B, K)
        mean = torch.einsum("blk,bld->bkd", one_hot, contexts) / counts.clamp(min=1)[..., None]
        seen = (counts > 0)[..., None]
        return torch.where(seen, self.merged(mean, entities), entities)

    def merged(self, new: torch.Tensor, old: torch.Tensor) -> torch.Tensor:
        if self.merge == "latest":
            return new
        if self.merge == "max":
            return torch.maximum(new, old)
        B, K, D = new.shape
        out = self.merge_cell(new.reshape(-1, D), old.reshape(-1, D)).view(B, K, D)
        return F.relu(out) if self.merge == "gru_relu" else out


def lm_loss(logp: torch.Tensor, mask: torch.Tensor) -> Tuple[torch.Tensor, int]:
    """Mean negative log-likelihood over the predicted tokens (every real token but BOS)."""
    predicted = mask.clone()
    predicted[..., 0] = 0
    n = int(predicted.sum())
    return -(logp * predicted.to(logp.dtype)).sum() / max(n, 1), n

