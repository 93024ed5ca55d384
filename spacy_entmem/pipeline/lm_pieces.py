"""Docs → the sub-word pieces of a pretrained LM's tokenizer, aligned with spaCy tokens (no torch here).

A piece is attributed to the spaCy token holding its first non-space character (a piece that spans two
tokens, such as "'s" glued to a word by the tokenizer, counts for the first; a piece of white space only
counts for the next token, as byte-level BPE attaches a space to the word after it, and for no token at the
end of the text), so ``Token._.lm_logprob`` is the sum of its pieces' log p and the doc's total is the
sum over all pieces. Each piece carries the entity of its token: the cluster of the innermost mention that
holds the token (nested mentions: the smallest one wins; entities numbered 1, 2, … in order of first
mention; 0 = none; ``entity_lm_scorer`` counts clusters of at least ``min_mentions`` mentions, 2 by default,
so gold singletons look like what a coreference model outputs).
"""
from dataclasses import dataclass
from typing import List, Optional

import numpy
from spacy.tokens import Doc

from ..training.targets import cluster_groups

NO_TOKEN = -1


@dataclass
class PieceDocument:
    """A doc as LM pieces: ids (n,), the doc token of each piece (NO_TOKEN: white space at the end), the entity of each
    piece (0: none), and the number of words (non-space tokens) per-word perplexity divides by."""

    ids: numpy.ndarray
    tokens: numpy.ndarray
    entities: numpy.ndarray
    n_words: int

    @property
    def n_predicted(self) -> int:
        return len(self.ids)


def token_entities(doc: Doc, prefix: str = "coref_clusters", min_mentions: int = 1) -> numpy.ndarray:
    """Per token, the entity of the innermost mention holding it (0: none); entities in order of first mention;
    clusters of fewer than ``min_mentions`` mentions are no entity."""
    clusters = [sorted({(span.start, span.end) for span in doc.spans[key]}) for _, key in cluster_groups(doc, prefix)]
    clusters = sorted((c for c in clusters if c and len(c) >= min_mentions), key=lambda spans: spans[0])
    entity = numpy.zeros(len(doc), dtype="int64")
    width = numpy.full(len(doc), numpy.iinfo("int64").max)
    for k, spans in enumerate(clusters, start=1):
        for start, end in spans:
            inner = width[start:end] > end - start
            entity[start:end][inner] = k
            width[start:end][inner] = end - start
    return entity


def piece_document(doc: Doc, tokenizer, prefix: str = "coref_clusters", min_mentions: int = 1) -> PieceDocument:
    """The doc's text as the tokenizer's pieces (no special tokens), each with its token and entity (see
    ``token_entities``)."""
    encoded = tokenizer(doc.text, add_special_tokens=False, return_offsets_mapping=True)
    token_at = numpy.full(len(doc.text) + 1, NO_TOKEN, dtype="int64")
    for token in doc:
        if not token.is_space:
            token_at[token.idx: token.idx + len(token)] = token.i
    tokens = numpy.full(len(encoded["input_ids"]), NO_TOKEN, dtype="int64")
    for i, (start, end) in enumerate(encoded["offset_mapping"]):
        chars = token_at[start:max(end, start + 1)]
        found = chars[chars != NO_TOKEN]
        tokens[i] = found[0] if len(found) else NO_TOKEN
    for i in range(len(tokens) - 2, -1, -1):  # white space counts for the token after it
        if tokens[i] == NO_TOKEN:
            tokens[i] = tokens[i + 1]
    entities = numpy.zeros(len(tokens), dtype="int64")
    if len(doc):
        per_token = token_entities(doc, prefix, min_mentions)
        entities[tokens != NO_TOKEN] = per_token[tokens[tokens != NO_TOKEN]]
    return PieceDocument(numpy.asarray(encoded["input_ids"], dtype="int64"), tokens, entities,
                         sum(not t.is_space for t in doc))


def token_log_probs(piece_doc: PieceDocument, logp: numpy.ndarray, n_tokens: int) -> List[Optional[float]]:
    """Per doc token, the sum of its pieces' log p (None for a token with no piece: white space)."""
    sums = numpy.zeros(n_tokens)
    has = numpy.zeros(n_tokens, dtype=bool)
    attributed = piece_doc.tokens != NO_TOKEN
    numpy.add.at(sums, piece_doc.tokens[attributed], logp[attributed])
    has[piece_doc.tokens[attributed]] = True
    return [float(s) if h else None for s, h in zip(sums, has)]
