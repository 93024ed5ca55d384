"""One row per character: the entity table's entities that are one person by their names, merged.

The memory keeps a character in one entity while it can; over a book, an entity still splits now and then (a
wrong join, a name the memory did not tie back). As BookNLP clusters a book's character names, the table then
merges the entities whose names say they are one person, by each entity's *main name* (its most frequent name
mention), read as a title group (``linguistics.lexicon.TITLE_GROUPS``) and name words:

- the same name words and no clashing title are one character ("Jo March" and "Jo March");
- a single name word that begins exactly one full name of the book is that full name ("Jo", "Miss Jo" → "Jo
  March"), unless an elder's title stands before it ("Aunt March", "Mrs. March" stay apart from "Jo March") or
  the word names a role, no given name ("the Witch of the North" is not "the Witch Glinda": ``role_words``);
- a titled surname ("Mrs. March", "Mr. Laurence") is a character of its own per title group: people who share
  a surname stay apart ("Mr. March", "Mrs. March", "Aunt March");
- masculine and feminine entities of one name stay apart, unless one side is small (``GENDER_SLIP``): a "she"
  that joined "Nibs" by mistake does not make a second Nibs;
- a full name said once around one said often ("Ware Tinker Bell", "Ware" being "beware") is no target;
- given names that are forms of one name ("Josephine" and "Jo", "Benjamin Gunn" and "Ben Gunn", "Margaret" and
  "Meg": the ``nicknames`` package's hand-curated English list) are one character where the book confirms it: an
  entity of the memory holds both, the full names share their surname, or one form is said under a
  ``SLIP_AROUND``-th as often as the other character's names;
- a bare surname that only one titled name holds is that person ("Brooke" → "Mr. Brooke"), unless a full name
  ends with it;
- a "Mr." surname is the one full name of that surname with a masculine given name, where that full name and its
  given name are said less often than the titled one ("Mr. Darling" and "George Darling"; ``masculine_full_names``);
- a name and a capitalised role the book sets beside it in apposition are one character ("Oz, the Great
  Wizard": the book's own alias, learnt from its text; the role's head must be a noun for people, so "Dorothy,
  the Small and Meek" ties nothing, and a list of names, "Hunter, Joyce", has no "the");
- rows that are mostly called by one capitalised role of one place or group are one character ("the Witch of the
  North" and "the Good Witch of the North": ``role_of``), unless two of them carry names of their own or their
  genders differ; "the Witch of the West" and "the Witch of the East" stay apart;
- an entity called by one definite description at least ``DESCRIBED_OVER_NAMES`` times as often as by all its
  names, all of them said in quotations, is that description's person, not keyed by the names the memory joined
  to it (``described_over_names``: *Treasure Island*'s "the captain", 112 times, holds the 15 "Jim"s he says to
  the narrator, and is not Jim; a hero the narration calls "the old man" and sometimes by name keeps the name);
- a row of no name mostly called "the <role>" of a title ("the doctor", ``ROLE_TITLES``) is the one person the
  book gives that title, said at least twice, with one surname only ("Dr. Livesey"; ``titled_roles``): a book
  with a Captain Smollett and a Cap'n Flint keeps "the captain" apart;
- last, a bare name the memory joined to another person's entity moves to the one row it names (``stray_names``):
  "Morgan", joined to Long John Silver before "Tom Morgan" was first said, goes to Tom Morgan; "Toto" in Dorothy's
  row goes to Toto's; "Jim" in the captain's row goes to "Jim Hawkins" (a given name too, where one row's main name
  is that given name and a surname). A possessor is not moved ("Tom's younger brother" is not Tom), and the
  pronouns the memory joined with a name stay where they are.

A merged row keeps the id of its most mentioned entity (``Entity.id``) and lists all of them (``Entity.ids``).
"""
import re
from collections import Counter, defaultdict
from functools import lru_cache
from typing import AbstractSet, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from nicknames import NickNamer

from ..linguistics.values import ELDER_TITLES, MALE_TITLE, MASCULINE, PRONOUNS, TITLE_CLASHES, UNMARRIED_TITLE
from ..linguistics.lexicon import GENDER_OF_WORD, NAME_PREFIXES, TITLE_GROUPS
from .entities import unnamed_narrator

