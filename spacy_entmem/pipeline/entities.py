"""The entities of a text or of a stream of texts: one row per entity the memory found, with a canonical name,
its aliases, how it was mentioned, its gender, number and kind, and where it appears.

Each mention is read once (``MentionRecord``) with the attributes the memory itself read
(``mention_attributes``: pronoun class, gender from cues and the packaged name lexicon, number, proper name,
place or time, inanimate head); an entity's row (``Entity``) summarises its mentions:

- mention type: a pronoun; a name (a capitalised word that does not open a sentence, or tagged a proper noun up
  to its head); else a nominal;
- canonical name: the name mention with the most capitalised words (a possessive "'s" cut off), then the
  fewest words ("America" before "all America"), then the most frequent, then the first; without a name, the
  speaker whose I it is (a text read with a ``speaker``), else the most frequent nominal, else the first mention;
- gender: masculine / feminine by the majority of mentions that have one, neuter if only "it" / things have
  one, else unknown; number: singular / plural by the majority of mentions that have one;
- kind: each mention votes for a kind where something says it: person for he / she / I / you / we and for a
  gendered title, kinship word or name; the kind the head-kind lexicon gives its head ("soldier": person,
  "village": place, "committee": organisation; learnt from the typed training mentions, ``corpora.head_kinds``),
  else person for a head on the packaged lists of nouns for people ("mechanic": ``models.memory.learnt_person_nouns``);
  place where the parse reads it after a preposition of place or before ", where" (``syntax.place_or_time``); a
  nominal that is a predicate or an apposition ("was a nervous man", "the doctor, a tall man,") votes for none, as
  it describes someone rather than naming one more. The entity takes the kind with the most votes (ties: person,
  place, organisation), other without any.
"""
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import AbstractSet, Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.tokens import Doc

from ..linguistics import switches
from ..linguistics.columns import GENDER, NOUN_NUMBER, NUMBER, PERSON, PRONOUN, PROPER, QUOTED
from ..linguistics.lexicon import NAME_PREFIXES, StringIds, head_word, names_people
from ..linguistics.mentions import mention_attributes
from ..linguistics.values import FEMININE, FIRST_SINGULAR, MASCULINE, NEUTER, PLURAL, PRONOUN_CLASS, SINGULAR
from .attributes import coref_mentions, is_proper_mention

NAME, NOMINAL, PRONOUN_MENTION = "name", "nominal", "pronoun"
MENTION_TYPES = (NAME, NOMINAL, PRONOUN_MENTION)
PERSON_KIND, PLACE_KIND, ORGANISATION_KIND, OTHER_KIND = "person", "place", "organisation", "other"
GENDER_NAMES = {MASCULINE: "masculine", FEMININE: "feminine", NEUTER: "neuter"}
NUMBER_NAMES = {SINGULAR: "singular", PLURAL: "plural"}
DESCRIBING_DEPS = frozenset({"attr", "appos"})  # a nominal in these places votes for no kind
KIND_ORDER = (PERSON_KIND, PLACE_KIND, ORGANISATION_KIND)  # who wins a tie
FIRST_PLURAL = PRONOUN_CLASS["we"]


@lru_cache(maxsize=1)
def packaged_head_kinds() -> Dict[str, str]:
    """The head-kind lexicon shipped with the package (``spacy_entmem/resources/head_kinds.json``)."""
    from ..corpora.head_kinds import PACKAGED_HEAD_KINDS, load_head_kinds

    return load_head_kinds(PACKAGED_HEAD_KINDS)


# an unnamed first-person narrator: this many unquoted I / me / my of no named speaker in one entity
NARRATOR_MENTIONS = 20
NARRATOR_WORDS = frozenset({"i", "me", "my", "myself", "mine"})


