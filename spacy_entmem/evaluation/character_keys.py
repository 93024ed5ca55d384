"""Character keys for whole books: which names belong to which main character, and how well an entity table
keeps each character in one entity.

A key is a small JSON file (``tests/fixtures/data/books/*.json``): the book's file name, the chapter-heading
pattern to read it with, and per main character the names that point at that character alone ("Jo",
"Josephine", "Jo March"; not "Miss March", which the family shares). A predicted mention counts for a
character when its text, without a leading "the" and a possessive "'s", is one of those names exactly.

Per character: ``entities`` (how many entities its name mentions fall in), ``largest_share`` (the share of
its name mentions in the largest of them) and ``found`` (its name mentions among the predicted mentions). An
entity whose name mentions point at two or more keyed characters, each with at least ``MERGE_SHARE`` of them,
is a ``merged`` entity: characters kept apart is the other half of the score.
"""
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..pipeline.entities import Entity

MERGE_SHARE = 0.2  # an entity merges two characters when each holds at least this share of its keyed mentions
LEADING = ("the ", "The ")
POSSESSIVES = ("'s", "’s", "'", "’")


@dataclass
class CharacterKey:
    """One book's key: ``characters`` maps a character to the names that point at it alone."""

    book: str
    chapters: Optional[str]
    characters: Dict[str, List[str]]
    path: Optional[Path] = None
    narrators: Dict[str, str] = field(default_factory=dict)  # chapter title (or "*": every other) → who says "I"
    # chapter title → its keyed quotations in text order: (the words a quotation opens with, who says it)
    speakers: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)

    def narrator_of(self, title: str) -> Optional[str]:
        """The character who narrates the chapter of this title in the first person (None: no such narrator, or
        the front matter)."""
        if title == "front matter":
            return None
        return self.narrators.get(title, self.narrators.get("*"))

    def name_index(self) -> Dict[str, str]:
        """Each name → its character; a name listed for two characters is an error that names both."""
        index: Dict[str, str] = {}
        for character, names in self.characters.items():
            for name in names:
                if name in index and index[name] != character:
                    raise ValueError(f"[spacy-entmem] key {self.path or self.book}: the name {name!r} is listed for "
                                     f"both {index[name]!r} and {character!r}")
                index[name] = character
        return index


def load_key(path: Path) -> CharacterKey:
    """A key from its JSON file, checked: a clear error names the file and what is missing or wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"[spacy-entmem] cannot read the character key {path}: {error}") from error
    if not isinstance(data, dict) or "book" not in data or not isinstance(data.get("characters"), dict):
        raise ValueError(f"[spacy-entmem] character key {path}: expected an object with 'book' and 'characters'")
    for character, names in data["characters"].items():
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
            raise ValueError(f"[spacy-entmem] character key {path}: {character!r} needs a non-empty list of names")
    narrators = data.get("narrators", {})
    if not isinstance(narrators, dict) or any(n not in data["characters"] for n in narrators.values()):
        raise ValueError(f"[spacy-entmem] character key {path}: 'narrators' maps chapter titles (or '*') to "
                         f"characters of the key, got {narrators!r}")
    speakers = data.get("speakers", {})
    if not isinstance(speakers, dict) or not all(
            isinstance(quotes, list) and all(isinstance(q, dict) and isinstance(q.get("opens"), str) and q["opens"].strip()
                                             and q.get("speaker") in data["characters"] for q in quotes)
            for quotes in speakers.values()):
        raise ValueError(f"[spacy-entmem] character key {path}: 'speakers' maps chapter titles to lists of "
                         "{'opens': the quotation's first words, 'speaker': a character of the key}")
    key = CharacterKey(data["book"], data.get("chapters"), data["characters"], Path(path), narrators,
                       {title: [(q["opens"], q["speaker"]) for q in quotes] for title, quotes in speakers.items()})
    key.name_index()
    return key


def mention_name(text: str) -> str:
    """A mention's text as a key compares it: one space between words, no leading "the", no possessive."""
    text = " ".join(text.split())
    for prefix in LEADING:
        if text.startswith(prefix):
            text = text[len(prefix):]
    for suffix in POSSESSIVES:
        if text.endswith(suffix) and len(text) > len(suffix) + 1:
            return text[: -len(suffix)].rstrip()
    return text