NameKey = Tuple[int, Tuple[str, ...]]  # (title group, name words)
FULLER_SHARE = 0.2  # how often, against the main name, a fuller form of it must be said to name the entity
MAX_NAME_WORDS = 4  # a name of more words is read as no name ("The Old Sea-dog at the Admiral Benbow")
GENDER_SLIP = 0.25  # a masculine or feminine side this small of a name's mentions is an error, not a person
# a full name said once around a full name said this many times is a slip, no target ("Ware Tinker Bell")
SLIP_AROUND = 5
# words before a name that are not part of it: fiction's titles of address ("Cap'n Smollett", "Doctor Livesey",
# "Squire Trelawney") and the vocative "O" ("O George")
ADDRESS_WORDS = {"cap'n", "capn", "doctor", "squire", "o", "oh"}
# "I", "I.", "XII": the pronoun or a heading's number, never a name (one letter but "I" is an initial: "L. Frank")
ROMAN_NUMERAL = re.compile(r"i\.?|[ivxlcdm]{2,}\.?")
NAME_TOKENS = re.compile(r"[\w'’.-]+|[^\w\s]")  # a mention's words as ``name_key`` reads them ("Jo's", ",", "Mr.")
# a row whose most frequent definite description ("the captain") is said this many times as often as all its name
# mentions together is that description's person, whatever name the memory joined to it (the captain's "Jim", said
# to the narrator, 15 times against 112 "the captain"): it is keyed by no name (``described_over_names``)
DESCRIBED_OVER_NAMES = 4
# titles a book names one person by, as "the <role>" too ("Dr. Livesey" … "the doctor"): title → role noun
ROLE_TITLES = {**dict.fromkeys(("dr", "dr.", "doctor"), "doctor"),
               **dict.fromkeys(("captain", "capt", "capt.", "cap'n", "capn"), "captain"),
               **dict.fromkeys(("colonel", "col", "col."), "colonel"), **dict.fromkeys(("professor", "prof."), "professor"),
               **{word: word for word in ("squire", "major", "general", "judge", "inspector", "sergeant", "lieutenant",
                                          "parson", "governor")}}
DESCRIPTION_WORDS = 5  # a definite description this long, said again, is one person ("the man with the wooden leg")
DESCRIPTION_PREPOSITIONS = {"with", "of", "in", "from", "at", "on"}
# a capitalised noun for people "of" a capitalised place or group: "the Good Witch of the North", "the King of the
# Winged Monkeys" (at most two words before the role, three in its complement)
ROLE_OF = re.compile(r"(?:(?:[Tt]he|[Aa]n?) )?(?:[A-Z][\w'-]* ){0,2}(?P<role>[A-Z][\w'-]*) of (?:the )?"
                     r"(?P<of>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})")
ROLE_EPITHETS = {"good", "wicked", "great", "old", "young", "little"}  # words before a role that name no one
# a name, a comma, "the" and capitalised words: an appositive role ("Oz, the Great Wizard", "Glinda, the Good Witch")
APPOSITIVE_ROLE = re.compile(r"(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3}), (?P<role>the (?:[A-Z][\w'-]* ?){1,3})$")


@lru_cache(maxsize=1 << 16)  # (a text's key is read for the table, the main names and the names held together)
def name_key(text: str) -> Optional[NameKey]:
    """A name mention's title group and lowercased name words, up to the first word that is no name word
    ("Mrs. March" → (2, ("march",)), "Jo March's" → (0, ("jo", "march")), "Amy, finishing Jo…" → (0, ("amy",)));
    a noun for people capitalised after "the" names one too ("the Queen of the Mice" → (0, ("queen",))); None for
    a text that does not begin with a name (after titles and articles)."""
    title, words, role = 0, [], None
    for position, word in enumerate(NAME_TOKENS.findall(text.replace("’", "'").replace("--", " — "))):
        word = word[:-2] if word.endswith("'s") else word
        lower = word.lower()
        if not words and lower in TITLE_GROUPS:
            title = TITLE_GROUPS[lower]
        elif not words and (lower in NAME_PREFIXES or lower in ADDRESS_WORDS):
            if position == 1 and word[:1].isupper() and lower in GENDER_OF_WORD:
                role = lower  # "the Queen": a role the book names someone by (not "the Old …", "the Dr. …")
            continue
        elif word.isupper() and ROMAN_NUMERAL.fullmatch(lower):
            break
        elif word[:1].isupper() and word.replace("-", "").replace("'", "").replace(".", "").isalpha():
            words.append(lower)
        else:
            break
    if not words and role is not None and not title and text[:4].lower() == "the ":
        words = [role]
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


