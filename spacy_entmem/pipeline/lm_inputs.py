"""Docs → the token sequences of the entity language models (no torch here).

Anonymisation (the Dynamic Neural Text Model's "Anonymized LM"): the coreference chains of a doc (clusters
in ``{prefix}_N`` span groups with at least ``min_mentions`` mentions; LitBank and GUM annotate singletons,
which the paper's OntoNotes chains never are) get slots 0, 1, … in order of first appearance (of their first
mention that is kept, below); the first ``n_slots`` chains are anonymised, later ones stay words. Each of their mentions becomes one entity token
``[k]``; of overlapping mentions the outermost (then the earliest) is kept, so "[his] mother" of another
chain stays "[k] mother" only when "his mother" is not itself anonymised.

EntityNLM keeps the words (``anonymise=False``): every token of a kept mention carries its entity slot and
``remaining`` (L_t, the mention's LM tokens left including this one); a mention of more than ``max_length``
LM tokens is not a mention (EntityNLM's ℓ_max).

Words are lowercased (``token.lower_``) and looked up in a closed vocabulary (unknown: ``UNKNOWN``); white
space tokens are skipped. Sentences (the doc's own, else a punctuation rule) become ``<bos> … <eos>``.
"""
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.tokens import Doc

from ..nn.lm.dntm import BOS, ENTITY, EOS, N_SPECIAL, NO_ENTITY, UNKNOWN
from ..training.targets import cluster_groups
from ..linguistics.sentences import sentence_lengths

# token groups of the Dynamic Neural Text Model's Table 2 (a predicted token may be in several)
GROUPS = ("all", "reappearing", "following", "non_entity")
NO_TOKEN = -1  # BOS / EOS are no token of the doc


@dataclass
class LMDocument:
    """One doc as LM input: per sentence the word ids, entity slots, and the doc token each LM token stands
    for (an anonymised mention's first token; NO_TOKEN for BOS / EOS); without anonymisation also the
    mention tokens left (``remaining``, 0 outside mentions)."""

    words: List[numpy.ndarray] = field(default_factory=list)
    slots: List[numpy.ndarray] = field(default_factory=list)
    tokens: List[numpy.ndarray] = field(default_factory=list)
    remaining: List[numpy.ndarray] = field(default_factory=list)

    def sentences(self, start: int, end: int) -> "LMDocument":
        """Sentences ``start`` to ``end`` (exclusive) as a document."""
        return LMDocument(self.words[start:end], self.slots[start:end], self.tokens[start:end],
                          self.remaining[start:end])

    @property
    def n_predicted(self) -> int:
        return sum(max(len(w) - 1, 0) for w in self.words)

    def groups(self) -> Dict[str, numpy.ndarray]:
        """Boolean masks over the concatenated predicted tokens (every sentence without its BOS)."""
        slots = numpy.concatenate([s[1:] for s in self.slots]) if self.slots else numpy.zeros(0, "int64")
        previous = numpy.concatenate([s[:-1] for s in self.slots]) if self.slots else numpy.zeros(0, "int64")
        seen, reappearing = set(), numpy.zeros(len(slots), dtype=bool)
        for i, slot in enumerate(slots.tolist()):
            if slot != NO_ENTITY:
                reappearing[i] = slot in seen
                seen.add(slot)
        return {"all": numpy.ones(len(slots), dtype=bool), "reappearing": reappearing,
                "following": previous != NO_ENTITY, "non_entity": slots == NO_ENTITY}


def perplexity(total_logprob: float, n_tokens: int) -> Optional[float]:
    """exp(− total / n); None when nothing was scored."""
    return math.exp(-total_logprob / n_tokens) if n_tokens else None


def group_perplexities(lm_docs: Iterable[LMDocument], logps: Iterable[numpy.ndarray]) -> Tuple[Dict, Dict]:
    """({group: perplexity}, {group: tokens}) over documents and their per-predicted-token log p (``GROUPS``)."""
    totals = {group: [0.0, 0] for group in GROUPS}
    for lm_doc, logp in zip(lm_docs, logps):
        for group, mask in lm_doc.groups().items():
            totals[group][0] += float(logp[mask].sum())
            totals[group][1] += int(mask.sum())
    return ({group: perplexity(total, n) for group, (total, n) in totals.items()},
            {group: n for group, (_, n) in totals.items()})


class LMVocabulary:
    """A closed word vocabulary: the special tokens, then words by frequency."""

    def __init__(self, words: Iterable[str]):
        self.words = list(words)
        self.ids = {word: i for i, word in enumerate(self.words, start=N_SPECIAL)}

    def __len__(self) -> int:
        return N_SPECIAL + len(self.words)

    def __call__(self, word: str) -> int:
        return self.ids.get(word, UNKNOWN)

    @classmethod
    def count(cls, docs: Iterable[Doc], size: int) -> "LMVocabulary":
        """The ``size − N_SPECIAL`` most frequent lowercased words (ties: first seen)."""
        if size <= N_SPECIAL:
            raise ValueError(f"[spacy-entmem] the LM vocabulary size must be more than {N_SPECIAL}, got {size}")
        counts = Counter(t.lower_ for doc in docs for t in doc if not t.is_space)
        return cls(word for word, _ in counts.most_common(size - N_SPECIAL))


