"""neuralcoref-style extension attributes, as getters over ``doc.spans`` and the memory log so they
survive ``DocBin`` and multiprocessing. Cluster span groups are recognised by their ``attrs``."""
import weakref
from typing import Dict, List, Optional, Tuple

import numpy

from spacy.tokens import Doc, Span, SpanGroup, Token

from .memory_log import ACTIONS

ROLE = "entity_memory"  # SpanGroup.attrs key: "cluster" or "mentions"
PRONOUNS = {
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "he", "him", "his", "himself",
    "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our", "ours", "ourselves",
    "they", "them", "their", "theirs", "themselves", "this", "that", "these", "those", "who", "whom",
    "whose", "which",
}
POSSESSIVES = {"my", "your", "his", "her", "its", "our", "their", "whose"}


def coref_clusters(doc: Doc) -> List[SpanGroup]:
    groups = [g for g in doc.spans.values() if g.attrs.get(ROLE) == "cluster"]
    return sorted(groups, key=lambda g: g.attrs.get("index", 0))


def coref_mentions(doc: Doc) -> Optional[SpanGroup]:
    for group in doc.spans.values():
        if group.attrs.get(ROLE) == "mentions":
            return group
    return None


def main_mention(group: SpanGroup) -> Span:
    """The cluster's representative mention: its first mention that is not a pronoun (else the first)."""
    index = group.attrs.get("main", 0)
    return group[index] if 0 <= index < len(group) else group[0]


def choose_main(spans: List[Span]) -> int:
    for i, span in enumerate(spans):
        if span.text.lower() not in PRONOUNS:
            return i
    return 0


POSSESSIVE_ONLY = {"my", "your", "his", "its", "our", "their", "whose"}  # "her" is also an object
NOT_A_NOUN_AFTER_HER = {
    "to", "and", "or", "but", "in", "of", "at", "with", "for", "by", "from", "as", "that", "than", "on", "up",
    "down", "out", "off", "away", "back", "again", "so", "if", "when", "too", "very", "a", "an", "the", "this",
    "it", "is", "was", "be", "had", "have", "not",
}
ARTICLES = {"the", "a", "an", "this", "that", "these", "those"}


def is_possessive_pronoun(token: Token) -> bool:
    """Whether a pronoun token is a possessive determiner ("his", "her book"): the tagger's PRP$ when the
    doc has tags, else the word ("her" only when a word that may start a noun phrase follows)."""
    if token.doc.has_annotation("TAG") and token.tag_:
        return token.tag_ == "PRP$" or token.tag_ == "WP$"
    word = token.lower_
    if word in POSSESSIVE_ONLY:
        return True
    if word != "her" or token.i + 1 >= len(token.doc):
        return False
    following = token.doc[token.i + 1]
    return following.is_alpha and following.lower_ not in NOT_A_NOUN_AFTER_HER


def _base_name(main: Span) -> str:
    """The main mention's text without a trailing possessive ('s, ’s or a lone apostrophe)."""
    tokens = list(main)
    if len(tokens) > 1 and tokens[-1].lower_ in ("'s", "’s", "'", "’"):
        tokens = tokens[:-1]
    return "".join(t.text_with_ws for t in tokens).strip()


def _replacement(pronoun: Token, main: Span) -> str:
    text = _base_name(main)
    first = main[0]
    sentence_initial = pronoun.i == 0 or pronoun.is_sent_start or pronoun.doc[pronoun.i - 1].text in ".!?\"“\n"
    if first.lower_ in ARTICLES:  # "The doctor" → "the doctor" mid-sentence, "The doctor" at a sentence start
        text = (text[0].upper() if sentence_initial else text[0].lower()) + text[1:]
    if is_possessive_pronoun(pronoun):
        text += "'" if text.endswith("s") and main[-1].lower_ in ("'", "’") else "'s"
    return text


def coref_resolved(doc: Doc) -> str:
    """The text with each pronoun mention replaced by its cluster's main mention: possessive pronouns
    become the name's possessive ("his" → "Turing's", never "Turing's's"), object and subject pronouns the
    name itself. Other mentions keep their words."""
    replacements = {}
    for group in coref_clusters(doc):
        main = main_mention(group)
        if main.text.lower() in PRONOUNS:
            continue  # a cluster of pronouns only: nothing to resolve them to
        for span in group:
            if len(span) == 1 and span.text.lower() in PRONOUNS - {"this", "that", "these", "those", "which"} \
                    and not (main.start <= span.start < main.end):
                replacements[span.start] = _replacement(span[0], main)
    return "".join(replacements[t.i] + t.whitespace_ if t.i in replacements else t.text_with_ws for t in doc)