@dataclass
class MentionRecord:
    """One mention as the entity table keeps it: its entity, which text of the stream it is in, its token range
    in that text and in the whole stream (``offset`` + start), its words and what the memory read in it."""

    entity: int
    text_index: int
    start: int
    end: int
    offset: int
    text: str
    mention_type: str
    gender: int
    number: int
    kind: str  # the kind this mention votes for ("" where nothing says)
    speaker: str = ""  # for an unquoted I / me / my of a text with a named speaker (``Doc._.speaker``): who
    apposed_to: str = ""  # the text of the mention this one stands in apposition with (``apposed_mentions``: "Oz,
    # the Great Wizard" → "Oz" on the record of "the Great Wizard"), whatever spans the memory kept
    quoted: bool = False  # inside a quotation (``linguistics.speakers.read_quotations``)

    @property
    def stream_start(self) -> int:
        return self.offset + self.start


@dataclass
class Entity:
    """One entity of a text or a stream (see the module docstring for how each field is read)."""

    id: int
    name: str
    aliases: List[str]
    kind: str
    gender: str
    number: str
    counts: Dict[str, int]
    first: Tuple[int, int]  # (text index, token index) of the first mention
    last: Tuple[int, int]
    mentions: List[MentionRecord] = field(repr=False, default_factory=list)
    ids: List[int] = field(default_factory=list)  # the memory's entity ids in this row (several: ``characters``)

    @property
    def n_mentions(self) -> int:
        return len(self.mentions)

    def as_row(self) -> Dict[str, object]:
        """A flat dict for a CSV row or a DataFrame."""
        return {"entity_id": self.id, "name": self.name, "kind": self.kind, "gender": self.gender,
                "number": self.number, "mentions": self.n_mentions, **{f"{t}s": self.counts[t] for t in MENTION_TYPES},
                "first_text": self.first[0], "first_token": self.first[1], "last_text": self.last[0],
                "last_token": self.last[1], "aliases": " | ".join(self.aliases),
                "entity_ids": " ".join(map(str, self.ids))}


def mention_records(doc: Doc, text_index: int = 0, offset: int = 0) -> List[MentionRecord]:
    """The doc's mentions (its ``coref_mentions`` group, with the entity ids the memory wrote) as records; a
    doc annotated by an older memory without ids falls back to its clusters."""
    from ..models.memory import learnt_person_nouns, packaged_inanimate_nouns, packaged_name_genders
    from ..linguistics.syntax import PLACE, place_or_time

    spans, entities = _mentions_with_ids(doc)
    if not spans:
        return []
    rows = mention_attributes(doc, spans, StringIds(), packaged_name_genders(), packaged_inanimate_nouns())
    parsed = doc.has_annotation("DEP")
    lexicon = packaged_head_kinds()
    people = learnt_person_nouns() if switches.active().learnt_person_nouns else frozenset()
    speaker_name = " ".join(str(doc._.speaker).split()) if doc._.speaker else ""
    apposed = apposed_mentions(doc, spans)
    records = []
    for (start, end), entity, row in zip(spans, entities, rows.tolist()):
        words = [token.text for token in doc[start:end]]
        pronoun = row[PRONOUN] > 0
        span = doc[start:end]
        mention_type = PRONOUN_MENTION if pronoun else NAME if row[PROPER] or is_proper_mention(span) else NOMINAL
        speaker = speaker_name if row[PRONOUN] == FIRST_SINGULAR and not row[QUOTED] else ""
        head = "" if pronoun else head_word([word.lower() for word in words])
        if mention_type == NOMINAL and parsed and span.root.dep_ in DESCRIBING_DEPS:
            kind = ""  # a predicate or an apposition describes someone named elsewhere ("was a nervous man")
        elif row[GENDER] in (MASCULINE, FEMININE) or row[PERSON] > 0 or row[PRONOUN] == FIRST_PLURAL:
            kind = PERSON_KIND
        elif head in lexicon:
            kind = lexicon[head]
        elif names_people(head, row[NOUN_NUMBER] == PLURAL, people):
            kind = PERSON_KIND  # "the mechanic", "the warriors"
        elif not pronoun and parsed and place_or_time(doc, start, end) == PLACE:
            kind = PLACE_KIND
        else:
            kind = ""
        number = row[NUMBER] or row[NOUN_NUMBER]
        records.append(MentionRecord(int(entity), text_index, start, end, offset, span.text, mention_type,
                                     row[GENDER], number, kind, speaker, apposed.get((start, end), ""),
                                     bool(row[QUOTED])))
    return records