def character_keys(keys: Sequence[NameKey], inventory: Iterable[NameKey] = (),
                   together: Optional[Set[FrozenSet[str]]] = None,
                   roles: AbstractSet[str] = frozenset()) -> Dict[NameKey, NameKey]:
    """Each main-name key → the key of its character (see the module docstring); ``inventory``: the keys of
    every name mention of the book (a ``Counter`` gives how often each was said), whose full names ("Jo March")
    count even where no entity has one as its main name; ``together``: pairs of given names some entity of the
    memory holds both of (the book's confirmation of a nickname); ``roles``: words that name a role and no given
    name (``role_words``), which do not begin a full name ("witch" is not "Witch Glinda")."""
    counted = isinstance(inventory, Mapping)
    said = Counter()
    for (_, words), n in (inventory.items() if counted else ((key, 1) for key in inventory)):
        said[words] += n
    full_names = {words for words in set(said) | {words for _, words in keys} if len(words) >= 2}
    if counted:  # "Ware Tinker Bell" ("beware") said once, "Tinker Bell" forty times
        full_names = {name for name in full_names if said[name] > 1 or not any(
            said[other] >= SLIP_AROUND and (name[:len(other)] == other or name[-len(other):] == other)
            for other in full_names if len(other) < len(name))}
    canonical = canonical_full_names(full_names, said)
    full_names = set(canonical.values())
    asked, keys = set(keys), [(title, canonical.get(words, words)) for title, words in keys]
    # surnames a woman's or an elder's title holds ("Mrs. Hawkins"): a bare "Hawkins" may be anyone of the family
    titled_surnames = {words[-1] for title, words in keys if title in TITLE_CLASHES and title != MALE_TITLE
                       and len(words) == 1}
    titles_of: Dict[Tuple[str, ...], Set[int]] = defaultdict(set)  # a one-word name → the title groups before it
    for title, words in keys:
        if title in TITLE_CLASHES and len(words) == 1:
            titles_of[words].add(title)
    first_words = {words[0] for words in full_names}
    untitled = {words for title, words in keys if not title}
    owners = masculine_full_names(set(keys), full_names, inventory if counted else None)
    out = {}
    for title, words in set(keys):
        if title == UNMARRIED_TITLE and len(words) == 1 and words in untitled:
            title = 0  # "Miss Jo" where "Jo" alone names someone: a given name, the same person as "Jo"
        longer = _widest([full for full in full_names if len(full) > len(words) and full[:len(words)] == words])
        ending = _widest([full for full in full_names if len(full) > len(words) and full[-len(words):] == words])
        if title not in ELDER_TITLES and title != MALE_TITLE and len(longer) == 1 and not (
                len(words) == 1 and words[0] in roles):
            out[(title, words)] = (0, longer[0])  # "Jo", "Miss Jo" → "Jo March"; "Long John" → "Long John Silver"
        elif (title, words) in owners:
            out[(title, words)] = (0, owners[(title, words)])  # "Mr. Darling" → "George Darling"
        elif title in TITLE_CLASHES and len(words) == 1:
            out[(title, words)] = (title, words)  # "Mrs. March": a character of its own per title group
        elif not title and not longer and len(ending) == 1 and (len(words) > 1 or words[0] not in
                                                                 titled_surnames | first_words):
            out[(title, words)] = (0, ending[0])  # "Silver", "John Silver" → "Long John Silver" (no "Mr. Silver")
        elif not title and not longer and not ending and len(titles_of[words]) == 1:
            out[(title, words)] = (min(titles_of[words]), words)  # "Brooke" → "Mr. Brooke", the one who has it
        else:
            out[(title, words)] = (0, words)
    for key in list(out):  # one hop further where a target resolves on: "John" → "John Silver" → "Long John Silver"
        for _ in range(3):
            if out.get(out[key], out[key]) == out[key]:
                break
            out[key] = out[out[key]]
    out = given_name_forms(short_forms(out), said, together)
    mapping = {}
    for title, words in asked:
        key = (title, canonical.get(words, words))
        mapping[(title, words)] = out[key] if key in out else out[(0, key[1])]
    return mapping


