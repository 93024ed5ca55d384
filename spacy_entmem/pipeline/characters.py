"""One row per character: the entity table's entities that are one person by their names, merged.

The memory keeps a character in one entity while it can; over a book, an entity still splits now and then (a
wrong join, a name the memory did not tie back). As BookNLP clusters a book's character names, the table then
merges the entities whose names say they are one person, by each entity's *main name* (its most frequent name
mention), read as a title group (``mention_attributes.TITLE_GROUPS``) and name words:

- the same name words and no clashing title are one character ("Jo March" and "Jo March");
- a single name word that begins exactly one full name of the book is that full name ("Jo", "Miss Jo" → "Jo
  March"), unless an elder's title stands before it ("Aunt March", "Mrs. March" stay apart from "Jo March");
- a titled surname ("Mrs. March", "Mr. Laurence") is a character of its own per title group: people who share
  a surname stay apart ("Mr. March", "Mrs. March", "Aunt March");
- masculine and feminine entities of one name stay apart, unless one side is small (``GENDER_SLIP``): a "she"
  that joined "Nibs" by mistake does not make a second Nibs.

A merged row keeps the id of its most mentioned entity (``Entity.id``) and lists all of them (``Entity.ids``).
"""
import re
from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..linguistics.values import ELDER_TITLES, MALE_TITLE, TITLE_CLASHES, UNMARRIED_TITLE
from .mention_attributes import NAME_PREFIXES, TITLE_GROUPS

NameKey = Tuple[int, Tuple[str, ...]]  # (title group, name words)
FULLER_SHARE = 0.2  # how often, against the main name, a fuller form of it must be said to name the entity
MAX_NAME_WORDS = 4  # a name of more words is read as no name ("The Old Sea-dog at the Admiral Benbow")
GENDER_SLIP = 0.25  # a masculine or feminine side this small of a name's mentions is an error, not a person


def name_key(text: str) -> Optional[NameKey]:
    """A name mention's title group and lowercased name words, up to the first word that is no name word
    ("Mrs. March" → (2, ("march",)), "Jo March's" → (0, ("jo", "march")), "Amy, finishing Jo…" → (0, ("amy",)));
    None for a text that does not begin with a name (after titles and articles)."""
    title, words = 0, []
    for word in re.findall(r"[\w'’.-]+|[^\w\s]", text.replace("’", "'")):
        word = word[:-2] if word.endswith("'s") else word
        lower = word.lower()
        if not words and lower in TITLE_GROUPS:
            title = TITLE_GROUPS[lower]
        elif not words and lower in NAME_PREFIXES:
            continue
        elif word[:1].isupper() and word.replace("-", "").replace("'", "").replace(".", "").isalpha():
            words.append(lower)
        else:
            break
    if not words or len(words) > MAX_NAME_WORDS or (len(text) > 3 and text.isupper()):
        return None  # (no name; a heading or a shout in capitals: "NARRATIVE RESUMED BY JIM HAWKINS")
    return title, tuple(words)


def main_name(entity, names: Optional[set] = None) -> Optional[NameKey]:
    """The key of an entity's most frequent name mention (ties: the longer, then the first); None without one.
    With ``names`` (keys of the book's name mentions), a mention the table did not type a name because it opens
    a sentence ("Nibs said …", "The Queen …") counts too when its key is one of them."""
    keys = Counter()
    first: Dict[NameKey, int] = {}
    for position, mention in enumerate(entity.mentions):
        if mention.mention_type == "pronoun":
            continue
        key = name_key(mention.text)
        if key is not None and (mention.mention_type == "name" or (names is not None and key in names)):
            keys[key] += 1
            first.setdefault(key, position)
    if not keys:
        return None
    top = max(keys, key=lambda k: (keys[k], len(k[1]), -first[k]))
    # a fuller form of the same name said often enough names it better ("John" → "Long John Silver")
    fuller = [k for k in keys if len(k[1]) > len(top[1]) and set(top[1]) <= set(k[1]) and
              keys[k] >= max(2, FULLER_SHARE * keys[top])]
    return max(fuller, key=lambda k: (keys[k], len(k[1]), -first[k])) if fuller else top


