"""The grammar and agreement rules the entity memory reads, as per-(candidate, cell) features and constraints.

The memory (``nn.memory.mention_memory``) keeps a symbolic state per cell (``CellState``: the entity it holds, the
gender, number, names, titles, root tokens and persons of its mentions, its last mention); this module reads that
state against a step's candidates (their attribute rows, ``linguistics.columns``) and says

- which (candidate, cell) pairs the grammar rules out (``CellRules``' ``*_clash`` methods and ``bound``, switched
  by the memory's settings, ``CELL_CLASH_RULES``);
- which cell a rule names for a candidate (``name_holder``, ``binder_cell``, ``narrator_cell``);
- the category ids of the pair features the similarity MLP embeds (``pair_features``, ``parse_pair_features``;
  ``PAIR_FEATURE_NAMES``, ``PARSE_FEATURE_NAMES``).

Everything here is numpy over the state's fields; nothing depends on torch or on the memory's weights.
"""
from typing import List, Set, Tuple

import numpy

from . import switches
from .lexicon import NARRATOR_VOICE
from .columns import (APPOSED, BINDER, BOUND_END, FORBIDDEN, GENDER, HEAD, NAME_WORDS, NORM, NOUN_NUMBER, NUMBER,
                      OF_WORDS, PERSON, PRONOUN, PROPER, QUOTED, ROLE, SENTENCE, SPEAKER, TITLE, TITLED, TURN, VOICE)
from .values import (ELDER_TITLES, FEMININE, FIRST_PLURAL, FIRST_SINGULAR, MASCULINE, N_ROLES, NO_SENTENCE,
                     PRONOUN_CLASS, PRONOUN_CLASSES, READER, SECOND, SECOND_PERSON, TIME, TITLE_CLASHES)

TIME_EXPRESSION = TIME  # the INANIMATE value of a time expression (1: a thing or a place)
PERSONAL_GENDERS = (MASCULINE, FEMININE)
N_PRONOUN_CLASSES = len(PRONOUN_CLASSES) + 1  # pronoun classes 1..7 (0: not a pronoun)
THIRD_PERSON = tuple(sorted({PRONOUN_CLASS[word] for word in ("he", "she", "it", "they")}))
# membership as lookup tables indexed by the attribute's value (numpy.isin sorts at every call)
IS_PERSONAL_GENDER = numpy.isin(numpy.arange(4), PERSONAL_GENDERS)  # genders 0..3 (``linguistics.values``)
IS_THIRD_PERSON = numpy.isin(numpy.arange(N_PRONOUN_CLASSES), THIRD_PERSON)
DISTANCE_EDGES = numpy.array([1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024])
COUNT_EDGES = numpy.array([2, 3, 4, 6, 9, 16])
MAX_RANK = 12
# categories of each pair feature (see ``CellRules.pair_features``)
PAIR_FEATURE_SIZES = (3, 3, 3, 3, 4, len(DISTANCE_EDGES) + 1, len(COUNT_EDGES) + 1, MAX_RANK + 1, 4, 2, 2)
PAIR_FEATURE_NAMES = ("exact string match", "head match", "gender agreement", "number agreement",
                      "pronoun vs the cell's last mention", "token distance", "cell size", "recency rank",
                      "quotation", "cell has a proper name", "candidate is a proper name")
