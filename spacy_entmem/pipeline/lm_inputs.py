"""Docs → the token sequences of the entity language models (no torch here).

Anonymisation (the Dynamic Neural Text Model's "Anonymized LM"): the coreference chains of a doc (clusters
in ``{prefix}_N`` span groups with at least ``min_mentions`` mentions; LitBank and GUM annotate singletons,
which the paper's OntoNotes chains never are) get slots 0, 1, … in order of first appearance; the first
``n_slots`` chains are anonymised, later ones stay words. Each of their mentions becomes one entity token
``[k]``; of overlapping mentions the outermost (then the earliest) is kept, so "[his] mother" of another
chain stays "[k] mother" only when "his mother" is not itself anonymised.

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
from .sentences import sentence_lengths

# token groups of the Dynamic Neural Text Model's Table 2 (a predicted token may be in several)
GROUPS = ("all", "reappearing", "following", "non_entity")
NO_TOKEN = -1  # BOS / EOS are no token of the doc


@dataclass
class LMDocument:
    """One doc as LM input: per sentence the word ids, entity slots, and the doc token each LM token stands
    for (a mention's first token; NO_TOKEN for BOS / EOS)."""

    words: List[numpy.ndarray] = field(default_factory=list)
    slots: List[numpy.ndarray] = field(default_factory=list)
    tokens: List[numpy.ndarray] = field(default_factory=list)

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


def anonymised_mentions(doc: Doc, prefix: str, n_slots: int, min_mentions: int = 2) -> Dict[int, Tuple[int, int]]:
    """{start: (end, slot)} of the mentions that become entity tokens (see the module docstring)."""
    chains = []
    for _, key in cluster_groups(doc, prefix):
        spans = sorted({(span.start, span.end) for span in doc.spans[key]})
        if len(spans) >= min_mentions:
            chains.append(spans)
    chains.sort(key=lambda spans: spans[0])
    mentions = sorted(((start, -end, slot) for slot, spans in enumerate(chains[:n_slots]) for start, end in spans))
    kept: Dict[int, Tuple[int, int]] = {}
    covered_until = 0
    for start, neg_end, slot in mentions:
        if start >= covered_until:
            kept[start] = (-neg_end, slot)
            covered_until = -neg_end
    return kept


def lm_document(doc: Doc, vocab: LMVocabulary, prefix: str = "coref_clusters", n_slots: int = 50,
                min_mentions: int = 2, mentions: Optional[Dict[int, Tuple[int, int]]] = None) -> LMDocument:
    """The doc as LM input (``mentions`` overrides the anonymised mentions read from ``doc.spans``)."""
    if mentions is None:
        mentions = anonymised_mentions(doc, prefix, n_slots, min_mentions)
    sentence_of = numpy.repeat(numpy.arange(len(sentence_lengths(doc))), sentence_lengths(doc))
    out = LMDocument()
    words: List[int] = []
    slots: List[int] = []
    tokens: List[int] = []

    def close_sentence():
        if len(words) > 1:
            out.words.append(numpy.asarray(words + [EOS], dtype="int64"))
            out.slots.append(numpy.asarray(slots + [NO_ENTITY], dtype="int64"))
            out.tokens.append(numpy.asarray(tokens + [NO_TOKEN], dtype="int64"))

    i, current = 0, -1
    while i < len(doc):
        if sentence_of[i] != current:
            close_sentence()
            words, slots, tokens, current = [BOS], [NO_ENTITY], [NO_TOKEN], sentence_of[i]
        if i in mentions:
            end, slot = mentions[i]
            words.append(ENTITY)
            slots.append(slot)
            tokens.append(i)
            i = end
            continue
        if not doc[i].is_space:
            words.append(vocab(doc[i].lower_))
            slots.append(NO_ENTITY)
            tokens.append(i)
        i += 1
    if len(doc):
        close_sentence()
    return out