def role_words(words: Iterable[str], people: AbstractSet[str]) -> Set[str]:
    """The ``words`` that are nouns for people (``people``) and no given name: neither a form of an English given
    name (``name_forms``) nor on the packaged name-gender list ("witch", "wizard", "captain"; not "wendy" or
    "ned", which the lists of nouns for people also hold)."""
    from ..models.memory import packaged_name_genders

    genders = packaged_name_genders()
    return {word for word in words if word in people and word not in genders and not name_forms(word)}


def masculine_full_names(keys: Iterable[NameKey], full_names: Iterable[Tuple[str, ...]],
                         said: Optional[Mapping[NameKey, int]]) -> Dict[NameKey, Tuple[str, ...]]:
    """Each "Mr." surname (``MALE_TITLE``) → the one full name of the book that ends with that surname and begins
    with a masculine given name (``corpora.name_genders``), where that full name and its given name alone are said
    less often than the titled surname ("Mr. Darling", said 26 times → "George Darling", "George" said 10 times;
    "Mr. Darcy" → "Fitzwilliam Darcy"). A son who carries the surname is the risk: the count keeps "Mr. Reed"
    away from a "John Reed" said more often than he is, and two such full names ("George" and "John Knightley")
    leave the title a character of its own. Only "Mr.": a "Mrs." whose daughters' full names carry the surname
    and whose own given name the book hardly says would join a daughter. Needs the counts (``said``)."""
    if said is None:
        return {}
    from ..models.memory import packaged_name_genders

    genders = packaged_name_genders()
    owners = {}
    for title, words in keys:
        if title != MALE_TITLE or len(words) != 1:
            continue
        fulls = [full for full in full_names if len(full) >= 2 and full[-1] == words[0]
                 and genders.get(full[0]) == MASCULINE]
        if len(fulls) != 1:
            continue
        if said.get((0, fulls[0]), 0) + said.get((0, fulls[0][:1]), 0) < said.get((title, words), 0):
            owners[(title, words)] = fulls[0]
    return owners


@lru_cache(maxsize=1)
def _nicknamer() -> NickNamer:
    return NickNamer()


def name_forms(word: str) -> Set[str]:
    """The other forms of an English given name ("jo" → "josephine", "joanna", …; "margaret" → "meg", …)."""
    namer = _nicknamer()
    return (namer.nicknames_of(word) | namer.canonicals_of(word)) - {word}


def canonical_full_names(full_names: Iterable[Tuple[str, ...]], said: Mapping) -> Dict[Tuple[str, ...], Tuple[str, ...]]:
    """Each full name → the most said full name of its surname whose given name is a form of its own ("benjamin
    gunn" → "ben gunn"; "tom redruth" and "thomas redruth" one name); itself where there is none."""
    by_rest: Dict[Tuple[str, ...], List[Tuple[str, ...]]] = defaultdict(list)
    for name in full_names:
        by_rest[name[1:]].append(name)
    out = {}
    for names in by_rest.values():
        for name in names:
            same = [other for other in names if other == name or other[0] in name_forms(name[0])]
            out[name] = max(same, key=lambda other: (said.get(other, 0), other))
    return out


def given_name_forms(mapping: Dict[NameKey, NameKey], said: Mapping,
                     together: Optional[Set[FrozenSet[str]]]) -> Dict[NameKey, NameKey]:
    """``mapping`` with each untitled one-word character made the one other untitled character whose given name
    is a form of its word ("josephine" → "jo march"), where the book confirms the pair: an entity holds both
    (``together``; None: no confirmation asked), or the word is said less than a ``SLIP_AROUND``-th as often as
    the other character's names (a main character's formal name said now and then; "Dick" and "Richard Joyce",
    said about as often, stay two people). Of two one-word characters, the less said joins the more said. Where
    several characters' given names are forms of the word, the one said ``SLIP_AROUND`` times as often as any other
    is taken ("Margaret" → "Meg March", not "Daisy March", once at a party), else none."""
    characters = {target for target in mapping.values() if not target[0]}
    weight = Counter()
    for key, target in mapping.items():
        weight[target] += said.get(key[1], 0)
    merged: Dict[NameKey, NameKey] = {}
    for character in sorted(characters):
        if len(character[1]) != 1:
            continue
        word = character[1][0]
        forms = name_forms(word)
        others = sorted((other for other in characters if other != character and other[1][0] in forms),
                        key=lambda other: (-weight[other], other))
        if not others or (len(others) > 1 and weight[others[1]] * SLIP_AROUND > weight[others[0]]):
            continue  # of several forms, only one said far more often than the rest ("Meg" beside "Daisy")
        other = others[0]
        confirmed = together is None or frozenset((word, other[1][0])) in together or \
            weight[character] * SLIP_AROUND <= weight[other]
        if confirmed and (len(other[1]) > 1 or (weight[other], other) > (weight[character], character)):
            merged[character] = other
    return {key: merged.get(target, target) for key, target in mapping.items()}


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


