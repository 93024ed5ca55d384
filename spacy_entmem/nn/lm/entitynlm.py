"""EntityNLM (Ji et al. 2017) as a torch module: an LSTM language model with random variables for entity
mentions and a dynamic vector per entity.

At each token t (``c`` is the conditioning state: h_{t−1} in the generative model, h_t in the discriminative
variant that serves as the proposal of importance sampling, §5.1):

    p(R_t = r) ∝ exp(c^T W_r r)                          (Eq. 3; only where no mention continues: ℓ_{t−1} = 1)
    p(E_t = e | R_t = 1) ∝ exp(c^T W_entity e_e + w_dist^T f(e))   (Eq. 4; over the entities so far + one new)
    p(L_t = ℓ | R_t = 1, E_t = e) ∝ exp(W_length,ℓ^T [c; e_e])    (Eq. 5; ℓ ≤ max_length remaining tokens)
    p(X_t = x) ∝ AdaptiveSoftmax(h_{t−1} + W_e e_current)         (Eq. 6; generative model only)

A new entity's vector is r_1 + N(0, σ²) projected onto the unit sphere (Eq. 7; σ = 0.01, noise in training
only); after each token of a mention of e, e_e ← normalise(δ e_e + (1 − δ) h_t) with δ = σ(h_t^T W_δ e_e)
(Eq. 8). e_current is the vector of the entity being mentioned (before its update at t) or, outside mentions,
the latest vector of the most recently mentioned entity (zero before any mention). f(e) is a one-hot bucket of
the token distance from t to the entity's latest mention (f = 0 for a new entity).

The LSTM reads the words only (entities never enter it), so it runs over a whole document in one call; the
entity vectors are then updated in one loop over the mention tokens (not over every token). Entities are
numbered in order of first appearance, so at a mention start a new entity is the index ``n_seen``; at most
``n_slots`` entities per document (a bounded state per entity and per document).
"""
import math
from dataclasses import dataclass
from typing import Dict, List, Optional

import numpy
import torch
from torch import nn
from torch.nn import functional as F

from .dntm import BOS, EOS, N_SPECIAL, TensorRecord

DISTANCE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)  # upper bounds; one more bucket beyond the last
NEG_INF = -1e9


