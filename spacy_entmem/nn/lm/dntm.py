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
from typing import Dict, List, Optional, Sequence, Tuple

import torch
from torch import nn
from torch.nn import functional as F

UNKNOWN, BOS, EOS, ENTITY = 0, 1, 2, 3  # word ids of the special tokens; words start at N_SPECIAL
N_SPECIAL = 4
NO_ENTITY = -1
MERGES = ("gru_relu", "gru", "max", "latest")
# the context encoder's modules (Eqs. 6-8): its word embeddings, the two LSTM directions, W_hd
ENCODER_PARTS = ("context_embedding", "context_forward", "context_backward", "context_projection")
DYNAMIC = ("none", "input", "output", "both")


class TensorRecord:
    """A dataclass of tensors that moves to a device as a whole."""

    def to(self, device: torch.device):
        return type(self)(*(getattr(self, f).to(device) for f in self.__dataclass_fields__))


@dataclass
class ReaderState:
    """What a reader carries from one block of a document to the next: the LSTM's (h, c) and the entity
    states d (B, K, D) (None for the baseline)."""

    h: torch.Tensor
    c: torch.Tensor
    entities: Optional[torch.Tensor]


@dataclass
class LMBatch(TensorRecord):
    """B documents as flat token sequences of length T (sentences ``<bos> … <eos>`` one after another;
    padding after each document's end, mask 0).

    words (B, T) word ids; slots (B, T) entity slot or NO_ENTITY; sentence (B, T) sentence index within the
    document; mask (B, T); sentence_tokens (N, L) the flat positions b·T + t of each of the batch's N
    sentences' tokens (padding: −1), sentence_doc (N,) and sentence_index (N,) whose sentence it is."""

    words: torch.Tensor
    slots: torch.Tensor
    sentence: torch.Tensor
    mask: torch.Tensor
    sentence_tokens: torch.Tensor
    sentence_doc: torch.Tensor
    sentence_index: torch.Tensor