# the parse's pair features of a memory built with ``parse_features`` (``CellRules.parse_pair_features``), after
# the others: the candidate's grammatical role and its cell's last mention's (0: no parse), how many sentences
# back the cell was last mentioned (0: unknown, 1: the same sentence, ..., 4: three or more back), and what the
# binding principles say of the pair (0: nothing, 1: the cell holds a noun phrase the parse rules out, 2: the
# cell holds the reflexive's binder)
PARSE_FEATURE_SIZES = (N_ROLES, N_ROLES, 5, 3)
PARSE_FEATURE_NAMES = ("candidate's role", "cell's last role", "sentence distance", "binding")
ALL_FEATURE_NAMES = PAIR_FEATURE_NAMES + PARSE_FEATURE_NAMES
GENDER_AGREEMENT = PAIR_FEATURE_NAMES.index("gender agreement")  # what ``name_agreement`` constrains
NUMBER_AGREEMENT = PAIR_FEATURE_NAMES.index("number agreement")
THEY = PRONOUN_CLASS["they"]  # the pronoun class of "they them their theirs themselves"
IT = PRONOUN_CLASS["it"]  # the pronoun class of "it its itself"
FIRST_OR_SECOND = tuple(sorted({PRONOUN_CLASS[word] for word in ("i", "we", "you")}))  # I, we and you
SPOKEN_PERSONS = (1, SECOND, READER)  # the PERSON of an I / me / my and of a you
IS_FIRST_OR_SECOND = numpy.isin(numpy.arange(N_PRONOUN_CLASSES), FIRST_OR_SECOND)  # (lookup tables, as above)
IS_SPOKEN_PERSON = numpy.isin(numpy.arange(FIRST_PLURAL + 1), SPOKEN_PERSONS)  # PERSON values 0..FIRST_PLURAL
PERSON_VALUES = tuple(range(1, FIRST_PLURAL + 1))  # the PERSON of a mention that has one
# the finer parts of the rules below (person agreement's "it", singular and plural "they", times, later leaders)
# are grammar switches: settings of the component that runs them (``linguistics.switches``)
# a new "they" may join the people of plural number last mentioned within this many tokens (``plural_they_holders``)
PLURAL_THEY_WINDOW = 15
SINGULAR_THEY_WINDOW = 40  # tokens back in which a plural entity makes "they" plural
NUMBER_RULES = ("number_clash", "plural_clash")  # the clash rules about number, relaxed for a singular "they"


# the on / off rules whose constraint is a ``CellRules`` method (attrs, rows, cells) → (P,) bool: the memory
# attribute that switches it, the method's name
CELL_CLASH_RULES = (("noun_number_agreement", "number_clash"), ("plural_noun_agreement", "plural_clash"),
                    ("titled_name_agreement", "name_clash"), ("title_agreement", "title_clash"),
                    ("binding_agreement", "bound"),
                    ("syntactic_binding", "syntax_clash"), ("person_agreement", "person_clash"))