def description(entity) -> Optional[str]:
    """An entity's most frequent mention when it is a long definite description a book names someone by ("the
    soldier with the green whiskers": "the", at least ``DESCRIPTION_WORDS`` words, a preposition), lowercased;
    else None."""
    texts = Counter(m.text.lower() for m in entity.mentions if m.mention_type != "pronoun")
    if not texts:
        return None
    text = texts.most_common(1)[0][0]
    words = text.split()
    return text if len(words) >= DESCRIPTION_WORDS and words[0] == "the" and \
        DESCRIPTION_PREPOSITIONS.intersection(words[2:]) else None


def described_over_names(entity) -> bool:
    """Whether an entity's most frequent definite description ("the captain": "the" and one or two more words, no
    name) is said at least ``DESCRIBED_OVER_NAMES`` times as often as all its names (``name_key``) together, and it
    has names, all of them said in quotations (the names someone calls another person by; a name the narration
    gives it, as to a hero mostly called "the old man", keys it)."""
    names, described = 0, Counter()
    for mention in entity.mentions:
        if mention.mention_type == "pronoun":
            continue
        key = name_key(mention.text)
        text = mention.text.lower()
        if key is not None and mention.mention_type == "name":
            if not mention.quoted:
                return False
            names += 1
        elif key is None and text.startswith("the ") and len(text.split()) <= 3:
            described[text] += 1
    return bool(names and described) and described.most_common(1)[0][1] >= DESCRIBED_OVER_NAMES * names


def row_key(entity, named: Optional[Mapping[NameKey, int]] = None) -> Optional[NameKey]:
    """The name key the table files an entity under: its ``main_name``; None for an entity called by a description
    more than by names (``described_over_names``), and for an unnamed narrator (``entities.unnamed_narrator``) whose
    main name is said once: one stray name that joined the narrator's I ("young John Clay") is no evidence."""
    if described_over_names(entity):
        return None
    key = main_name(entity, named)
    if key is not None and unnamed_narrator(entity.mentions) and sum(
            m.mention_type == "name" and name_key(m.text) == key for m in entity.mentions) < 2:
        return None
    return key


def appositive_aliases(entities: Sequence, people: AbstractSet[str]) -> Set[Tuple[NameKey, NameKey]]:
    """The (name, role) key pairs of the mentions that set a capitalised role beside a name ("Oz, the Great
    Wizard" → ((0, ("oz",)), (0, ("great", "wizard")))), where the role's last word is in ``people`` (nouns for
    people): read from one mention's text, or from a role mention set beside a name mention
    (``MentionRecord.apposed_to``: the memory may keep "Oz" and "the Great Wizard" as two mentions)."""
    pairs = set()
    for entity in entities:
        for mention in entity.mentions:
            if mention.mention_type == "pronoun":
                continue
            text = mention.text.strip()
            match = APPOSITIVE_ROLE.fullmatch(text) or (
                mention.apposed_to and APPOSITIVE_ROLE.fullmatch(f"{mention.apposed_to.strip()}, {text}"))
            if not match or match.group("role").split()[-1].lower() not in people:
                continue
            name, role = name_key(match.group("name")), name_key(match.group("role"))
            if name is not None and role is not None and name != role:
                pairs.add((name, role))
    return pairs