def apposed_mentions(doc: Doc, spans: Sequence[Tuple[int, int]]) -> Dict[Tuple[int, int], str]:
    """Each mention that stands in apposition with an earlier one → the text of that one ("Oz, the Great Wizard"
    → {"the Great Wizard": "Oz"}): it follows the other right after a comma, in no list ("Dorothy, the Scarecrow
    and the Lion"; the parser may attach such a role to a noun before the name: "the Palace of Oz, the Great
    Wizard"), or else its root is the parse's ``appos`` of the other's root. The shortest mention of an end or a
    root stands for it."""
    from ..linguistics.syntax import root_of, token_heads

    heads = token_heads(doc)
    roots = [root_of(heads, start, end) for start, end in spans]
    by_root, by_end = _shortest_by(roots, spans), _shortest_by([end for _, end in spans], spans)
    starts = {start for start, _ in spans}
    out = {}
    for (start, end), root in zip(spans, roots):
        head = by_end.get(start - 1) if start >= 2 and doc[start - 1].text == "," else None
        if head is not None and (_list_goes_on(doc, end, starts) or (head[0] > 0 and doc[head[0] - 1].text == ",")):
            head = None  # a list: "Dorothy, the Scarecrow and the Lion", "…, the Scarecrow, the Woodman"
        elif head is None and doc[root].dep_ == "appos":
            head = by_root.get(heads[root])
        if head is not None and head[1] <= start:
            out[(start, end)] = doc[head[0]:head[1]].text
    return out


def _shortest_by(keys: Sequence[int], spans: Sequence[Tuple[int, int]]) -> Dict[int, Tuple[int, int]]:
    """Each key → the shortest of the spans that have it (the first of equal length)."""
    out: Dict[int, Tuple[int, int]] = {}
    for key, (start, end) in zip(keys, spans):
        if key not in out or end - start < out[key][1] - out[key][0]:
            out[key] = (start, end)
    return out


def _list_goes_on(doc: Doc, end: int, starts) -> bool:
    """Whether a conjunction, or a comma and then another mention or a conjunction, follows the mention that ends at
    ``end`` (a list goes on: "the Scarecrow, the Woodman", "the Scarecrow and the Lion")."""
    if end < len(doc) and doc[end].lower_ in ("and", "or", "nor"):
        return True
    return end + 1 < len(doc) and doc[end].text == "," and (end + 1 in starts or doc[end + 1].lower_ in ("and", "or"))


def _mentions_with_ids(doc: Doc) -> Tuple[List[Tuple[int, int]], List[int]]:
    group = coref_mentions(doc)
    if group is not None and "entity_ids" in group.attrs and len(group.attrs["entity_ids"]) == len(group):
        return [(span.start, span.end) for span in group], list(group.attrs["entity_ids"])
    spans, entities = [], []
    for number, cluster in enumerate(doc._.coref_clusters):
        entity = cluster.attrs.get("entity_id", number)
        spans.extend((span.start, span.end) for span in cluster)
        entities.extend([entity] * len(cluster))
    return spans, entities