@dataclass
class CharacterScore:
    character: str
    found: int  # its name mentions among the predicted mentions
    entities: int  # entities they fall in
    largest_share: float  # share of them in the largest entity (0 when none was found)
    largest_entity: int = -1
    by_entity: Dict[int, int] = field(default_factory=dict, repr=False)


@dataclass
class BookScore:
    characters: List[CharacterScore]
    merged: List[int]  # entities whose name mentions point at two or more keyed characters
    person_entities: int
    misplaced: int = 0  # keyed name mentions in a row whose most keyed name mentions are another character's
    keyed_mentions: int = 0  # keyed name mentions in any row

    @property
    def misplaced_share(self) -> float:
        """The share of keyed name mentions that sit in another character's row (the precision side, which
        ``merged`` counts only where the minority holds a fifth of the row)."""
        return self.misplaced / self.keyed_mentions if self.keyed_mentions else 0.0

    @property
    def found(self) -> List[CharacterScore]:
        return [c for c in self.characters if c.found]

    @property
    def mean_entities(self) -> float:
        found = self.found
        return sum(c.entities for c in found) / len(found) if found else 0.0

    @property
    def mean_share(self) -> float:
        found = self.found
        return sum(c.largest_share for c in found) / len(found) if found else 0.0

    @property
    def worst_share(self) -> float:
        return min((c.largest_share for c in self.found), default=0.0)

    @property
    def max_entities(self) -> int:
        return max((c.entities for c in self.found), default=0)


def score_entities(entities: Sequence[Entity], key: CharacterKey, main: Optional[Iterable[str]] = None) -> BookScore:
    """How well ``entities`` (an entity table: ``Reader.entities()``) keep the key's characters (``main``: only
    these; default all the key's characters) each in one entity and apart from each other."""
    index = key.name_index()
    wanted = set(key.characters if main is None else main)
    per_character: Dict[str, Counter] = defaultdict(Counter)
    per_entity: Dict[int, Counter] = defaultdict(Counter)
    for entity in entities:
        for mention in entity.mentions:
            character = index.get(mention_name(mention.text))
            if character is not None:
                per_entity[entity.id][character] += 1
                if character in wanted:
                    per_character[character][entity.id] += 1
    scores = []
    for character in key.characters:
        if character not in wanted:
            continue
        counts = per_character.get(character, Counter())
        total = sum(counts.values())
        largest, top = counts.most_common(1)[0] if counts else (-1, 0)
        scores.append(CharacterScore(character, total, len(counts), top / total if total else 0.0, largest,
                                     dict(counts)))
    merged = [entity for entity, counts in per_entity.items()
              if sum(n >= MERGE_SHARE * sum(counts.values()) for n in counts.values()) >= 2]
    people = sum(1 for entity in entities if entity.kind == "person")
    keyed = sum(sum(counts.values()) for counts in per_entity.values())
    misplaced = keyed - sum(max(counts.values()) for counts in per_entity.values())
    return BookScore(scores, sorted(merged), people, misplaced, keyed)


def _first_person_mentions(doc) -> Tuple[List[bool], List[Tuple[int, int]], Dict[int, int]]:
    """The doc's quotation flags and quotations (``read_quotations``), and its first-person singular mentions (I /
    me / my …, one token, with an entity id): their start token → their entity id (``Span._.entity_id``)."""
    from ..linguistics.speakers import read_quotations
    from ..linguistics.values import FIRST_SINGULAR, PRONOUN_CLASS

    quoted, quotes = read_quotations([token.lower_ for token in doc])
    first_person = {span.start: span._.entity_id for span in doc._.coref_mentions or [] if len(span) == 1
                    and PRONOUN_CLASS.get(span[0].lower_) == FIRST_SINGULAR and span._.entity_id is not None}
    return quoted, quotes, first_person


