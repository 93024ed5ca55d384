"""The span groups a memory writes (one per cluster, ``{prefix}_{i}``, and one of all its mentions with their
entity ids), and the one change made to them afterwards: the pronoun resolver moving the pronoun it was asked
about to the entity of the name it answered (``align_pronoun``), so that its answer and the clusters agree."""
import re
from typing import List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span, SpanGroup

from .attributes import ROLE, choose_main, coref_mentions
from .memory_log import Mention, MemoryLog, group_clusters_by_entity
from ..linguistics.syntax import span_root

TokenRange = Tuple[int, int]


def seen_before(log: Optional[MemoryLog]) -> int:
    """The first entity id of this text (ids below it were given by earlier texts of a stream); 0 alone."""
    return int(log["first_entity"][0]) if log is not None and "first_entity" in log else 0


def write_clusters(doc: Doc, mentions: List[Mention], prefix: str, mentions_key: str, first_entity: int = 0) -> None:
    """Replace the doc's groups ``{prefix}_{i}`` and ``mentions_key`` by ``mentions`` (start, end, entity id):
    the mentions group (``attrs["entity_ids"]``), then one group per entity with more than one mention here, or
    one mention and an id below ``first_entity`` (an earlier text of the stream mentioned it), in the order of
    their first mention."""
    pattern = re.compile(rf"^{re.escape(prefix)}_\d+$")
    for key in [key for key in doc.spans if pattern.match(key) or key == mentions_key]:  # never mix old and new
        del doc.spans[key]
    doc.spans[mentions_key] = SpanGroup(
        doc, name=mentions_key, spans=[Span(doc, s, e) for s, e, _ in mentions],
        attrs={ROLE: "mentions", "entity_ids": [entity for _, _, entity in mentions]},
    )
    clusters = [(entity, spans) for entity, spans in group_clusters_by_entity(mentions)
                if len(spans) > 1 or entity < first_entity]
    for index, (entity, cluster) in enumerate(clusters, start=1):
        spans = [Span(doc, s, e) for s, e in cluster]
        key = f"{prefix}_{index}"
        doc.spans[key] = SpanGroup(doc, name=key, spans=spans, attrs={
            ROLE: "cluster", "index": index, "main": choose_main(spans), "entity_id": entity})


def doc_mentions(doc: Doc) -> Tuple[List[Mention], Optional[str]]:
    """The doc's mentions (start, end, entity id) as the memory wrote them, and their group's name (None: no
    memory wrote this doc)."""
    group = coref_mentions(doc)
    if group is None:
        return [], None
    ids = group.attrs.get("entity_ids", [])
    if len(ids) != len(group):
        raise ValueError(f"[spacy-entmem] the mentions group '{group.name}' of the doc starting {doc.text[:40]!r} "
                         f"has {len(group)} spans but {len(ids)} entity ids")
    return [(span.start, span.end, int(entity)) for span, entity in zip(group, ids)], group.name


def align_pronoun(doc: Doc, pronoun: TokenRange, referent: Optional[TokenRange], others: List[TokenRange],
                  prefix: str, mentions_key: str, forbidden_roots: Sequence[int] = ()) -> None:
    """Make the clusters say that ``pronoun`` refers to ``referent`` (a token range; None: to none of
    ``others``) and to none of the other ``others``: the pronoun joins the referent's entity (both become
    mentions where they were not), and another of ``others`` in that entity leaves it for one of its own, as do
    (together) its mentions whose root token is in ``forbidden_roots`` (those binding theory rules out for the
    pronoun: "Tom met Bill, and later Bill phoned him", him → the first Bill: the second leaves); with no
    referent the pronoun leaves the entity of any of ``others`` it was in for one of its own. New entities get
    the next ids after the largest of the doc."""
    mentions, name = doc_mentions(doc)
    entity_of = {(start, end): entity for start, end, entity in mentions}
    log = doc._.entity_memory_log if doc.has_extension("entity_memory_log") else None
    next_id = max([entity for *_, entity in mentions] + [seen_before(log) - 1]) + 1
    before = dict(entity_of)
    if referent is not None:
        if referent not in entity_of:
            entity_of[referent], next_id = next_id, next_id + 1
        entity_of[pronoun] = entity_of[referent]
        for other in others:
            if other != referent and entity_of.get(other) == entity_of[referent]:
                entity_of[other], next_id = next_id, next_id + 1
        forbidden = set(forbidden_roots)
        bound = [span for span, entity in entity_of.items() if entity == entity_of[referent]
                 and span not in (pronoun, referent) and span_root(doc, *span) in forbidden]
        for span in bound:
            entity_of[span] = next_id
        next_id += bool(bound)
    elif pronoun in entity_of and entity_of[pronoun] in {entity_of.get(other) for other in others}:
        entity_of[pronoun] = next_id
    if entity_of != before:
        write_clusters(doc, sorted((start, end, entity) for (start, end), entity in entity_of.items()),
                       prefix, name or mentions_key, seen_before(log))