def role_of(text: str, people: AbstractSet[str]) -> Optional[Tuple[str, str]]:
    """(role, complement) of a capitalised role of a place or group ("the Good Witch of the North" → ("witch",
    "north")) whose role word is a noun for people (``people``); None for any other text."""
    match = ROLE_OF.fullmatch(text.strip())
    if match is None or match.group("role").lower() not in people:
        return None
    return match.group("role").lower(), match.group("of").lower()


def row_role(entity, people: AbstractSet[str]) -> Optional[Tuple[str, str]]:
    """The ``role_of`` a row is mostly called by: the most frequent one among its mentions, where it is more
    than half of them (a row that holds "the Witch of the West" five times and "the Witch of the East" once is
    the West's); else None."""
    roles = Counter(role for m in entity.mentions if m.mention_type != "pronoun"
                    for role in [role_of(m.text, people)] if role is not None)
    if not roles:
        return None
    role, n = roles.most_common(1)[0]
    return role if 2 * n > sum(roles.values()) else None


def _named_apart(entity, role: Tuple[str, str]) -> bool:
    """Whether a row's name holds a word beyond its role, its plural and its complement ("Glinda", "the Monkey"; not
    "the Good Witch" or "the Witches")."""
    key = name_key(entity.name) if entity.name else None
    allowed = {role[0], role[0] + "s", role[0] + "es", *role[1].split(), *ROLE_EPITHETS}
    return key is not None and any(word not in allowed for word in key[1])


def _mostly_role(entity, role: Tuple[str, str], people: AbstractSet[str]) -> bool:
    """Whether ``role`` is at least ``FULLER_SHARE`` of a row's mentions that are no pronoun."""
    said = [m for m in entity.mentions if m.mention_type != "pronoun"]
    return sum(role_of(m.text, people) == role for m in said) >= FULLER_SHARE * len(said)


def same_role_rows(rows: List, summarise, people: AbstractSet[str]) -> List:
    """``rows`` with those mostly called by one ``role_of`` merged (``row_role``), unless one is masculine and
    another feminine, or two of them are named apart (``_named_apart``), or one is and the role is under
    ``FULLER_SHARE`` of what it is called (``_mostly_role``: a row called "the Monkey" that holds two "King of
    Beasts")."""
    by_role: Dict[Tuple[str, str], List] = defaultdict(list)
    for row in rows:
        role = row_role(row, people)
        if role is not None:
            by_role[role].append(row)
    grouped = {id(row) for group in by_role.values() if len(group) > 1 for row in group}
    out = [row for row in rows if id(row) not in grouped]
    for role, group in by_role.items():
        if len(group) < 2:
            continue
        genders = {row.gender for row in group} & {"masculine", "feminine"}
        named = [row for row in group if _named_apart(row, role)]
        if len(genders) > 1 or len(named) > 1 or (named and not _mostly_role(named[0], role, people)):
            out.extend(group)
        else:
            out.append(_merged(group, summarise))
    return out


def _joined(mapping: Dict[NameKey, NameKey], pairs: Iterable[Tuple[NameKey, NameKey]],
            weight: Mapping[NameKey, int]) -> Dict[NameKey, NameKey]:
    """``mapping`` with the characters of each pair one: the more mentioned one's key (pairs chain: union-find)."""
    parent: Dict[NameKey, NameKey] = {}

    def root(key: NameKey) -> NameKey:
        while parent.get(key, key) != key:
            key = parent[key]
        return key

    for a, b in pairs:
        a, b = root(mapping.get(a, a)), root(mapping.get(b, b))
        if a != b:
            keep, join = (a, b) if (weight.get(a, 0), a) >= (weight.get(b, 0), b) else (b, a)
            parent[join] = keep
    return {key: root(target) for key, target in mapping.items()}