class DocIndex:
    """Lookups over one doc's clusters and memory log, built once: each mention span's cluster, each
    token's clusters, and the memory step that ends at each token."""

    def __init__(self, doc: Doc, clusters: List[SpanGroup]):
        self.span_cluster: Dict[Tuple[int, int], SpanGroup] = {}
        self.token_clusters: Dict[int, List[SpanGroup]] = {}
        for group in clusters:
            for span in group:
                self.span_cluster.setdefault((span.start, span.end), group)
                for i in range(span.start, span.end):
                    members = self.token_clusters.setdefault(i, [])
                    if not members or members[-1] is not group:
                        members.append(group)
        log = doc._.entity_memory_log
        self.token_step = None
        if log is not None and "spans" in log:  # span models: the first step whose candidate ends at the token
            ends = numpy.asarray(log["spans"]).reshape(-1, 2)[:, 1] - 1
            self.token_step = numpy.full(len(doc), -1, dtype="int64")
            unique_ends, first_steps = numpy.unique(ends, return_index=True)
            inside = (unique_ends >= 0) & (unique_ends < len(doc))
            self.token_step[unique_ends[inside]] = first_steps[inside]


_INDEXES: "weakref.WeakKeyDictionary[Doc, Tuple[tuple, DocIndex]]" = weakref.WeakKeyDictionary()


def doc_index(doc: Doc) -> DocIndex:
    """The doc's :class:`DocIndex`, rebuilt only when its cluster groups or memory log change."""
    clusters = coref_clusters(doc)
    log = doc._.entity_memory_log
    signature = (tuple((id(g), len(g)) for g in clusters), id(log), len(doc))
    cached = _INDEXES.get(doc)
    if cached is None or cached[0] != signature:
        cached = (signature, DocIndex(doc, clusters))
        _INDEXES[doc] = cached
    return cached[1]


def span_cluster(span: Span) -> Optional[SpanGroup]:
    return doc_index(span.doc).span_cluster.get((span.start, span.end))


def token_clusters(token: Token) -> List[SpanGroup]:
    return list(doc_index(token.doc).token_clusters.get(token.i, ()))


def _log_value(token: Token, key: str):
    log = token.doc._.entity_memory_log
    if log is None or key not in log:
        return None
    if "spans" not in log:
        return log[key][token.i]
    step = doc_index(token.doc).token_step[token.i]  # span model: the innermost candidate ending here
    return log[key][step] if step >= 0 else None


def token_action(token: Token) -> Optional[str]:
    value = _log_value(token, "action")
    return None if value is None else ACTIONS[int(value)]


def token_cell(token: Token) -> Optional[int]:
    value = _log_value(token, "cell")
    return None if value is None or int(value) < 0 else int(value)


def token_entity_prob(token: Token) -> Optional[float]:
    value = _log_value(token, "entity")
    return None if value is None else float(value)


def register_extensions() -> None:
    """Register every attribute once (idempotent)."""
    doc_attrs = {
        "coref_clusters": coref_clusters,
        "coref_mentions": coref_mentions,
        "has_coref": lambda doc: bool(coref_clusters(doc)),
        "coref_resolved": coref_resolved,
    }
    for name, getter in doc_attrs.items():
        if not Doc.has_extension(name):
            Doc.set_extension(name, getter=getter)
    for name in ("entity_memory_log", "entity_count"):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    span_attrs = {"coref_cluster": span_cluster, "is_coref": lambda span: span_cluster(span) is not None}
    for name, getter in span_attrs.items():
        if not Span.has_extension(name):
            Span.set_extension(name, getter=getter)
    token_attrs = {
        "coref_clusters": token_clusters,
        "in_coref": lambda token: bool(token_clusters(token)),
        "memory_action": token_action,
        "memory_cell": token_cell,
        "entity_prob": token_entity_prob,
    }
    for name, getter in token_attrs.items():
        if not Token.has_extension(name):
            Token.set_extension(name, getter=getter)