def unquoted_first_person(doc) -> List[int]:
    """The entity ids (``Span._.entity_id``) of the doc's first-person singular mentions outside quotations: in a
    first-person book, the narrator's."""
    quoted, _, first_person = _first_person_mentions(doc)
    return [entity for start, entity in first_person.items() if not quoted[start]]


def quoted_first_person(doc, quotations: Sequence[Tuple[str, str]]) -> List[Tuple[str, List[int]]]:
    """Per keyed quotation of a chapter (``quotations``: the words it opens with, in text order, and its speaker), the
    speaker and the entity ids of the first-person singular mentions inside it. A quotation is found by its opening
    words (spaces and line breaks between them as in the text) after the one before it; one not found is an error
    that names it."""
    import re

    _, quotes, by_start = _first_person_mentions(doc)
    found, position = [], 0
    for opens, speaker in quotations:
        match = re.compile(r"\s+".join(re.escape(word) for word in opens.split())).search(doc.text, position)
        token = None if match is None else doc.char_span(match.start(), match.end(), alignment_mode="expand")
        quote = None if token is None else next((q for q in quotes if q[0] <= token.start <= q[1]), None)
        if quote is None:
            raise ValueError(f"[spacy-entmem] speaker key: no quotation opening with {opens!r} after character "
                             f"{position} of the chapter")
        position = match.end()
        found.append((speaker, [by_start[i] for i in range(quote[0], quote[1] + 1) if i in by_start]))
    return found


def speaker_shares(quoted: Sequence[Tuple[str, List[int]]], entities: Sequence[Entity],
                   score: BookScore) -> Dict[str, Dict[str, float]]:
    """Per speaker of the key's quotations (``quoted``: ``quoted_first_person`` of each keyed chapter, joined), how
    many quoted first-person mentions it says and the share of them in its row, the row that holds most of its name
    mentions; "all" sums them."""
    return _shares_in_rows(quoted, entities, score, total="all")


def _shares_in_rows(said: Iterable[Tuple[str, List[int]]], entities: Sequence[Entity], score: BookScore,
                    total: Optional[str] = None) -> Dict[str, Dict[str, float]]:
    """Per character of ``said`` (pairs of a character and the entity ids of mentions it says), how many mentions
    and the share of them in its row, the row that holds most of its name mentions; with ``total``, that name sums
    them all."""
    row_of = {memory_id: entity.id for entity in entities for memory_id in (entity.ids or [entity.id])}
    largest = {c.character: c.largest_entity for c in score.characters}
    counts: Dict[str, List[int]] = defaultdict(lambda: [0, 0])
    for character, ids in said:
        for name in (character,) if total is None else (character, total):
            counts[name][0] += len(ids)
            counts[name][1] += sum(row_of.get(i) == largest.get(character) for i in ids)
    return {name: {"mentions": n, "share": in_row / n if n else 0.0} for name, (n, in_row) in counts.items()}


def narrator_shares(key: CharacterKey, chapters: Sequence[Tuple[str, List[int]]], entities: Sequence[Entity],
                    score: BookScore) -> Dict[str, Dict[str, float]]:
    """Per narrator of the key: how many unquoted first-person mentions its chapters hold (``chapters``: each
    chapter's title and ``unquoted_first_person`` ids) and the share of them in the narrator's row, the row that
    holds most of the narrator's name mentions."""
    said = ((key.narrator_of(title), ids) for title, ids in chapters)
    return _shares_in_rows([(narrator, ids) for narrator, ids in said if narrator is not None], entities, score)

