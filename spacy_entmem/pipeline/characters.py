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
- masculine and feminine entities never merge.

A merged row keeps the id of its most mentioned entity (``Entity.id``) and lists all of them (``Entity.ids``).
"""
import re
from collections import Counter, defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..nn.memory.mention_memory import ELDER_TITLES, MALE_TITLE, TITLE_CLASHES, UNMARRIED_TITLE
from .mention_attributes import NAME_PREFIXES, TITLE_GROUPS

NameKey = Tuple[int, Tuple[str, ...]]  # (title group, name words)


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
    return (title, tuple(words)) if words else None


def main_name(entity) -> Optional[NameKey]:
    """The key of an entity's most frequent name mention (ties: the longer, then the first); None without one."""
    keys = Counter()
    first: Dict[NameKey, int] = {}
    for position, mention in enumerate(entity.mentions):
        if mention.mention_type == "name":
            key = name_key(mention.text)
            if key is not None:
                keys[key] += 1
                first.setdefault(key, position)
    if not keys:
        return None
    return max(keys, key=lambda k: (keys[k], len(k[1]), -first[k]))


def character_keys(keys: Sequence[NameKey], inventory: Iterable[NameKey] = ()) -> Dict[NameKey, NameKey]:
    """Each main-name key → the key of its character (see the module docstring); ``inventory``: the keys of
    every name mention of the book, whose full names ("Jo March") count even where no entity has one as its
    main name."""
    inventory = set(inventory) | set(keys)
    full_names = {key[1] for key in inventory if len(key[1]) >= 2}
    titled_surnames = {words[-1] for title, words in keys if title in TITLE_CLASHES and len(words) == 1}
    first_words = {words[0] for words in full_names}
    untitled = {words for title, words in keys if not title}
    out = {}
    for title, words in set(keys):
        if title == UNMARRIED_TITLE and len(words) == 1 and words in untitled:
            title = 0  # "Miss Jo" where "Jo" alone names someone: a given name, the same person as "Jo"
        longer = [full for full in full_names if len(full) > len(words) and full[:len(words)] == words]
        ending = [full for full in full_names if len(words) == 1 and full[-1] == words[0]]
        if title not in ELDER_TITLES and title != MALE_TITLE and len(longer) == 1:
            out[(title, words)] = (0, longer[0])  # "Jo", "Miss Jo" → "Jo March"; "Long John" → "Long John Silver"
        elif title in TITLE_CLASHES and len(words) == 1:
            out[(title, words)] = (title, words)  # "Mrs. March": a character of its own per title group
        elif not title and not longer and len(ending) == 1 and words[0] not in titled_surnames | first_words:
            out[(title, words)] = (0, ending[0])  # "Silver" → "Long John Silver" (no "Mr. Silver" to share it)
        else:
            out[(title, words)] = (0, words)
    return {key: (out[key] if key in out else out[(0, key[1])]) for key in set(keys)}


def merge_characters(entities: Sequence, summarise) -> List:
    """The entities with those that are one character merged (``summarise``: mention records → ``Entity``),
    most mentioned first."""
    keyed = [(entity, main_name(entity)) for entity in entities]
    inventory = {name_key(m.text) for entity in entities if entity.kind == "person" for m in entity.mentions
                 if m.mention_type == "name"} - {None}
    mapping = character_keys([key for _, key in keyed if key is not None], inventory)
    groups: Dict[Tuple[NameKey, str], List] = defaultdict(list)
    rest = []
    for entity, key in keyed:
        if key is None or entity.kind != "person":
            rest.append(entity)
            continue
        gender = entity.gender if entity.gender in ("masculine", "feminine") else ""
        groups[(mapping[key], gender)].append(entity)
    merged = list(rest)
    for (key, gender), members in groups.items():
        if not gender:  # an entity of no gender joins the character's largest group of a gender, if one
            others = [g for (k, g), m in groups.items() if k == key and g]
            if len(set(others)) == 1:
                continue
        merged.append(_merged(members + _genderless(groups, key, gender), summarise))
    return sorted(merged, key=lambda e: (-e.n_mentions, e.mentions[0].stream_start))


def _genderless(groups, key, gender) -> List:
    """The entities of the same character key with no gender, for the one gendered group of that key."""
    if not gender:
        return []
    genders = {g for (k, g) in groups if k == key and g}
    return list(groups.get((key, ""), [])) if len(genders) == 1 else []


def _merged(members: List, summarise):
    if len(members) == 1:
        entity = members[0]
        entity.ids = [entity.id]
        return entity
    leader = max(members, key=lambda e: (e.n_mentions, -e.mentions[0].stream_start))
    records = sorted((r for e in members for r in e.mentions), key=lambda r: (r.stream_start, r.end))
    entity = summarise(leader.id, records)
    entity.ids = sorted(e.id for e in members)
    return entity