def narrator_pronouns(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates that are an I / me / my outside quotation marks (in
    first-person narration, the narrator)."""
    return (attrs[..., PRONOUN] == FIRST_SINGULAR) & (attrs[..., QUOTED] == 0)


def signing_names(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates that are a name of the first person outside quotation marks: the
    name that signs a letter ("Best, Daniel"; ``turns.signature_start``), or a speaker label's ("Lee:")."""
    return (attrs[..., PERSON] == 1) & (attrs[..., PRONOUN] == 0) & (attrs[..., QUOTED] == 0)


def narrator_voiced(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: what the narrator-continuity rule joins to the cell of its voice's I: an unquoted
    I / me / my (``narrator_pronouns``) and a signing name (``signing_names``)."""
    return narrator_pronouns(attrs) | signing_names(attrs)


def third_person(attrs: numpy.ndarray) -> numpy.ndarray:
    """(B,) whether each candidate is a third person: he / she and their forms, or no personal pronoun (a name, a
    nominal, it, they); not I, we, you nor a name a speaker label or greeting gives a person."""
    person = attrs[:, PERSON]
    return (person == 3) | ((person == 0) & ~IS_FIRST_OR_SECOND[attrs[:, PRONOUN]])


def speaking(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the unquoted I / me / my of a text whose speaker is named (``VOICE`` > 0)."""
    return narrator_pronouns(attrs) & (attrs[..., VOICE] > 0)


def speaker_pronouns(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates that are a quoted I / me / my whose quotation has an
    attributed speaker, or a quoted you / your whose quotation has an addressee (``linguistics.speakers``; both in
    the ``SPEAKER`` columns)."""
    person = (attrs[..., PRONOUN] == FIRST_SINGULAR) | (attrs[..., PRONOUN] == SECOND_PERSON)
    return person & (attrs[..., QUOTED] == 1) & (attrs[..., SPEAKER.start] >= 0)


def addressed_vocatives(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates that are a quoted vocative whose quotation has an addressee
    (``speakers.vocatives``: no pronoun, yet an addressee in the ``SPEAKER`` columns)."""
    return (attrs[..., PRONOUN] == 0) & (attrs[..., QUOTED] == 1) & (attrs[..., SPEAKER.start] >= 0)


def speaker_followers(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates the speaker-continuity rule joins to the span in their ``SPEAKER``
    columns: a quoted I / you (``speaker_pronouns``) or a vocative (``addressed_vocatives``)."""
    return speaker_pronouns(attrs) | addressed_vocatives(attrs)


def apposed_names(attrs: numpy.ndarray) -> numpy.ndarray:
    """attrs (..., A) → (...) bool: the candidates that are a name in apposition with the nominal candidate
    right before them ("her sister Jane")."""
    return attrs[..., APPOSED.start] >= 0


def is_name(attrs: numpy.ndarray) -> numpy.ndarray:
    """(B,) whether each candidate is a name: not a pronoun, its head one of its name words ("Jo", "Mr.
    Laurence"; not "Jo browsed over the new library")."""
    return (attrs[:, NORM] >= 0) & (attrs[:, NAME_WORDS] == attrs[:, HEAD, None]).any(axis=1)


def unnamed_narrator_pronouns(attrs: numpy.ndarray) -> numpy.ndarray:
    """(B,) whether each candidate is an unquoted I / me / my (``narrator_pronouns``) in the voice of a narrator no
    speaker label or ``Doc._.speaker`` names (``NARRATOR_VOICE``)."""
    return narrator_pronouns(attrs) & (attrs[:, VOICE] == NARRATOR_VOICE)


def narrated_names(attrs: numpy.ndarray) -> numpy.ndarray:
    """(B,) whether each candidate is a name (``is_name``) outside quotation marks: in first-person narration, a
    name the narrator gives someone else ("Dr. Livesey came"; the narrator's own name is said by others, quoted,
    or signs a letter: ``signing_names``)."""
    return is_name(attrs) & (attrs[:, QUOTED] == 0) & ~signing_names(attrs)


def agreement(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """0 where either side is unknown, 1 where they agree, 2 where they differ."""
    return numpy.where((a == 0) | (b == 0), 0, numpy.where(a == b, 1, 2))


def titles_clash(attrs: numpy.ndarray, titles: Set[int], names: Set[int]) -> bool:
    """Whether a candidate with attributes ``attrs`` (A,) clashes with an entity holding ``titles`` and name words
    ``names``: a titled name of a group that never shares a person with one the entity holds, and a name word of
    it ("Mrs. March" and "Mr. March"; not "Mrs. Weston" and "Miss Taylor", whom a marriage made one: on LitBank
    and GUM dev gold the rule without the shared name kept 95.2 % of its pairs apart, with it all), or an elder's
    title the entity never had while it holds all the candidate's name words and a given name more ("Mrs. March"
    and "Meg March")."""
    title = int(attrs[TITLE])
    words = {word for word in attrs[NAME_WORDS].tolist() if word >= 0}
    if title in TITLE_CLASHES and any(t != title and t in TITLE_CLASHES for t in titles) and words & names:
        return True
    if title in ELDER_TITLES and title not in titles:
        return bool(words) and words < names
    return False

def complement_keys(attrs: numpy.ndarray) -> List[Tuple[str, int, int]]:
    """The keys a name with attributes ``attrs`` (A,) leaves in its cell's strings for its "of" complement: ("o",
    head id, word id) per complement word ("the Witch of the North": ("o", witch, north))."""
    head = int(attrs[HEAD])
    return [("o", head, word) for word in attrs[OF_WORDS].tolist() if word >= 0]


def complements_clash(attrs: numpy.ndarray, strings: Set) -> bool:
    """Whether a name with attributes ``attrs`` (A,) has an "of" complement and clashes with an entity whose strings
    (``CellState.strings``) hold a name of the same head whose complement shares no word with its own: "the Witch
    of the North" and "the Wicked Witch of the West"; not "the Guardian of the Gates" and "the Guardian of the
    Emerald Gates", nor a cell holding only "the Witch"."""
    words = {word for word in attrs[OF_WORDS].tolist() if word >= 0}
    if not words:
        return False
    head = int(attrs[HEAD])
    held = {key[2] for key in strings if key[0] == "o" and key[1] == head}
    return bool(held) and held.isdisjoint(words)


class CellRules:
    """The rules and pair features over a memory's cell state, as a base of ``CellState``: they read its
    per-cell arrays (B documents × N cells: ``entity``, ``usage``, ``last_end``, ``count``, ``gender``, ``number``,
    ``last_pronoun``, ``last_quoted``, ``last_role``, ``last_sentence``, ``proper``, ``inanimate``, ``temporal``,
    ``untimed``, ``person_noun``, ``third_person``, ``narrator``, ``noun_numbers``, ``spoken``, ``reader``), its
    per-cell sets (``strings``, ``names``, ``roots``, ``persons``, ``titles``), its string index ``cells_with`` and
    the setting ``name_ties_to_most_mentioned``; they change none of them."""

    entity: numpy.ndarray
    usage: numpy.ndarray

    @property
    def used(self) -> numpy.ndarray:
        return self.entity >= 0

    def recency_rank(self) -> numpy.ndarray:
        """(B, N) each cell's rank by usage, 0 = the most recently used."""
        return numpy.argsort(numpy.argsort(-self.usage, axis=1, kind="stable"), axis=1, kind="stable")

    def time_only(self) -> numpy.ndarray:
        """(B, N) cells that only time expressions have joined ("yesterday": no "it" refers to it)."""
        return self.temporal & ~self.untimed

    def holds_person(self) -> numpy.ndarray:
        """(B, N) cells that hold a person: a masculine or feminine mention, a noun for people, an I or a you."""
        return IS_PERSONAL_GENDER[self.gender] | self.person_noun | self.spoken | self.reader | (self.narrator > 0)

    def thing_only(self) -> numpy.ndarray:
        """(B, N) cells that hold a mention headed by an inanimate noun and no masculine / feminine gender."""
        return self.inanimate & ~IS_PERSONAL_GENDER[self.gender]

    def number_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a third-person pronoun with a cell that no pronoun
        has given a number yet and whose nominal mentions all have the other number ("they" and a cell
        holding only "magnetism")."""
        pronoun = attrs[rows, PRONOUN]
        number = attrs[rows, NUMBER]
        nouns = self.noun_numbers[rows, cells]
        one_number = (nouns == 1) | (nouns == 2)  # bits: 1 singular, 2 plural; 3 both
        return (IS_THIRD_PERSON[pronoun] & (number > 0) & (self.number[rows, cells] == 0)
                & one_number & (nouns != number))

    def plural_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a common noun phrase with a plural head ("Critics")
        with a cell that only singular mentions have joined (a singular noun head or a singular pronoun: "the
        mayor", "her"). Names ("the United States" ... "it") are left alone. With the ``names_not_plural``
        switch, also a name with a singular head ("Mr. Darling", "John") and a cell that only plural mentions and
        no masculine or feminine one joined ("they", "them", "the children"): a family's "they" does not become
        its father."""
        nouns, number = self.noun_numbers[rows, cells], self.number[rows, cells]
        singular = ((nouns & 1) > 0) | (number == 1)  # noun_numbers bits: 1 singular, 2 plural
        plural = ((nouns & 2) > 0) | (number == 2)
        clash = ((attrs[rows, PRONOUN] == 0) & (attrs[rows, PROPER] == 0) & (attrs[rows, NOUN_NUMBER] == 2)
                 & singular & ~plural)
        if switches.active().names_not_plural:  # and a singular name, a cell that only plural mentions joined
            clash |= (is_name(attrs)[rows] & (attrs[rows, NOUN_NUMBER] == 1) & plural & ((nouns & 1) == 0)
                      & ~IS_PERSONAL_GENDER[self.gender[rows, cells]])
        return clash

    def name_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a titled name with a cell whose mentions have name
        words, none of them the candidate's ("Miss Bingley" and a cell holding "Jane"; not "Miss Elizabeth"
        and a cell holding "Elizabeth Bennet"); with the ``full_names_apart`` switch, an untitled name of two or
        more name words too ("Tom Morgan" and a cell holding "Long John"; a one-word name may be a nickname and is
        left alone); with the ``of_names_apart`` switch, also a name with an "of"
        complement and a cell holding a name of the same head whose complement shares no word with it
        (``complements_clash``)."""
        clash = numpy.zeros(len(rows), dtype=bool)
        asks = attrs[rows, TITLED] > 0
        if switches.active().full_names_apart:  # and an untitled name of two or more name words ("Tom Morgan")
            asks |= (attrs[rows, PRONOUN] == 0) & ((attrs[rows, NAME_WORDS] >= 0).sum(axis=1) >= 2)
        asked = numpy.flatnonzero(asks)
        for k, b, i, words in zip(asked.tolist(), rows[asked].tolist(), cells[asked].tolist(),
                                  attrs[rows[asked], NAME_WORDS].tolist()):
            held = self.names[b][i]
            clash[k] = bool(held) and held.isdisjoint(words)
        if switches.active().of_names_apart:
            for k in numpy.flatnonzero((attrs[rows, OF_WORDS] >= 0).any(axis=1)).tolist():
                clash[k] = clash[k] or complements_clash(attrs[rows[k]], self.strings[rows[k]][cells[k]])
        return clash

    def name_holder(self, attrs: numpy.ndarray, starts: numpy.ndarray, active: numpy.ndarray) -> numpy.ndarray:
        """(B,) for each active candidate that is a name (its head one of its name words), the one cell whose
        earlier mentions hold all its name words ("Thompson" or "Jennifer" and a cell holding "Jennifer
        Thompson"; not "Greek civilization"); and so for a named speaker's I, by the speaker's name words (``VOICE``):
        "Dana" said earlier, then Dana's "I"; -1 where no cell or several do."""
        holder = numpy.full(len(active), -1)
        names = attrs[:, NAME_WORDS]
        asks = active & (is_name(attrs) | speaking(attrs))
        for b in numpy.flatnonzero(asks).tolist():
            words = {word for word in names[b].tolist() if word >= 0}
            cells = [i for i, held in enumerate(self.names[b])
                     if words <= held and self.entity[b, i] >= 0 and self.last_end[b, i] <= starts[b]]
            if len(cells) == 1:  # the mention holding them ends before this one: not a span nested in it
                holder[b] = cells[0]
            elif cells and self.name_ties_to_most_mentioned:
                holder[b] = max(cells, key=lambda i: (self.count[b, i], self.usage[b, i]))
        return holder

    def title_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a titled name with a cell holding a titled name of a
        group it never shares a person with ("Mrs. March" and "Mr. March", "Aunt March", "Miss March"), or an
        elder's title with a cell that holds all its name words and a given name more, and never that title
        ("Mrs. March" and a cell holding "Meg March")."""
        clash = numpy.zeros(len(rows), dtype=bool)
        for k in numpy.flatnonzero(attrs[rows, TITLE] > 0).tolist():
            b, i = rows[k], cells[k]
            clash[k] = titles_clash(attrs[b], self.titles[b][i], self.names[b][i])
        return clash

    def unseen_name(self, attrs: numpy.ndarray) -> numpy.ndarray:
        """(B,) whether each row's candidate is a name none of whose name words any cell holds (a new name)."""
        names = attrs[:, NAME_WORDS]
        unseen = (attrs[:, NORM] >= 0) & (names >= 0).any(axis=1)
        for b in numpy.flatnonzero(unseen).tolist():
            words = {word for word in names[b].tolist() if word >= 0}
            unseen[b] = not any(words & held for i, held in enumerate(self.names[b]) if self.entity[b, i] >= 0)
        return unseen

    def bound(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair an object pronoun with the cell whose last mention is
        its clause's subject ("Cobb allegedly choked her": not Cobb; ``linguistics.binding``)."""
        ends = attrs[rows, BOUND_END]
        return (ends >= 0) & (self.last_end[rows, cells] == ends)

    def recently_mentioned(self, starts: numpy.ndarray, window: int = SINGULAR_THEY_WINDOW) -> numpy.ndarray:
        """(B, N) the used cells last mentioned within ``window`` tokens before each row's candidate."""
        return self.used & ((starts[:, None] - self.last_end) <= window)

    def plural(self) -> numpy.ndarray:
        """(B, N) cells that hold a plural entity: a plural pronoun or a plural noun joined."""
        return (self.number == 2) | ((self.noun_numbers & 2) > 0)

    def plural_near(self, starts: numpy.ndarray) -> numpy.ndarray:
        """(B,) whether a ``plural`` cell was ``recently_mentioned``."""
        return (self.plural() & self.recently_mentioned(starts)).any(axis=1)

    def people_near(self, starts: numpy.ndarray) -> numpy.ndarray:
        """(B,) how many cells that may hold a person (masculine, feminine, or a singular animate nominal) were
        ``recently_mentioned``."""
        person = IS_PERSONAL_GENDER[self.gender] | ((self.noun_numbers == 1) & ~self.inanimate)
        return (person & self.recently_mentioned(starts)).sum(axis=1)

    def single_person(self) -> numpy.ndarray:
        """(B, N) cells that may hold one person a writer calls "they": singular common nouns of no known gender,
        no thing, no name ("a gardener", "the witness"; not "Winterbourne", not a cell "he" has joined); with
        the ``they_person_nouns`` switch, only those a noun for people heads (``PERSON_NOUN``: "the gardener", not
        "the swamp")."""
        singular_noun = (self.noun_numbers == 1) & ~self.inanimate & (self.number != 2)
        if switches.active().they_person_nouns:
            singular_noun &= self.person_noun
        return self.used & singular_noun & (self.proper == 0) & ~IS_PERSONAL_GENDER[self.gender]

    def syntax_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a candidate with a cell holding a mention whose root
        token the parse rules out for it (``FORBIDDEN``: binding principles B and C, i-within-i)."""
        clash = numpy.zeros(len(rows), dtype=bool)
        asks = (attrs[:, FORBIDDEN] >= 0).any(axis=1)
        pairs = numpy.flatnonzero(asks[rows])
        if len(pairs):  # one set per candidate, one set test per pair (most pairs' candidates have none)
            ruled_out = {b: {root for root in attrs[b, FORBIDDEN].tolist() if root >= 0}
                         for b in numpy.flatnonzero(asks).tolist()}
            clash[pairs] = [not self.roots[b][i].isdisjoint(ruled_out[b])
                            for b, i in zip(rows[pairs].tolist(), cells[pairs].tolist())]
        return clash

    def person_clash(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) whether the pairs (rows[k], cells[k]) pair a candidate of one grammatical person with a cell
        holding a mention of another person in the same speaker's turn ("Lee: I met Dana. She …": "She" is not
        the speaker's "I"; "Hi Tom, … I": the writer is not the addressee); and an "it" with a cell holding an
        I / me / my or a you in any turn; and one speaker's unquoted I with a cell holding another's (``VOICE``), or
        a named speaker's I with a cell of someone else (neither its I's nor holding the speaker's name)."""
        clash = numpy.zeros(len(rows), dtype=bool)
        asks = attrs[:, PERSON] > 0
        pairs = numpy.flatnonzero(asks[rows])
        if len(pairs):  # per candidate the (turn, person) entries of its turn's other persons; a set test per pair
            others = {b: {(int(attrs[b, TURN]), p) for p in PERSON_VALUES if p != attrs[b, PERSON]}
                      for b in numpy.flatnonzero(asks).tolist()}
            clash[pairs] = [not self.persons[b][i].isdisjoint(others[b])
                            for b, i in zip(rows[pairs].tolist(), cells[pairs].tolist())]
        voices = self.narrator[rows, cells]  # one speaker's I never joins another speaker's I
        clash |= narrator_pronouns(attrs[rows]) & (voices > 0) & (voices != attrs[rows, VOICE] + 1)
        for k in numpy.flatnonzero(speaking(attrs[rows]) & (voices != attrs[rows, VOICE] + 1)).tolist():
            # a named speaker's first I: the speaker's own cell, one that holds the speaker's name, or a new one
            words = {word for word in attrs[rows[k], NAME_WORDS].tolist() if word >= 0}
            clash[k] = not (words and words <= self.names[rows[k]][cells[k]])
        if switches.active().narrator_unnamed:  # the narration names others, never its own unnamed narrator
            clash |= narrated_names(attrs)[rows] & (voices == NARRATOR_VOICE + 1)
            # and its I joins no cell of third persons only ("the doctor", "Jim Hawkins" before any I of its own)
            clash |= unnamed_narrator_pronouns(attrs)[rows] & (voices == 0) & self.third_person[rows, cells]
        if switches.active().impersonal_it:  # "it" is never a speaker or addressee
            it = attrs[rows, PRONOUN] == IT
            clash[it] = self.spoken[rows[it], cells[it]]
        # a you with no addressee is no one the text names, and no one it names is that you
        clash |= (attrs[rows, PERSON] == READER) & self.third_person[rows, cells]
        clash |= third_person(attrs[rows]) & self.reader[rows, cells]
        return clash

    def binder_cell(self, attrs: numpy.ndarray, active: numpy.ndarray) -> numpy.ndarray:
        """(B,) for each active reflexive with a binder in the parse, the cell holding a mention rooted at the
        binder (principle A: "Tom saw himself" joins Tom); -1 elsewhere."""
        cells = numpy.full(len(active), -1)
        for b in numpy.flatnonzero(active & (attrs[:, BINDER] >= 0)).tolist():
            binder = attrs[b, BINDER]
            holders = [i for i, roots in enumerate(self.roots[b]) if binder in roots and self.entity[b, i] >= 0]
            if holders:
                cells[b] = holders[0]
        return cells

    def narrator_cell(self, attrs: numpy.ndarray, active: numpy.ndarray) -> numpy.ndarray:
        """(B,) for each candidate that is an unquoted first-person singular pronoun or a signing name
        (``narrator_voiced``), the most recently used cell that holds an I of the same voice (the narrator's, or in
        a dialogue the speaker's); -1 for other candidates and where no cell does."""
        asks = active & narrator_voiced(attrs)
        if not asks.any():  # most steps: no bookkeeping over the cells
            return numpy.full(len(asks), -1)
        narrator = (self.narrator == attrs[:, VOICE, None] + 1) & self.used
        latest = numpy.argmax(numpy.where(narrator, self.usage, -1.0), axis=1)
        return numpy.where(asks & narrator.any(axis=1), latest, -1)

    def pair_features(self, attrs: numpy.ndarray, starts: numpy.ndarray, rows: numpy.ndarray,
                      cells: numpy.ndarray) -> numpy.ndarray:
        """(P, F) category ids of the (candidate, cell) pairs (rows[k], cells[k]); attrs (B, A) the
        candidates' attributes (A = len(ATTRIBUTE_FIELDS)), starts (B,) their first tokens."""
        B, N = self.entity.shape
        exact = numpy.where(self.used, 1, 0)
        head = exact.copy()
        norms, heads = attrs[:, NORM].tolist(), attrs[:, HEAD].tolist()
        matches = {"n": ([], []), "h": ([], [])}  # (rows, cells) of the matching cells, set at once below
        for b in numpy.unique(rows).tolist():  # one lookup per candidate, not per (candidate, cell)
            if norms[b] < 0:
                continue
            for kind, key in (("n", norms[b]), ("h", heads[b])):
                holders = self.cells_with[b].get((kind, key))
                if holders:
                    matches[kind][0].extend([b] * len(holders))
                    matches[kind][1].extend(holders)
        for field, (match_rows, match_cells) in ((exact, matches["n"]), (head, matches["h"])):
            if match_rows:
                field[match_rows, match_cells] = 2
        not_pronoun = attrs[:, NORM, None] < 0
        exact, head = numpy.where(not_pronoun, 0, exact), numpy.where(not_pronoun, 0, head)
        pronoun = attrs[:, PRONOUN, None]
        pronoun_relation = numpy.where(pronoun == 0, 0, numpy.where(
            self.last_pronoun == 0, 3, numpy.where(self.last_pronoun == pronoun, 1, 2)))
        distance = numpy.searchsorted(DISTANCE_EDGES, numpy.maximum(starts[:, None] - self.last_end, 0), "right")
        count = numpy.searchsorted(COUNT_EDGES, self.count, "right")
        rank = self.recency_rank()
        quote = 2 * attrs[:, QUOTED, None] + self.last_quoted
        features = numpy.stack([
            exact, head,
            agreement(attrs[:, GENDER, None], self.gender), agreement(attrs[:, NUMBER, None], self.number),
            pronoun_relation, distance, count, numpy.minimum(rank, MAX_RANK), quote, self.proper,
            numpy.broadcast_to(attrs[:, PROPER, None], (B, N)),
        ], axis=-1)
        return features[rows, cells]

    def parse_pair_features(self, attrs: numpy.ndarray, rows: numpy.ndarray, cells: numpy.ndarray,
                            ruled_out: numpy.ndarray) -> numpy.ndarray:
        """(P, len(PARSE_FEATURE_SIZES)) category ids of the parse's features of the pairs (rows[k], cells[k])
        (see ``PARSE_FEATURE_NAMES``); ``ruled_out`` (P,) their ``syntax_clash``."""
        sentence, last = attrs[rows, SENTENCE], self.last_sentence[rows, cells]
        known = (sentence != NO_SENTENCE) & (last != NO_SENTENCE)
        distance = numpy.where(known, 1 + numpy.clip(sentence - last, 0, 3), 0)
        binding = numpy.where(ruled_out, 1, 0)
        for k in numpy.flatnonzero(attrs[rows, BINDER] >= 0).tolist():
            if attrs[rows[k], BINDER] in self.roots[rows[k]][cells[k]]:
                binding[k] = 2
        return numpy.stack([attrs[rows, ROLE], self.last_role[rows, cells], distance, binding], axis=-1)
