"""neuralcoref-style extension attributes, as getters over ``doc.spans`` and the memory log so they
survive ``DocBin`` and multiprocessing. Cluster span groups are recognised by their ``attrs``."""
from typing import List, Optional

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


def coref_resolved(doc: Doc) -> str:
    """The text with each mention replaced by its cluster's main mention (possessives keep 's)."""
    replacements = {}
    for group in coref_clusters(doc):
        main = main_mention(group)
        for span in group:
            if span.start == main.start and span.end == main.end:
                continue
            text = main.text
            if span.text.lower() in POSSESSIVES:
                text += "'s"
            replacements[span.start] = (span.end, text)
    pieces = []
    i = 0
    while i < len(doc):
        if i in replacements:
            end, text = replacements[i]
            pieces.append(text + doc[end - 1].whitespace_)
            i = end
        else:
            pieces.append(doc[i].text_with_ws)
            i += 1
    return "".join(pieces)


def span_cluster(span: Span) -> Optional[SpanGroup]:
    for group in coref_clusters(span.doc):
        if any(s.start == span.start and s.end == span.end for s in group):
            return group
    return None


def token_clusters(token: Token) -> List[SpanGroup]:
    return [g for g in coref_clusters(token.doc) if any(s.start <= token.i < s.end for s in g)]


def _log_value(token: Token, key: str):
    log = token.doc._.entity_memory_log
    if log is None or key not in log:
        return None
    if "spans" not in log:
        return log[key][token.i]
    # span model: the step of the innermost candidate that ends at this token, if any
    steps = [t for t, (_, end) in enumerate(log["spans"].tolist()) if end == token.i + 1]
    return log[key][steps[0]] if steps else None


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