class DynamicEntityLM(nn.Module):
    """See the module docstring. ``dynamic`` = "none" is the paper's baseline (A), "input" (B), "output" (C),
    "both" (D).

    The context encoder reads words only, so every sentence's entity contexts are encoded at once, then
    merged sentence by sentence (a loop over sentences on (B·K) rows); the LM's LSTM then runs over each
    whole document in one call, with sentence i's entity embeddings taken from the merge after sentence i−1.
    """

    def __init__(self, vocab_size: int, n_slots: int = 50, embed_width: int = 256, hidden_width: int = 256,
                 context_width: int = 128, dynamic: str = "both", merge: str = "gru_relu", dropout: float = 0.3,
                 cutoffs: Tuple[int, ...] = (2000,), state_dropout: float = 0.0, share_embeddings: bool = False,
                 freeze_context: bool = False):
        super().__init__()
        if freeze_context and share_embeddings:
            raise ValueError("freeze_context cannot go with share_embeddings: the frozen encoder would freeze the "
                             "LM's own word embeddings")
        if dynamic not in DYNAMIC:
            raise ValueError(f"dynamic must be one of {DYNAMIC}, got {dynamic!r}")
        if merge not in MERGES:
            raise ValueError(f"merge must be one of {MERGES}, got {merge!r}")
        self.vocab_size, self.n_slots, self.dynamic, self.merge = vocab_size, n_slots, dynamic, merge
        self.dropout = nn.Dropout(dropout)
        self.state_dropout = nn.Dropout(state_dropout)  # on d_k where the LM reads it (not in the merge)
        self.embedding = nn.Embedding(vocab_size, embed_width)
        self.static_input = nn.Embedding(n_slots, embed_width)   # b^x_k
        self.static_output = nn.Embedding(n_slots, hidden_width)  # b^y_k
        self.lstm = nn.LSTM(embed_width, hidden_width, batch_first=True)
        # the head keeps the special tokens (ENTITY among them); a vocabulary smaller than the shortlist gets
        # a one-word tail (torch needs one cutoff)
        cutoffs = [c for c in cutoffs if N_SPECIAL < c < vocab_size] or [vocab_size - 1]
        self.words = nn.AdaptiveLogSoftmaxWithLoss(hidden_width, vocab_size, cutoffs, div_value=4.0)
        self.uses_context = dynamic != "none"
        self.context_width = context_width
        if self.uses_context:
            # the context encoder's word embeddings: its own (the paper), or the LM's (``share_embeddings``)
            self.context_embedding = self.embedding if share_embeddings else nn.Embedding(vocab_size, embed_width)
            # the two directions of the bidirectional context RNN (Eqs. 7-8), run as two LSTMs over sentences
            # padded in length buckets (torch's CPU backward through packed sequences is ~3x slower)
            self.context_forward = nn.LSTM(embed_width, context_width, batch_first=True)
            self.context_backward = nn.LSTM(embed_width, context_width, batch_first=True)
            self.context_projection = nn.Linear(2 * context_width, context_width)  # W_hd, b_d
            if merge in ("gru_relu", "gru"):
                self.merge_cell = nn.GRUCell(context_width, context_width)
            self.to_input = nn.Linear(context_width, embed_width, bias=False)    # W_dx
            self.to_output = nn.Linear(context_width, hidden_width, bias=False)  # W_dy
            if freeze_context:  # the paper's set-up: a pre-trained encoder, fixed while the LM trains
                for part in self.context_encoder_parts():
                    part.requires_grad_(False)

    def context_encoder_parts(self) -> List[nn.Module]:
        """The context encoder's modules (``ENCODER_PARTS``); none for the baseline."""
        return [getattr(self, name) for name in ENCODER_PARTS] if self.uses_context else []

    def load_pretrained(self, state: Dict[str, torch.Tensor], source_words: Sequence[str],
                        target_words: Sequence[str], slots_as_anonymised: bool = True) -> int:
        """Start from a pre-trained context encoder (``ContextCloze.encoder_state``, over the vocabulary
        ``source_words``) as the paper does: its word embeddings initialise the LM's input embeddings (the
        baseline's too) and, mapped word by word onto this model's vocabulary ``target_words`` (words it lacks
        start as its unknown word), the encoder's; with ``slots_as_anonymised`` the entity slots' static input
        embeddings all start as the anonymised token's (the paper), else they keep their random start. Returns
        how many of ``target_words`` the pre-trained vocabulary has."""
        table = state["context_embedding.weight"]
        if table.shape[1] != self.embedding.embedding_dim:
            raise ValueError(f"the pre-trained context encoder's word embeddings are {table.shape[1]} wide, "
                             f"this model's embed_width is {self.embedding.embedding_dim}")
        source = {word: i for i, word in enumerate(source_words, start=N_SPECIAL)}
        rows = list(range(N_SPECIAL)) + [source.get(word, UNKNOWN) for word in target_words]
        if len(rows) != self.vocab_size:
            raise ValueError(f"{len(target_words)} words + {N_SPECIAL} special tokens do not make this model's "
                             f"vocabulary of {self.vocab_size}")
        mapped = table[torch.tensor(rows)].to(self.embedding.weight)
        with torch.no_grad():
            self.embedding.weight.copy_(mapped)
            if slots_as_anonymised:
                self.static_input.weight.copy_(mapped[ENTITY].expand_as(self.static_input.weight))
            if self.uses_context:
                width = state["context_projection.weight"].shape[0]
                if width != self.context_width:
                    raise ValueError(f"the pre-trained context encoder is {width} wide, this model's "
                                     f"context_width is {self.context_width}")
                self.context_embedding.weight.copy_(mapped)
                for part in ENCODER_PARTS[1:]:  # the embeddings are mapped above, the rest loads as it is
                    getattr(self, part).load_state_dict(
                        {key.split(".", 1)[1]: value for key, value in state.items() if key.startswith(part + ".")})
        return sum(word in source for word in target_words)

    def forward(self, batch: LMBatch, state: Optional["ReaderState"] = None) -> torch.Tensor:
        """(B, T) log p of every token given the tokens before it (0 at each BOS and at padding)."""
        return self.read(batch, state)[0]

    def read(self, batch: LMBatch, state: Optional["ReaderState"] = None) -> Tuple[torch.Tensor, "ReaderState"]:
        """Log p as ``forward``, starting from ``state`` (the LSTM and entity states after the text before
        ``batch``; None: a document's start), and the state after ``batch``. A state is exact for a batch of
        one document (with several, the LSTM's final state would include the shorter ones' padding)."""
        batch = batch.to(self.embedding.weight.device)
        B, T = batch.words.shape
        if T == 0:
            return batch.words.new_zeros(B, T, dtype=torch.float32), state
        entities = self.entity_states(batch, None if state is None else state.entities) if self.uses_context else None
        read = self.state_dropout(entities) if entities is not None else None
        x = self.embed_inputs(batch, read)
        h, (h_n, c_n) = self.lstm(x, None if state is None else (state.h, state.c))
        # padding sits after each document: its real positions do not depend on it
        logp = self.score_tokens(self.dropout(h), batch, read)
        return logp, ReaderState(h_n, c_n, entities[:, -1] if entities is not None else None)

    def entity_states(self, batch: LMBatch, initial: Optional[torch.Tensor] = None) -> torch.Tensor:
        """(B, S + 1, K, D): d_k before each sentence (index 0: ``initial``, by default zeros; index i: after
        sentences < i)."""
        B, T = batch.words.shape
        S = int(batch.sentence.max()) + 1
        K, D = self.n_slots, self.context_width
        contexts = self.embedding.weight.new_zeros(B * S * K, D)
        counts = self.embedding.weight.new_zeros(B * S * K)
        positions = batch.sentence_tokens
        real = positions >= 0
        flat_slots = batch.slots.reshape(-1)
        slots = torch.where(real, flat_slots[positions.clamp(min=0)], torch.full_like(positions, NO_ENTITY))
        if (slots >= 0).any():
            words = torch.where(real, batch.words.reshape(-1)[positions.clamp(min=0)], torch.zeros_like(positions))
            lengths = real.sum(dim=1)
            for chunk in torch.argsort(lengths).split(self.CONTEXT_CHUNK):
                n, l = torch.nonzero(slots[chunk] >= 0, as_tuple=True)
                if not len(n):
                    continue
                width = int(lengths[chunk].max())
                context = self.encode_contexts(words[chunk, :width], lengths[chunk], n, l)
                sentences = chunk[n]
                rows = (batch.sentence_doc[sentences] * S + batch.sentence_index[sentences]) * K + slots[sentences, l]
                contexts = contexts.index_add(0, rows, context)
                counts = counts.index_add(0, rows, counts.new_ones(len(rows)))
        mean = (contexts / counts.clamp(min=1)[:, None]).view(B, S, K, D)
        seen = (counts > 0).view(B, S, K, 1)
        states = [mean.new_zeros(B, K, D) if initial is None else initial]
        # unbind once: indexing mean[:, i] in the loop costs a full-size zero gradient per sentence
        for mean_i, seen_i in zip(mean.unbind(1), seen.unbind(1)):  # merge sentence by sentence
            if bool(seen_i.any()):
                states.append(torch.where(seen_i, self.merged(mean_i, states[-1]), states[-1]))
            else:
                states.append(states[-1])
        return torch.stack(states, dim=1)

    CONTEXT_CHUNK = 64  # sentences per context-encoder call (sorted by length, so little padding)

    def encode_contexts(self, words: torch.Tensor, lengths: torch.Tensor, n: torch.Tensor, l: torch.Tensor):
        """d' = ReLU(W_hd [h→_{t−1}; h←_{t+1}] + b_d) (Eq. 6) at positions (n, l) of sentences ``words``
        (right-padded to their ``lengths``)."""
        x = self.dropout(self.context_embedding(words))
        forward_h = self.context_forward(x)[0]
        steps = torch.arange(words.shape[1], device=words.device)
        reverse = (lengths[:, None] - 1 - steps).clamp(min=0)  # position t of the reversed sentence
        backward_h = self.context_backward(x.gather(1, reverse[..., None].expand_as(x)))[0]
        zeros = forward_h.new_zeros(len(n), forward_h.shape[-1])
        before = torch.where((l > 0)[:, None], forward_h[n, (l - 1).clamp(min=0)], zeros)
        # h←_{t+1} sits at reversed position len − 2 − t
        after = torch.where((l + 1 < lengths[n])[:, None], backward_h[n, (lengths[n] - 2 - l).clamp(min=0)], zeros)
        return F.relu(self.context_projection(torch.cat([before, after], dim=-1)))

    def embed_inputs(self, batch: LMBatch, entities: Optional[torch.Tensor]) -> torch.Tensor:
        x = self.embedding(batch.words)
        b, t = torch.nonzero(batch.slots >= 0, as_tuple=True)
        if len(b):
            slot = batch.slots[b, t]
            entity_x = self.static_input(slot)
            if self.dynamic in ("input", "both"):
                entity_x = entity_x + self.to_input(entities[b, batch.sentence[b, t], slot])
            x = x.index_put((b, t), entity_x)
        return self.dropout(x)

    def score_tokens(self, h: torch.Tensor, batch: LMBatch, entities: Optional[torch.Tensor]) -> torch.Tensor:
        """log p(token t | h_{t−1}) for the predicted tokens (real, not BOS)."""
        B, T, H = h.shape
        predicted = batch.mask.bool() & (batch.words != BOS)
        predicted[:, 0] = False
        b, t = torch.nonzero(predicted, as_tuple=True)
        context = h[b, t - 1]
        slots = batch.slots[b, t]
        targets = torch.where(slots >= 0, torch.full_like(slots, ENTITY), batch.words[b, t])
        logp = self.words(context, targets).output
        e = torch.nonzero(slots >= 0, as_tuple=True)[0]
        if len(e):
            # h · y_k = h · b^y_k + (W_dy^T h) · d_k, with d_k as it was before the target's sentence
            scores = context[e] @ self.static_output.weight.T  # (n, K)
            if self.dynamic in ("output", "both"):
                states = entities[b[e], batch.sentence[b[e], t[e]]]  # (n, K, D)
                scores = scores + torch.einsum("nd,nkd->nk", context[e] @ self.to_output.weight, states)
            slot_logp = torch.log_softmax(scores, dim=-1)
            logp = logp.index_add(0, e, slot_logp[torch.arange(len(e), device=e.device), slots[e]])
        return h.new_zeros(B, T).index_put((b, t), logp)

    def merged(self, new: torch.Tensor, old: torch.Tensor) -> torch.Tensor:
        if self.merge == "latest":
            return new
        if self.merge == "max":
            return torch.maximum(new, old)
        B, K, D = new.shape
        out = self.merge_cell(new.reshape(-1, D), old.reshape(-1, D)).view(B, K, D)
        return F.relu(out) if self.merge == "gru_relu" else out