def merge_characters(entities: Sequence, summarise, people: AbstractSet[str] = frozenset()) -> List:
    """The entities with those that are one character merged (``summarise``: mention records → ``Entity``),
    most mentioned first. Entities of one character key with masculine and feminine ones among them stay two
    rows (two people of one name), unless the smaller side holds less than ``GENDER_SLIP`` of their mentions (a
    wrong pronoun joined, not another person). ``people``: nouns for people, for roles in apposition."""
    named = Counter(key for entity in entities for m in entity.mentions if m.mention_type == "name"
                    for key in [name_key(m.text)] if key is not None)
    keyed = [(entity, row_key(entity, named)) for entity in entities]
    aliases = appositive_aliases(entities, people)
    keys = [key for _, key in keyed if key is not None] + [k for pair in aliases for k in pair]
    roles = role_words({words[0] for _, words in keys if len(words) == 1}, people)
    mapping = character_keys(keys, named, names_held_together(entities), roles)
    weight = Counter()
    for entity, key in keyed:
        if key is not None:
            weight[mapping[key]] += entity.n_mentions
    mapping = _joined(mapping, aliases, weight)
    groups: Dict[NameKey, List] = defaultdict(list)
    merged = []
    described: Dict[str, List] = defaultdict(list)  # entities of no name, by their long definite description
    for entity, key in keyed:
        if key is None:
            text = description(entity)
            if text is None:
                merged.append(entity)
            else:
                described[text].append(entity)
    merged.extend(_merged(members, summarise) for members in described.values())
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
    merged = same_role_rows(merged, summarise, people)
    merged = titled_roles(merged, summarise, named)
    merged = stray_names(merged, summarise, named)
    return sorted(merged, key=lambda e: (-e.n_mentions, e.mentions[0].stream_start))


def role_titles(entity) -> Counter:
    """(role, surname) → how often an entity's name mentions give that surname a ``ROLE_TITLES`` title ("Dr.
    Livesey" → ("doctor", "livesey"))."""
    found = Counter()
    for mention in entity.mentions:
        words = mention.text.replace("’", "'").split()
        if mention.mention_type == "name" and len(words) == 2 and words[0].lower() in ROLE_TITLES and \
                words[1][:1].isupper() and words[1].isalpha():
            found[ROLE_TITLES[words[0].lower()], words[1].lower()] += 1
    return found


def role_description(entity) -> Optional[str]:
    """The role noun of an entity whose most frequent mention that is no pronoun, read without a leading "the", is
    a ``ROLE_TITLES`` role: "the doctor" and "Doctor" (said to him) count as one ("the doctor" → "doctor"); an
    unquoted I counts as the speaker a chapter's heading names ("Narrative Continued by the Doctor"); else None."""
    said = [m.text for m in entity.mentions if m.mention_type != "pronoun"] + \
        [m.speaker for m in entity.mentions if m.speaker]
    lowered = (" ".join(text.lower().split()) for text in said)
    texts = Counter(text[4:] if text.startswith("the ") else text for text in lowered)
    if not texts:
        return None
    top = texts.most_common(1)[0][0]
    return top if top in ROLE_TITLES.values() else None


def titled_roles(rows: List, summarise, named: Mapping[NameKey, int]) -> List:
    """``rows`` with each row of no name that is mostly "the <role>" ("the doctor", ``role_description``) merged
    into the one person row whose names give that title to a surname ("Dr. Livesey"), where the book gives the
    title, said at least twice, to one surname only ("the captain" of a book with a Captain Smollett and a Cap'n
    Flint stays apart)."""
    titled: Dict[str, Counter] = defaultdict(Counter)  # role → surname → how often
    holders: Dict[Tuple[str, str], Set[int]] = defaultdict(set)
    for index, row in enumerate(rows):
        if row.kind == "person":
            for (role, surname), n in role_titles(row).items():
                titled[role][surname] += n
                holders[role, surname].add(index)
    joins: Dict[int, List[int]] = defaultdict(list)  # holder row → the described rows it takes
    for index, row in enumerate(rows):
        if row.kind != "person" or row_key(row, named) is not None:
            continue
        role = role_description(row)
        surnames = [surname for surname, n in titled.get(role, {}).items() if n >= 2]
        if len(surnames) == 1 and len(holders[role, surnames[0]]) == 1:
            joins[next(iter(holders[role, surnames[0]]))].append(index)
    if not joins:
        return rows
    taken = {index for described in joins.values() for index in described}
    return [_merged([row] + [rows[i] for i in joins[index]], summarise) if index in joins else row
            for index, row in enumerate(rows) if index not in taken]