def summarise(entity: int, records: Sequence[MentionRecord]) -> Entity:
    """The ``Entity`` row of one entity's mention records (in reading order)."""
    counts = Counter(record.mention_type for record in records)
    texts = Counter(_name_text(record.text) for record in records if record.mention_type != PRONOUN_MENTION)
    votes = Counter(r.kind for r in records if r.kind)
    kind = max(KIND_ORDER, key=lambda k: (votes[k], -KIND_ORDER.index(k))) if votes else OTHER_KIND
    # a text whose mentions mostly vote for another kind than the row's does not name it (a person row the memory
    # joined "Bristol" to is not "Bristol")
    text_votes: Dict[str, Counter] = {}
    for r in records:
        if r.kind:
            text_votes.setdefault(_name_text(r.text), Counter())[r.kind == kind] += 1
    elsewhere = {text for text, agree in text_votes.items() if agree[False] > agree[True]}
    names = [record for record in records if record.mention_type == NAME and _name_text(record.text) not in elsewhere]
    least = 2 if unnamed_narrator(records) else 1  # (one stray name does not name a narrator: ``row_key``)
    canonical = (canonical_name(names, texts, least) if names else None) or unnamed_name(records, texts, elsewhere)
    aliases = [text for text, _ in texts.most_common() if text != canonical]
    genders = Counter(r.gender for r in records if r.gender in (MASCULINE, FEMININE))
    gender = GENDER_NAMES[genders.most_common(1)[0][0]] if genders else \
        "neuter" if any(r.gender == NEUTER for r in records) else "unknown"
    numbers = Counter(r.number for r in records if r.number in (SINGULAR, PLURAL))
    number = NUMBER_NAMES[numbers.most_common(1)[0][0]] if numbers else "unknown"
    return Entity(entity, canonical, aliases, kind, gender, number, {t: counts.get(t, 0) for t in MENTION_TYPES},
                  (records[0].text_index, records[0].start), (records[-1].text_index, records[-1].start),
                  list(records), [entity])


def unnamed_narrator(records: Sequence[MentionRecord]) -> bool:
    """Whether an entity's records hold at least ``NARRATOR_MENTIONS`` unquoted I / me / my that no named speaker
    says: a first-person narrator the text does not name."""
    return sum(r.text.lower() in NARRATOR_WORDS and not r.quoted and not r.speaker
               for r in records) >= NARRATOR_MENTIONS


def unnamed_name(records: Sequence[MentionRecord], texts: Counter, elsewhere: AbstractSet[str]) -> str:
    """The name of an entity no name mention names: the speaker whose I it is (a speaker who never names
    themself), else "I" for an unnamed narrator (``unnamed_narrator``: not the "sir" others call it), else its most
    frequent nominal, else (only pronouns, and texts of another kind) its first pronoun; ``elsewhere``: texts that
    name another kind than the entity's."""
    speakers = Counter(record.speaker for record in records if record.speaker)
    if speakers:
        return speakers.most_common(1)[0][0]
    if unnamed_narrator(records):
        return "I"
    nominals = [text for text in texts if text not in elsewhere]
    if nominals:
        return max(nominals, key=lambda text: (texts[text], -_first_position(records, text)))
    return next((r.text for r in records if r.mention_type == PRONOUN_MENTION), records[0].text)


def canonical_name(names: Sequence[MentionRecord], texts: Counter, least: int = 1) -> Optional[str]:
    """An entity's name among its name mentions: the pure names ("Mr. Laurence", "Jo March"; not "Amy, finishing
    Jo with her Latin") if it has any; of those mentioned at least a tenth as often as its most frequent name
    mention (and twice, where one is said twice; and at least ``least`` times), the one with the most name words,
    then the most frequent, then the first. None where no name mention is a name (``characters.name_key``: "I.",
    "Squire") or none is said that often: a row the memory called "the doctor" 21 times and "Mr. Bones" once is not
    named "Mr. Bones"."""
    from .characters import name_key

    keyed = [(r, name_key(r.text)) for r in names]
    pure = [(r, key) for r, key in keyed if key is not None and is_pure_name(r.text)] or [
        (r, key) for r, key in keyed if key is not None]
    if not pure:
        return None
    said = Counter(_name_text(r.text) for r in names)
    floor = max(0.1 * max(said.values()), 2 if max(said.values()) >= 2 else 1, least)
    frequent = [(r, key) for r, key in pure if said[_name_text(r.text)] >= floor]
    if not frequent:
        return None
    best, _ = max(frequent, key=lambda pair: (len(pair[1][1]), said[_name_text(pair[0].text)],
                                              texts[_name_text(pair[0].text)], -pair[0].stream_start))
    return _name_text(best.text)