def predicted_tokens(words: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(B, T) bool: the tokens a model predicts (real, not BOS, not the first)."""
    predicted = mask.bool() & (words != BOS)
    predicted[:, :1] = False
    return predicted


@dataclass
class EntityBatch(TensorRecord):
    """B documents as flat token sequences of length T (sentences ``<bos> … <eos>``, padding after each
    document, mask 0). ``entity`` (B, T): the entity index of a token inside a mention, else −1;
    ``remaining`` (B, T): L_t, the mention's tokens left including t (0 outside mentions)."""

    words: torch.Tensor
    entity: torch.Tensor
    remaining: torch.Tensor
    mask: torch.Tensor

    def predicted(self) -> torch.Tensor:
        """(B, T) bool: the tokens the model predicts (real, not BOS)."""
        return predicted_tokens(self.words, self.mask)

    def decisions(self) -> torch.Tensor:
        """(B, T) bool: where R_t is chosen (a predicted token that does not continue a mention)."""
        continues = torch.zeros_like(self.predicted())
        continues[:, 1:] = self.remaining[:, :-1] > 1
        return self.predicted() & ~continues

    def starts(self) -> torch.Tensor:
        """(B, T) bool: the first token of each mention (R_t = 1 chosen there)."""
        return self.decisions() & (self.remaining > 0)


@dataclass
class EntityNLMOutput:
    """Per token log-probabilities (B, T), 0 where the variable is not generated; ``entity_logp`` (B, T, K)
    is log p(E_t = · | R_t = 1) at mention starts (−inf for impossible entities; index ``n_seen``: new)."""

    word: torch.Tensor
    r: torch.Tensor
    e: torch.Tensor
    length: torch.Tensor
    entity_logp: torch.Tensor

    @property
    def joint(self) -> torch.Tensor:
        """(B, T) log p(R_t, E_t, L_t, X_t | history) (Eq. 9's terms)."""
        return self.word + self.r + self.e + self.length


class EntityNLM(nn.Module):
    """See the module docstring. ``discriminative``: R/E/L conditioned on h_t (the word at t is read first)
    and no word distribution: the proposal Q(R, E, L | X) of importance sampling."""

    def __init__(self, vocab_size: int, n_slots: int = 80, embed_width: int = 256, hidden_width: int = 256,
                 max_length: int = 25, dropout: float = 0.3, cutoffs=(2000,), discriminative: bool = False,
                 sigma: float = 0.01):
        super().__init__()
        self.vocab_size, self.n_slots, self.max_length = vocab_size, n_slots, max_length
        self.discriminative, self.sigma = discriminative, sigma
        self.dropout = nn.Dropout(dropout)
        self.embedding = nn.Embedding(vocab_size, embed_width)
        self.lstm = nn.LSTM(embed_width, hidden_width, batch_first=True)
        self.r_embedding = nn.Embedding(2, hidden_width)                       # r_0, r_1
        self.r_bilinear = nn.Linear(hidden_width, hidden_width, bias=False)     # W_r
        self.entity_bilinear = nn.Linear(hidden_width, hidden_width, bias=False)  # W_entity
        self.distance = nn.Linear(len(DISTANCE_BUCKETS) + 1, 1, bias=False)    # w_dist
        self.length = nn.Linear(2 * hidden_width, max_length)                  # W_length
        self.delta = nn.Linear(hidden_width, hidden_width, bias=False)         # W_δ
        if not discriminative:
            self.entity_to_word = nn.Linear(hidden_width, hidden_width, bias=False)  # W_e
            cutoffs = [c for c in cutoffs if N_SPECIAL < c < vocab_size] or [vocab_size - 1]
            self.words = nn.AdaptiveLogSoftmaxWithLoss(hidden_width, vocab_size, cutoffs, div_value=4.0)
        self.register_buffer("bucket_bounds", torch.tensor(DISTANCE_BUCKETS), persistent=False)

    def new_entities(self, B: int) -> torch.Tensor:
        """(B, K, D) the vectors of not yet mentioned entities (Eq. 7)."""
        r1 = self.r_embedding.weight[1]
        u = r1.expand(B, self.n_slots, -1)
        if self.training and self.sigma > 0:
            u = u + self.sigma * torch.randn_like(u)
        return F.normalize(u, dim=-1)

    def distance_features(self, distance: torch.Tensor, seen: torch.Tensor) -> torch.Tensor:
        """(B, K, buckets) one-hot token-distance buckets; zero for entities not mentioned yet."""
        bucket = torch.bucketize(distance, self.bucket_bounds)
        return F.one_hot(bucket, len(DISTANCE_BUCKETS) + 1).to(self.distance.weight.dtype) * seen[..., None]

    def entity_log_probs(self, context: torch.Tensor, entities: torch.Tensor, last_position: torch.Tensor,
                         seen: torch.Tensor, n_seen: torch.Tensor, t: int) -> torch.Tensor:
        """(B, W) log p(E_t = k | R_t = 1) at token t over the first W slots, those that can be chosen (the
        entities seen and one new; none new once ``n_slots`` are in use): for reading left to right."""
        n_seen = n_seen.clamp(max=self.n_slots - 1)
        width = int(n_seen.max()) + 1
        scores = torch.bmm(entities[:, :width], self.entity_bilinear(context)[:, :, None]).squeeze(-1)
        features = self.distance_features(t - last_position[:, :width], seen[:, :width])
        scores = scores + self.distance(features).squeeze(-1)
        allowed = torch.arange(width, device=n_seen.device)[None, :] <= n_seen[:, None]
        return torch.log_softmax(scores.masked_fill(~allowed, NEG_INF), dim=-1)

    def updated_entity(self, h: torch.Tensor, entity: torch.Tensor) -> torch.Tensor:
        """The entity vector after one of its mention's tokens with LSTM state h (Eq. 8: δ-gated, renormalised)."""
        delta = torch.sigmoid((self.delta(h) * entity).sum(-1, keepdim=True))
        return F.normalize(delta * entity + (1 - delta) * h, dim=-1)

    def forward(self, batch: EntityBatch) -> EntityNLMOutput:
        """Every variable's log-probability given the annotation in ``batch`` (teacher forcing: the
        entity vectors follow the given R, E, L)."""
        batch = batch.to(self.embedding.weight.device)
        B, T = batch.words.shape
        K = self.n_slots
        if T == 0:
            empty = batch.words.new_zeros(B, 0, dtype=torch.float32)
            return EntityNLMOutput(empty, empty, empty, empty, empty.new_zeros(B, 0, K))
        h, _ = self.lstm(self.dropout(self.embedding(batch.words)))
        h = self.dropout(h)
        before = torch.cat([h.new_zeros(B, 1, h.shape[-1]), h[:, :-1]], dim=1)  # h_{t−1}
        context = h if self.discriminative else before
        decisions, starts = batch.decisions(), batch.starts()
        zeros = h.new_zeros(B, T)

        # R_t at every decision
        r_logits = context @ self.r_bilinear(self.r_embedding.weight).T  # (B, T, 2)
        r_logp = torch.where(decisions, torch.log_softmax(r_logits, -1).gather(
            -1, starts.long()[..., None]).squeeze(-1), zeros)

        # the loop over mention tokens: E_t, L_t at starts, the entity updates after every mention token
        in_mention = batch.remaining > 0
        counts = in_mention.sum(dim=1)
        M = int(counts.max()) if B else 0
        order = torch.argsort((~in_mention).to(torch.int8), dim=1, stable=True)[:, :M]  # positions, in order
        rows = torch.arange(B, device=h.device)
        entities = self.new_entities(B)
        last_position = torch.zeros(B, K, dtype=torch.long, device=h.device)
        seen = torch.zeros(B, K, dtype=torch.bool, device=h.device)
        n_seen = torch.zeros(B, dtype=torch.long, device=h.device)
        slot_range = torch.arange(K, device=h.device)
        entity_query = self.entity_bilinear(context)  # W_entity^T c, (B, T, D)
        e_logp, l_logp = zeros.clone(), zeros.clone()
        entity_logp = h.new_full((B, T, K), float("-inf"))
        befores: List[torch.Tensor] = []
        afters: List[torch.Tensor] = []
        for j in range(M):
            valid = j < counts
            t = order[:, j]
            k = batch.entity[rows, t].clamp(min=0)
            start = starts[rows, t] & valid
            e_before = entities[rows, k]
            if bool(start.any()):
                scores = (entity_query[rows, t][:, None, :] * entities).sum(-1)
                features = self.distance_features(t[:, None] - last_position, seen)
                scores = scores + self.distance(features).squeeze(-1)
                allowed = slot_range[None, :] <= n_seen[:, None]
                logp = torch.log_softmax(scores.masked_fill(~allowed, NEG_INF), dim=-1)
                logp = logp.masked_fill(~allowed, float("-inf"))
                start_rows, start_t = rows[start], t[start]
                entity_logp = entity_logp.index_put((start_rows, start_t), logp[start])
                e_logp = e_logp.index_put((start_rows, start_t), logp[start, k[start]])
                length_logp = torch.log_softmax(self.length(torch.cat([context[rows, t], e_before], -1)), -1)
                target = (batch.remaining[rows, t] - 1).clamp(max=self.max_length - 1)
                l_logp = l_logp.index_put((start_rows, start_t), length_logp[start, target[start]])
                n_seen = torch.where(start & (k == n_seen), n_seen + 1, n_seen)
            updated = self.updated_entity(h[rows, t], e_before)
            hit = (slot_range[None, :] == k[:, None]) & valid[:, None]
            entities = torch.where(hit[..., None], updated[:, None, :], entities)
            last_position = torch.where(hit, t[:, None], last_position)
            seen = seen | hit
            befores.append(e_before)
            afters.append(updated)

        word_logp = zeros if self.discriminative else self.word_log_probs(batch, before, befores, afters, order, counts)
        return EntityNLMOutput(word_logp, r_logp, e_logp, l_logp, entity_logp)

    def word_log_probs(self, batch: EntityBatch, before: torch.Tensor, befores: List[torch.Tensor],
                       afters: List[torch.Tensor], order: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:
        """log p(X_t | h_{t−1} + W_e e_current) at the predicted tokens (Eq. 6)."""
        B, T, D = before.shape
        M = len(befores)
        # rows of [0; e_before_1..M; e_after_1..M]: which vector is e_current at each position
        vectors = torch.cat([before.new_zeros(B, 1, D)] + ([torch.stack(befores, 1), torch.stack(afters, 1)]
                                                           if M else []), dim=1)
        step_at = torch.full((B, T), -1, dtype=torch.long, device=before.device)
        for_rows = torch.arange(B, device=before.device)[:, None].expand(-1, max(M, 0))
        if M:
            valid = torch.arange(M, device=before.device)[None, :] < counts[:, None]
            step_at = step_at.index_put((for_rows[valid], order[valid]),
                                        torch.arange(M, device=before.device).expand(B, -1)[valid])
        in_mention = step_at >= 0
        # outside mentions: the latest mention step before t (steps grow with positions: a running maximum)
        latest = torch.cummax(step_at, dim=1).values
        index = torch.where(in_mention, 1 + step_at, torch.where(latest >= 0, 1 + M + latest, torch.zeros_like(step_at)))
        current = vectors.gather(1, index[..., None].expand(-1, -1, D))
        predicted = batch.predicted()
        b, t = torch.nonzero(predicted, as_tuple=True)
        logp = self.words(before[b, t] + self.entity_to_word(current[b, t]), batch.words[b, t]).output
        return before.new_zeros(B, T).index_put((b, t), logp)


def joint_loss(output: EntityNLMOutput, batch: EntityBatch) -> torch.Tensor:
    """Mean negative joint log-likelihood per predicted token (Eq. 9 over the batch)."""
    n = batch.to(output.joint.device).predicted().sum().clamp(min=1)
    return -output.joint.sum() / n


def tokens_before_eos(is_eos: torch.Tensor) -> torch.Tensor:
    """(B, T): how many tokens from t on come before the next ``<eos>`` (0 at an ``<eos>``; to the end of the
    row when none follows)."""
    B, T = is_eos.shape
    steps = torch.arange(T, device=is_eos.device).expand(B, T)
    # the position of the next <eos> at or after t: a running minimum from the right
    marks = torch.where(is_eos, steps, torch.full_like(steps, T))
    next_eos = torch.flip(torch.cummin(torch.flip(marks, [1]), dim=1).values, [1])
    return next_eos - steps


def record_step(sampler, t: int, continuing: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
    """Write token t's annotation into a sampler's ``entity`` / ``remaining`` (B, T): a mention in progress
    counts down (``left``), one that ``start``s here begins with the ``left`` and ``current`` just drawn, any
    other row has none. Returns the entity at t (B,) (−1: no mention)."""
    zeros = torch.zeros_like(sampler.left)
    sampler.left = torch.where(continuing, sampler.left - 1, torch.where(start, sampler.left, zeros))
    entity = torch.where(sampler.left > 0, sampler.current, torch.full_like(sampler.current, -1))
    sampler.entity[:, t], sampler.remaining[:, t] = entity, sampler.left
    return entity


class AnnotationSampler:
    """Draws the mention variables of a batch from the discriminative ``proposal`` Q(R, E, L | X), one token
    at a time (``step``), so that a caller can resample its rows between steps (``reindex``: sequential Monte
    Carlo). ``entity``, ``remaining`` (B, T) hold the sample so far, ``log_q`` (B,) its log-probability.

    Q's support is kept to annotations the data can have: no mention at ``<eos>``, a mention never runs past
    its sentence (L is renormalised over the lengths that fit), no new entity once ``n_slots`` are in use;
    log q is the log-probability of the sample under that constrained Q."""

    @torch.no_grad()
    def __init__(self, proposal: EntityNLM, batch: EntityBatch, generator: Optional[torch.Generator] = None,
                 copies: int = 1):
        if not proposal.discriminative:
            raise ValueError("[spacy-entmem] importance sampling needs the discriminative EntityNLM as proposal")
        self.proposal, self.generator = proposal.eval(), generator
        batch = batch.to(proposal.embedding.weight.device)
        # ``copies`` samples of each row; the LSTM reads each row once
        self.h = proposal.lstm(proposal.embedding(batch.words))[0] if batch.words.shape[1] else None
        self.document = torch.arange(len(batch.words), device=batch.words.device).repeat_interleave(copies)
        self.words, mask = batch.words[self.document], batch.mask[self.document]
        (B, T), K = self.words.shape, proposal.n_slots
        device = self.words.device
        self.entity = torch.full_like(self.words, -1)
        self.remaining = torch.zeros_like(self.words)
        self.log_q = proposal.embedding.weight.new_zeros(B)
        self.predicted = predicted_tokens(self.words, mask)
        self.is_eos = self.words == EOS
        self.to_eos = tokens_before_eos(self.is_eos)
        self.rows = torch.arange(B, device=device)
        self.lengths = torch.arange(1, proposal.max_length + 1, device=device)
        self.entities = proposal.new_entities(B)
        self.last_position = torch.zeros(B, K, dtype=torch.long, device=device)
        self.seen = torch.zeros(B, K, dtype=torch.bool, device=device)
        self.n_seen = torch.zeros(B, dtype=torch.long, device=device)
        self.current = torch.full((B,), -1, dtype=torch.long, device=device)
        self.left = torch.zeros(B, dtype=torch.long, device=device)
        self.r_table = proposal.r_bilinear(proposal.r_embedding.weight)  # (2, D)

    STATE = ("entity", "remaining", "log_q", "entities", "last_position", "seen", "n_seen", "current", "left")

    def reindex(self, rows: torch.Tensor) -> None:
        """Continue from the samples ``rows`` (B,) (with repeats: resampling), each a sample of the same row of
        the batch as the one it replaces (the words, so the LSTM states, stay)."""
        for name in self.STATE:
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, value[rows])

    @torch.no_grad()
    def step(self, t: int) -> torch.Tensor:
        """Sample R_t, and E_t, L_t where a mention starts; update the entity vectors. Returns the sample's
        log q at t (B,)."""
        proposal, generator, rows = self.proposal, self.generator, self.rows
        log_q_before = self.log_q.clone()
        c = self.h[self.document, t]
        active = self.predicted[:, t]
        continuing = active & (self.left > 1)
        may_start = active & ~continuing & ~self.is_eos[:, t]
        r_logp = torch.log_softmax(c @ self.r_table.T, dim=-1)
        r = torch.bernoulli(r_logp[:, 1].exp(), generator=generator).long()
        self.log_q += torch.where(may_start, r_logp[rows, r], torch.zeros_like(self.log_q))
        start = may_start & (r == 1)
        if bool(start.any()):
            e_logp = proposal.entity_log_probs(c, self.entities, self.last_position, self.seen, self.n_seen, t)
            e = torch.multinomial(e_logp.exp(), 1, generator=generator).squeeze(1)
            e_before = self.entities[rows, e]
            l_logits = proposal.length(torch.cat([c, e_before], -1))
            fits = self.lengths[None, :] <= self.to_eos[:, t, None]
            l_logp = torch.log_softmax(l_logits.masked_fill(~fits, NEG_INF), dim=-1)
            length = torch.multinomial(l_logp.exp(), 1, generator=generator).squeeze(1)
            self.log_q += torch.where(start, e_logp[rows, e] + l_logp[rows, length], torch.zeros_like(self.log_q))
            self.current = torch.where(start, e, self.current)
            self.left = torch.where(start, length + 1, self.left)
            self.n_seen = torch.where(start & (e == self.n_seen), self.n_seen + 1, self.n_seen)
        k = record_step(self, t, continuing, start)
        in_mention = k >= 0
        if bool(in_mention.any()):
            mention_rows = rows[in_mention]
            kk = k[in_mention]
            self.entities[mention_rows, kk] = proposal.updated_entity(c[in_mention], self.entities[mention_rows, kk])
            self.last_position[mention_rows, kk] = t
            self.seen[mention_rows, kk] = True
        return self.log_q - log_q_before


class JointScorer:
    """The generative EntityNLM's log p(R_t, E_t, L_t, X_t | history) token by token for annotations that
    arrive one token at a time (``step``), with rows that can be resampled (``reindex``): the same terms as
    ``EntityNLM.forward`` (tested equal), without reading the whole annotation first."""

    @torch.no_grad()
    def __init__(self, model: EntityNLM, words: torch.Tensor, mask: torch.Tensor, copies: int = 1):
        if model.discriminative:
            raise ValueError("[spacy-entmem] the discriminative EntityNLM has no word distribution to score")
        self.model = model.eval()
        device = model.embedding.weight.device
        words, mask = words.to(device), mask.to(device)
        (G, T), K, D = words.shape, model.n_slots, model.lstm.hidden_size
        # ``copies`` annotations of each row; the LSTM reads each row once
        h = model.lstm(model.embedding(words))[0] if T else words.new_zeros(G, 0, D, dtype=torch.float)
        self.h, self.before = h, torch.cat([h.new_zeros(G, 1, D), h[:, :-1]], dim=1)  # h_t, h_{t−1}
        self.document = torch.arange(G, device=device).repeat_interleave(copies)
        self.words, self.mask = words[self.document], mask[self.document]
        B = len(self.words)
        self.predicted = predicted_tokens(self.words, self.mask)
        self.rows = torch.arange(B, device=device)
        self.r_table = model.r_bilinear(model.r_embedding.weight)
        self.entities = model.new_entities(B)
        self.last_position = torch.zeros(B, K, dtype=torch.long, device=device)
        self.seen = torch.zeros(B, K, dtype=torch.bool, device=device)
        self.n_seen = torch.zeros(B, dtype=torch.long, device=device)
        self.latest = h.new_zeros(B, D)  # e_current outside mentions: the last mentioned entity, updated
        self.previous_remaining = torch.zeros(B, dtype=torch.long, device=device)

    STATE = ("entities", "last_position", "seen", "n_seen", "latest", "previous_remaining")

    def reindex(self, rows: torch.Tensor) -> None:
        """Continue from rows ``rows`` of one document each (the words, so the LSTM states, are the same)."""
        for name in self.STATE:
            setattr(self, name, getattr(self, name)[rows])

    @torch.no_grad()
    def step(self, t: int, entity: torch.Tensor, remaining: torch.Tensor) -> torch.Tensor:
        """(B,) the joint log-probability of token t given its annotation ``entity``, ``remaining`` (B,)."""
        model, rows = self.model, self.rows
        entity, remaining = entity.to(self.words.device), remaining.to(self.words.device)
        context, zeros = self.before[self.document, t], self.latest.new_zeros(len(rows))
        decision = self.predicted[:, t] & ~(self.previous_remaining > 1)
        start = decision & (remaining > 0)
        self.previous_remaining = remaining
        r_logp = torch.log_softmax(context @ self.r_table.T, -1)
        joint = torch.where(decision, r_logp.gather(1, start.long()[:, None]).squeeze(1), zeros)
        k = entity.clamp(min=0)
        e_before = self.entities[rows, k]
        if bool(start.any()):
            e_logp = model.entity_log_probs(context, self.entities, self.last_position, self.seen, self.n_seen, t)
            length_logp = torch.log_softmax(model.length(torch.cat([context, e_before], -1)), -1)
            target = (remaining - 1).clamp(min=0, max=model.max_length - 1)
            joint = joint + torch.where(start, e_logp[rows, k] + length_logp[rows, target], zeros)
            self.n_seen = torch.where(start & (k == self.n_seen), self.n_seen + 1, self.n_seen)
        in_mention = (remaining > 0) & self.predicted[:, t]
        predicted = self.predicted[:, t]
        if bool(predicted.any()):
            current = torch.where(in_mention[:, None], e_before, self.latest)
            word = model.words(context[predicted] + model.entity_to_word(current[predicted]),
                               self.words[predicted, t]).output
            joint = joint.index_put((rows[predicted],), joint[predicted] + word)
        if bool(in_mention.any()):
            mention_rows, kk = rows[in_mention], k[in_mention]
            updated = model.updated_entity(self.h[self.document[in_mention], t], e_before[in_mention])
            self.entities[mention_rows, kk] = updated
            self.last_position[mention_rows, kk] = t
            self.seen[mention_rows, kk] = True
            self.latest[mention_rows] = updated
        return joint


class LocallyOptimalSampler:
    """Draws the mention variables from the generative model itself, one token at a time, with the locally
    optimal proposal of sequential Monte Carlo: where a mention may start, (R_t, E_t) is drawn from the model's
    posterior given the history *and the word at t*, q(r, e) ∝ p(R_t = r, E_t = e, X_t = x_t | history) (all
    choices enumerated: no mention, or a mention of each entity seen so far or a new one), and L_t from the
    model's p(L_t | …) over the lengths that fit the sentence; a mention's later tokens follow. Each step's
    importance weight p/q is then Σ_{r,e} p(r, e, x_t | history) (times the mass of the lengths that fit),
    the same for every draw, so the particles differ only in the histories they carry (Doucet & Johansen 2009,
    §4.1). Same interface as ``AnnotationSampler``; ``joint`` holds the generative joint log p of the sampled
    annotation at the last step (read by ``smc_log_marginals`` instead of a second ``JointScorer``)."""

    @torch.no_grad()
    def __init__(self, model: EntityNLM, batch: EntityBatch, generator: Optional[torch.Generator] = None,
                 copies: int = 1):
        self.scorer = JointScorer(model, batch.words, batch.mask, copies)  # the model's state, advanced per step
        self.model, self.generator = self.scorer.model, generator
        words = self.scorer.words
        self.entity = torch.full_like(words, -1)
        self.remaining = torch.zeros_like(words)
        self.log_q = self.scorer.latest.new_zeros(len(words))
        self.is_eos = words == EOS
        self.to_eos = tokens_before_eos(self.is_eos)
        self.lengths = torch.arange(1, model.max_length + 1, device=words.device)
        self.current = torch.full((len(words),), -1, dtype=torch.long, device=words.device)
        self.left = torch.zeros_like(self.current)
        self.joint = self.log_q.clone()

    STATE = ("entity", "remaining", "log_q", "current", "left")

    def reindex(self, rows: torch.Tensor) -> None:
        """Continue from the samples ``rows`` (see ``AnnotationSampler.reindex``); the model's state with them."""
        for name in self.STATE:
            setattr(self, name, getattr(self, name)[rows])
        self.scorer.reindex(rows)

    def choices(self, t: int, context: torch.Tensor, may_start: torch.Tensor):
        """(B, 1 + W) log p(R_t, E_t, lengths that fit, X_t | history) of [no mention, entity 0..W−1], and
        (B, W, max_length) log p(L_t | E_t), NEG_INF for the lengths that do not fit the sentence."""
        model, state = self.model, self.scorer
        K = model.n_slots
        word = state.words[:, t]
        r_logp = torch.log_softmax(context @ state.r_table.T, -1)
        no_mention = r_logp[:, 0] + model.words(context + model.entity_to_word(state.latest), word).output
        e_logp = model.entity_log_probs(context, state.entities, state.last_position, state.seen, state.n_seen, t)
        W = e_logp.shape[1]
        candidates = state.entities[:, :W]
        length_logp = torch.log_softmax(model.length(torch.cat([context[:, None].expand(-1, W, -1), candidates],
                                                                -1)), -1)
        fits = self.lengths[None, :] <= self.to_eos[:, t, None]
        fit_mass = torch.logsumexp(length_logp.masked_fill(~fits[:, None, :], float("-inf")), -1)
        allowed = (torch.arange(W, device=word.device)[None, :] <= state.n_seen.clamp(max=K - 1)[:, None]) \
            & may_start[:, None] & fits.any(-1, keepdim=True)
        b, k = torch.nonzero(allowed, as_tuple=True)
        mention = context.new_full((len(word), W), float("-inf"))
        if len(b):
            word_logp = model.words(context[b] + model.entity_to_word(candidates[b, k]), word[b]).output
            mention = mention.index_put((b, k), r_logp[b, 1] + e_logp[b, k] + fit_mass[b, k] + word_logp)
        return torch.cat([no_mention[:, None], mention], 1), length_logp.masked_fill(~fits[:, None, :], NEG_INF)

    @torch.no_grad()
    def step(self, t: int) -> torch.Tensor:
        """Sample the annotation of token t and advance the model's state. Returns log q at t (B,)."""
        state = self.scorer
        rows = state.rows
        context = state.before[state.document, t]
        predicted = state.predicted[:, t]
        continuing = predicted & (self.left > 1)
        decision = predicted & ~continuing
        may_start = decision & ~self.is_eos[:, t]
        zeros = self.log_q.new_zeros(len(rows))
        step_q = zeros
        start = torch.zeros_like(decision)
        if bool(decision.any()):
            options, length_logp = self.choices(t, context, may_start)
            option_logq = torch.log_softmax(options, -1)
            choice = torch.multinomial(option_logq.exp(), 1, generator=self.generator).squeeze(1)
            start = decision & (choice > 0)
            step_q = torch.where(decision, option_logq[rows, choice], zeros)
            if bool(start.any()):
                e = (choice - 1).clamp(min=0)
                l_logp = torch.log_softmax(length_logp[rows, e], -1)
                length = torch.multinomial(l_logp.exp(), 1, generator=self.generator).squeeze(1)
                step_q = step_q + torch.where(start, l_logp[rows, length], zeros)
                self.current = torch.where(start, e, self.current)
                self.left = torch.where(start, length + 1, self.left)
        entity = record_step(self, t, continuing, start)
        self.joint = state.step(t, entity, self.left)
        self.log_q += step_q
        return step_q


def sample_annotations(proposal: EntityNLM, batch: EntityBatch, generator: Optional[torch.Generator] = None):
    """One sample of the mention variables per row of ``batch`` from the discriminative ``proposal``
    Q(R, E, L | X), reading left to right (see ``AnnotationSampler``): (entity (B, T), remaining (B, T),
    log q (B,))."""
    sampler = AnnotationSampler(proposal, batch, generator)
    for t in range(batch.words.shape[1]):
        sampler.step(t)
    return sampler.entity, sampler.remaining, sampler.log_q


def log_mean_exp(values: torch.Tensor) -> torch.Tensor:
    return torch.logsumexp(values, 0) - math.log(len(values))


def effective_sample_size(log_weights: torch.Tensor) -> float:
    """(Σw)² / Σw² of the weights exp(log_weights)."""
    return float(1.0 / (torch.softmax(log_weights, 0) ** 2).sum())


@torch.no_grad()
def smc_log_marginals(generative: EntityNLM, proposal: Optional[EntityNLM], documents: EntityBatch, n_particles: int,
                      generator: Optional[torch.Generator] = None, resample_below: float = 0.0,
                      every_token: bool = False) -> List[Dict[str, float]]:
    """log p(X) of each document (row) of ``documents``, from ``n_particles`` annotations per document drawn
    from the proposal token by token and weighted by the generative model's p(X, R, E, L) over Q's.

    With ``resample_below`` 0 this is importance sampling (the paper's §5.1). Above 0 it is sequential Monte
    Carlo: at each sentence end of a document whose weights' effective sample size is below
    ``resample_below`` × N, its particles are resampled (multinomially) and its weights reset; the estimate
    of p(X) (the product over resampling points of the mean weight) is unbiased as importance sampling's, but
    no longer lets one sample carry a whole long document; ``every_token``: the check is made after every
    token instead (still unbiased: the state carried includes the mention in progress). ``proposal`` None:
    the generative model's locally optimal proposal (``LocallyOptimalSampler``) instead of the discriminative
    EntityNLM. Per document: the log-likelihood, how many times its particles were resampled, the effective
    sample size of its last weights, and ``prefix``: (T,) the estimate of log p(x_1..x_t) after each step t (the
    same estimator stopped there), whose differences estimate log p(x_t | x_<t) and sum to the log-likelihood."""
    G, T = documents.words.shape
    if proposal is None:
        sampler = LocallyOptimalSampler(generative, documents, generator, copies=n_particles)
        scorer = sampler.scorer
    else:
        sampler = AnnotationSampler(proposal, documents, generator, copies=n_particles)
        scorer = JointScorer(generative, documents.words, documents.mask, copies=n_particles)
    log_w = scorer.latest.new_zeros(G, n_particles)
    log_z = [0.0] * G
    resamples = [0] * G
    predicted = documents.predicted()
    last = [int(torch.nonzero(p).max()) if bool(p.any()) else -1 for p in predicted]
    ends = predicted if every_token else (documents.words == EOS) & predicted
    offsets = torch.arange(G, device=log_w.device)[:, None] * n_particles
    prefix = numpy.zeros((G, T))
    for t in range(T):
        log_q = sampler.step(t)
        log_p = sampler.joint if proposal is None else scorer.step(t, sampler.entity[:, t], sampler.remaining[:, t])
        log_w += (log_p - log_q.to(log_w.device)).view(G, -1)
        prefix[:, t] = numpy.asarray(log_z) + (torch.logsumexp(log_w.double(), 1) - math.log(n_particles)).cpu().numpy()
        if resample_below <= 0:
            continue
        chosen = torch.arange(G * n_particles, device=log_w.device).view(G, -1)
        moved = False
        for g in torch.nonzero(ends[:, t]).flatten().tolist():
            if t >= last[g] or effective_sample_size(log_w[g]) >= resample_below * n_particles:
                continue
            log_z[g] += float(log_mean_exp(log_w[g].double()))
            chosen[g] = offsets[g] + torch.multinomial(torch.softmax(log_w[g], 0), n_particles, replacement=True,
                                                       generator=generator).to(log_w.device)
            log_w[g] = 0.0
            resamples[g] += 1
            moved = True
        if moved:
            sampler.reindex(chosen.flatten().to(sampler.entity.device))
            if proposal is not None:  # else the sampler's own scorer moved with it
                scorer.reindex(chosen.flatten())
    return [{"log_likelihood": log_z[g] + float(log_mean_exp(log_w[g].double())), "resamples": resamples[g],
             "ess": effective_sample_size(log_w[g]), "prefix": prefix[g]} for g in range(G)]