def lm_loss(logp: torch.Tensor, batch: LMBatch) -> Tuple[torch.Tensor, int]:
    """Mean negative log-likelihood over the predicted tokens (every real token but BOS)."""
    predicted = batch.mask.bool() & (batch.words != BOS)
    n = int(predicted.sum())
    return -(logp * predicted.to(logp.dtype)).sum() / max(n, 1), n


def score_continuations(lm: DynamicEntityLM, prefix: LMBatch, words: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
    """(C,) log p of each of C alternative next sentences (rows of ``words`` / ``slots``, (C, L), each
    ``<bos> … <eos>`` without padding) after the one document in ``prefix``: the prefix is read once and its
    LSTM state and entity states are shared by the alternatives (the DNTM's cloze by sentence likelihood)."""
    C, L = words.shape
    _, state = lm.read(prefix)
    words, slots = words.to(state.h.device), slots.to(state.h.device)
    after = state.entities[:, None].expand(C, -1, -1, -1) if state.entities is not None else None
    index = torch.arange(C * L, device=words.device)
    batch = LMBatch(words, slots, torch.zeros_like(words), torch.ones_like(words), index.view(C, L),
                    index[:C], torch.zeros_like(index[:C]))
    h, _ = lm.lstm(lm.embed_inputs(batch, after), (state.h.expand(-1, C, -1).contiguous(),
                                                   state.c.expand(-1, C, -1).contiguous()))
    return lm.score_tokens(lm.dropout(h), batch, after).sum(dim=1)