def is_pure_name(text: str) -> bool:
    """Whether a mention is a name and nothing more: titles, articles and name words only ("the young Mr.
    Laurence", "Jo March"; not "Jo's sister", "Hunter and Joyce")."""
    from .characters import name_key

    key = name_key(text)
    words = _name_text(text).split()
    return key is not None and len(key[1]) == sum(word[:1].isupper() and word.lower() not in NAME_PREFIXES
                                                  for word in words) and len(words) <= len(key[1]) + 3 and \
        all(word[:1].isupper() or word.lower() in NAME_PREFIXES for word in words)


def _name_text(text: str) -> str:
    text = text.rstrip("-—–") or text  # a name broken off ("Mr. Bones--")
    for suffix in ("'s", "’s"):
        if text.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)].rstrip()
    return text


def _first_position(records: Sequence[MentionRecord], text: str) -> int:
    return next(r.stream_start for r in records if _name_text(r.text) == text)


def summarise_all(records: Iterable[MentionRecord]) -> List[Entity]:
    """One ``Entity`` per entity id of the records, most mentioned first (then first mentioned first)."""
    by_entity: Dict[int, List[MentionRecord]] = {}
    for record in records:
        by_entity.setdefault(record.entity, []).append(record)
    entities = [summarise(entity, sorted(rs, key=lambda r: (r.stream_start, r.end))) for entity, rs in by_entity.items()]
    return sorted(entities, key=lambda e: (-e.n_mentions, e.mentions[0].stream_start))


def doc_entities(doc: Doc, merge_characters: bool = True) -> List[Entity]:
    """``Doc._.entities``: the doc's entities, most mentioned first, one row per character
    (``characters.merge_characters``; ``merge_characters=False``: one row per entity id of the memory)."""
    return table_entities(mention_records(doc), merge_characters)


def table_entities(records: Iterable[MentionRecord], merge_characters: bool = True) -> List[Entity]:
    """The entities of the mention records, with those that are one character merged if ``merge_characters``."""
    entities = summarise_all(records)
    if not merge_characters:
        return entities
    from ..models.memory import learnt_person_nouns
    from .characters import merge_characters as merge

    return merge(entities, summarise, learnt_person_nouns())


class EntityTable:
    """The entities of a stream, built up text by text (``add``); ``entities()`` summarises them."""

    def __init__(self) -> None:
        self.records: List[MentionRecord] = []

    def add(self, doc: Doc, text_index: int, offset: int) -> None:
        self.records.extend(mention_records(doc, text_index, offset))

    def entities(self, kind: Optional[str] = None, merge_characters: bool = True) -> List[Entity]:
        """The stream's entities, most mentioned first; one row per character (``characters``) unless
        ``merge_characters`` is false; only those of ``kind`` if given."""
        entities = table_entities(self.records, merge_characters)
        return entities if kind is None else [entity for entity in entities if entity.kind == kind]

    def to_list(self) -> List[list]:
        return [[r.entity, r.text_index, r.start, r.end, r.offset, r.text, r.mention_type, r.gender, r.number,
                 r.kind, r.speaker, r.apposed_to, r.quoted] for r in self.records]

    @classmethod
    def from_list(cls, rows: List[list]) -> "EntityTable":
        table = cls()
        table.records = [MentionRecord(*row) for row in rows]
        return table