def chains(doc: Doc, prefix: str, n_slots: int, min_mentions: int = 2) -> List[Tuple[str, List[Tuple[int, int]]]]:
    """(span key, sorted (start, end) mentions) of the first ``n_slots`` chains of at least ``min_mentions``
    mentions, in order of first appearance: chain i is entity slot i."""
    found = []
    for _, key in cluster_groups(doc, prefix):
        spans = sorted({(span.start, span.end) for span in doc.spans[key]})
        if len(spans) >= min_mentions:
            found.append((key, spans))
    found.sort(key=lambda item: item[1][0])
    return found[:n_slots]


def chain_keys(doc: Doc, prefix: str, n_slots: int, min_mentions: int = 2,
               max_length: Optional[int] = None) -> List[str]:
    """The span key of each entity slot."""
    return slotted_mentions(doc, prefix, n_slots, min_mentions, max_length)[0]


def anonymised_mentions(doc: Doc, prefix: str, n_slots: int, min_mentions: int = 2,
                        max_length: Optional[int] = None) -> Dict[int, Tuple[int, int]]:
    """{start: (end, slot)} of the mentions that become entity tokens (see the module docstring)."""
    return slotted_mentions(doc, prefix, n_slots, min_mentions, max_length)[1]


def slotted_mentions(doc: Doc, prefix: str, n_slots: int, min_mentions: int = 2,
                     max_length: Optional[int] = None) -> Tuple[List[str], Dict[int, Tuple[int, int]]]:
    """(span key of each slot, {start: (end, slot)} of the kept mentions). Mentions of more than
    ``max_length`` LM tokens are dropped first (EntityNLM's ℓ_max); of overlapping mentions the outermost
    (then the earliest) is kept; slots are then numbered in order of each chain's first *kept* mention, and a
    chain with none kept gets no slot, so the slot of every new entity is the number of entities seen before
    it (EntityNLM's E_t is a new entity or one of those seen; numbering by dropped first mentions made gold E_t
    impossible in nested LitBank / GUM text)."""
    found = chains(doc, prefix, n_slots, min_mentions)
    mentions = sorted((start, -end, chain) for chain, (_, spans) in enumerate(found) for start, end in spans
                      if max_length is None or sum(not t.is_space for t in doc[start:end]) <= max_length)
    kept: Dict[int, Tuple[int, int]] = {}
    covered_until = 0
    for start, neg_end, chain in mentions:
        if start >= covered_until:
            kept[start] = (-neg_end, chain)
            covered_until = -neg_end
    slot_of: Dict[int, int] = {}
    for start in sorted(kept):
        slot_of.setdefault(kept[start][1], len(slot_of))
    keys = [found[chain][0] for chain in slot_of]
    return keys, {start: (end, slot_of[chain]) for start, (end, chain) in kept.items()}


def lm_document(doc: Doc, vocab: LMVocabulary, prefix: str = "coref_clusters", n_slots: int = 50,
                min_mentions: int = 2, mentions: Optional[Dict[int, Tuple[int, int]]] = None,
                anonymise: bool = True, max_length: int = 25) -> LMDocument:
    """The doc as LM input (``mentions`` overrides the mentions read from ``doc.spans``)."""
    if mentions is None:
        mentions = anonymised_mentions(doc, prefix, n_slots, min_mentions, None if anonymise else max_length)
    sentence_of = numpy.repeat(numpy.arange(len(sentence_lengths(doc))), sentence_lengths(doc))
    out = LMDocument()
    rows: List[Tuple[int, int, int, int]] = []  # (word, slot, token, remaining) of the current sentence

    def close_sentence():
        if len(rows) > 1:
            rows.append((EOS, NO_ENTITY, NO_TOKEN, 0))
            for column, values in zip((out.words, out.slots, out.tokens, out.remaining), zip(*rows)):
                column.append(numpy.asarray(values, dtype="int64"))

    i, current, mention_start, mention_end, slot, left = 0, -1, 0, 0, NO_ENTITY, 0
    while i < len(doc):
        if sentence_of[i] != current:
            close_sentence()
            rows, current = [(BOS, NO_ENTITY, NO_TOKEN, 0)], sentence_of[i]
        if i in mentions and i >= mention_end:
            mention_start, (mention_end, slot) = i, mentions[i]
            if anonymise:
                rows.append((ENTITY, slot, i, 0))
                i = mention_end
                continue
        inside = i < mention_end
        if inside and (i == mention_start or rows[-1][0] == BOS):  # a mention never runs across sentences
            left = sum(not t.is_space and sentence_of[t.i] == current for t in doc[i:mention_end])
        if not doc[i].is_space:
            rows.append((vocab(doc[i].lower_), slot if inside else NO_ENTITY, i, left if inside else 0))
            left -= inside
        i += 1
    if len(doc):
        close_sentence()
    return out