def character_keys(keys: Sequence[NameKey], inventory: Iterable[NameKey] = ()) -> Dict[NameKey, NameKey]:
    """Each main-name key → the key of its character (see the module docstring); ``inventory``: the keys of
    every name mention of the book, whose full names ("Jo March") count even where no entity has one as its
    main name."""
    inventory = set(inventory) | set(keys)
    full_names = {key[1] for key in inventory if len(key[1]) >= 2}
    # surnames a woman's or an elder's title holds ("Mrs. Hawkins"): a bare "Hawkins" may be anyone of the family
    titled_surnames = {words[-1] for title, words in keys if title in TITLE_CLASHES and title != MALE_TITLE
                       and len(words) == 1}
    first_words = {words[0] for words in full_names}
    untitled = {words for title, words in keys if not title}
    out = {}
    for title, words in set(keys):
        if title == UNMARRIED_TITLE and len(words) == 1 and words in untitled:
            title = 0  # "Miss Jo" where "Jo" alone names someone: a given name, the same person as "Jo"
        longer = _widest([full for full in full_names if len(full) > len(words) and full[:len(words)] == words])
        ending = _widest([full for full in full_names if len(full) > len(words) and full[-len(words):] == words])
        if title not in ELDER_TITLES and title != MALE_TITLE and len(longer) == 1:
            out[(title, words)] = (0, longer[0])  # "Jo", "Miss Jo" → "Jo March"; "Long John" → "Long John Silver"
        elif title in TITLE_CLASHES and len(words) == 1:
            out[(title, words)] = (title, words)  # "Mrs. March": a character of its own per title group
        elif not title and not longer and len(ending) == 1 and (len(words) > 1 or words[0] not in
                                                                 titled_surnames | first_words):
            out[(title, words)] = (0, ending[0])  # "Silver", "John Silver" → "Long John Silver" (no "Mr. Silver")
        else:
            out[(title, words)] = (0, words)
    for key in list(out):  # one hop further where a target resolves on: "John" → "John Silver" → "Long John Silver"
        for _ in range(3):
            if out.get(out[key], out[key]) == out[key]:
                break
            out[key] = out[out[key]]
    out = short_forms(out)
    return {key: (out[key] if key in out else out[(0, key[1])]) for key in set(keys)}


def _widest(names: List[Tuple[str, ...]]) -> List[Tuple[str, ...]]:
    """The names that are not the beginning or the end of another one ("long john silver", not "john silver")."""
    return [name for name in names if not any(other != name and len(other) > len(name) and (
        other[:len(name)] == name or other[-len(name):] == name) for other in names)]


def short_forms(mapping: Dict[NameKey, NameKey]) -> Dict[NameKey, NameKey]:
    """``mapping`` with each untitled one-word character that is the short form of exactly one other untitled
    character's first word, where that word has no other short form, made that character ("Tink" and "Tinker
    Bell", "Jo" and "Josephine"; not "Jo" where "John" and "Josephine" both begin with it)."""
    characters = {target for target in mapping.values() if not target[0]}

    def short_of(short: NameKey, long: NameKey) -> bool:
        return (len(short[1]) == 1 and len(short[1][0]) >= 2 and long[1][0] != short[1][0]
                and long[1][0].startswith(short[1][0]))

    merged: Dict[NameKey, NameKey] = {}
    for short in characters:
        longer = [long for long in characters if short_of(short, long)]
        if len(longer) == 1 and [other for other in characters if short_of(other, longer[0])] == [short]:
            merged[short] = longer[0]
    return {key: merged.get(target, target) for key, target in mapping.items()}
def merge_characters(entities: Sequence, summarise) -> List:
    """The entities with those that are one character merged (``summarise``: mention records → ``Entity``),
    most mentioned first. Entities of one character key with masculine and feminine ones among them stay two
    rows (two people of one name), unless the smaller side holds less than ``GENDER_SLIP`` of their mentions (a
    wrong pronoun joined, not another person)."""
    named = {name_key(m.text) for entity in entities for m in entity.mentions if m.mention_type == "name"} - {None}
    keyed = [(entity, main_name(entity, named)) for entity in entities]
    mapping = character_keys([key for _, key in keyed if key is not None], named)
    groups: Dict[NameKey, List] = defaultdict(list)
    merged = [entity for entity, key in keyed if key is None]
    for entity, key in keyed:
        if key is not None:
            groups[mapping[key]].append(entity)
    for members in groups.values():
        by_gender: Dict[str, List] = defaultdict(list)
        for entity in members:
            by_gender[entity.gender if entity.gender in ("masculine", "feminine") else ""].append(entity)
        sizes = {gender: sum(e.n_mentions for e in side) for gender, side in by_gender.items() if gender}
        if len(sizes) < 2 or min(sizes.values()) < GENDER_SLIP * sum(e.n_mentions for e in members):
            merged.append(_merged(members, summarise))
            continue
        larger = max(sizes, key=sizes.get)  # two people: the entities of no gender go with the more mentioned
        for gender in sizes:
            merged.append(_merged(by_gender[gender] + (by_gender[""] if gender == larger else []), summarise))
    return sorted(merged, key=lambda e: (-e.n_mentions, e.mentions[0].stream_start))


def _merged(members: List, summarise):
    if len(members) == 1:
        return members[0]
    leader = max(members, key=lambda e: (e.n_mentions, -e.mentions[0].stream_start))
    records = sorted((r for e in members for r in e.mentions), key=lambda r: (r.stream_start, r.end))
    entity = summarise(leader.id, records)
    entity.ids = sorted(e.id for e in members)
    return entity