def stray_names(rows: List, summarise, named: Mapping[NameKey, int]) -> List:
    """The rows with each bare name a row holds by the memory's mistake moved to the one character it names: a
    surname to the row whose main name is a given name and that surname ("Morgan", joined to Long John Silver's
    entity before "Tom Morgan" was first said, goes to Tom Morgan's row), a one-word name to the row whose main
    name is that word alone ("Marmee" in Laurie's row goes to Marmee's). A name moves only where exactly one
    person row owns it that way (``name_owners``), and only an untitled one-word name mention whose word no longer
    name mention of its own row holds. A row left with no mention joins the row its names went to."""
    owners = name_owners(rows, named)
    moved: Dict[int, List] = defaultdict(list)  # owner row → the mentions it gains
    kept: Dict[int, List] = {}  # row that loses mentions → the mentions it keeps
    sent_to: Dict[int, Set[int]] = defaultdict(set)  # row that loses mentions → the rows they went to
    for index, row in enumerate(rows):
        if row.kind != "person":
            continue
        keys = [name_key(m.text) if m.mention_type == "name" else None for m in row.mentions]
        held = {word for key in keys if key is not None and len(key[1]) > 1 for word in key[1]}
        stays = []
        for m, key in zip(row.mentions, keys):
            owner = owners.get(key[1][0]) if key is not None and key[0] == 0 and len(key[1]) == 1 and \
                not possessive_name(m.text) else None
            if owner is not None and owner != index and key[1][0] not in held:
                moved[owner].append(m)
                sent_to[index].add(owner)
            else:
                stays.append(m)
        if index in sent_to:
            kept[index] = stays
    if not moved:
        return rows
    ids = {index: set(row.ids or [row.id]) for index, row in enumerate(rows)}
    emptied = {index for index, stays in kept.items() if not stays}  # all of it stray: its ids go with its names
    for index in emptied:
        for owner in sent_to[index]:
            ids[owner] |= ids[index]
    result = []
    for index, row in enumerate(rows):
        if index in emptied:
            continue
        if index in kept or index in moved:
            records = sorted(kept.get(index, row.mentions) + moved.get(index, []), key=lambda r: (r.stream_start, r.end))
            row = summarise(row.id, records)
            row.ids = sorted(ids[index])
        result.append(row)
    return result


def possessive_name(text: str) -> bool:
    """Whether a mention's name is a possessor ("Tom's younger brother", "Tom 's Aunt Polly": the mention is
    someone else)."""
    words = NAME_TOKENS.findall(text)[:3]
    return any(word.endswith(("'s", "’s")) or word in ("'", "’") for word in words)


def name_owners(rows: List, named: Mapping[NameKey, int]) -> Dict[str, int]:
    """Name word → the one person row that owns it: the row whose main name is a given name (one with known forms,
    ``name_forms``, or on the name-gender lexicon) and a surname owns both words, the row whose main name is that
    word alone and untitled owns it; words two rows would own are left out ("Tom" of Tom Morgan and Tom Redruth),
    and so are pronouns ("My dear" is no name) and rows called by a description more than by names
    (``described_over_names``)."""
    from ..models.memory import packaged_name_genders

    given = packaged_name_genders()
    owners: Dict[str, List[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        key = row_key(row, named) if row.kind == "person" else None
        if key is None or key[1][-1] in PRONOUNS:
            continue
        if len(key[1]) == 2 and (key[1][0] in given or name_forms(key[1][0])):
            owners[key[1][-1]].append(index)
            owners[key[1][0]].append(index)
        elif len(key[1]) == 1 and key[0] == 0:
            owners[key[1][0]].append(index)
    return {word: found[0] for word, found in owners.items() if len(found) == 1}


def names_held_together(entities: Sequence) -> Set[FrozenSet[str]]:
    """Pairs of given names (the first name word of a name mention) that one entity holds both of."""
    pairs: Set[FrozenSet[str]] = set()
    for entity in entities:
        firsts = sorted({key[1][0] for m in entity.mentions if m.mention_type == "name"
                         for key in [name_key(m.text)] if key is not None})
        pairs.update(frozenset((a, b)) for i, a in enumerate(firsts) for b in firsts[i + 1:])
    return pairs


def _merged(members: List, summarise):
    if len(members) == 1:
        return members[0]
    leader = max(members, key=lambda e: (e.n_mentions, -e.mentions[0].stream_start))
    records = sorted((r for e in members for r in e.mentions), key=lambda r: (r.stream_start, r.end))
    entity = summarise(leader.id, records)
    entity.ids = sorted({i for e in members for i in (e.ids or [e.id])})
    return entity
