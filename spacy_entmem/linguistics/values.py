"""The codes the symbolic layer writes and the memory reads, each defined once: genders, numbers, the pronoun
table and its classes, what a nominal is (a thing or place, a time, a noun for people), a mention's person in a
speaker's turn, and the groups of titles."""
from typing import Dict, Tuple

UNKNOWN, MASCULINE, FEMININE, NEUTER = 0, 1, 2, 3
SINGULAR, PLURAL = 1, 2
# word → (person, number, gender)
PRONOUNS: Dict[str, Tuple[int, int, int]] = {}
for _words, _features in (
    ("i me my mine myself", (1, SINGULAR, UNKNOWN)),
    ("we us our ours ourselves", (1, PLURAL, UNKNOWN)),
    ("you your yours yourself yourselves thee thou thy thine ye", (2, UNKNOWN, UNKNOWN)),
    ("he him his himself", (3, SINGULAR, MASCULINE)),
    ("she her hers herself", (3, SINGULAR, FEMININE)),
    ("it its itself", (3, SINGULAR, NEUTER)),
    ("they them their theirs themselves", (3, PLURAL, UNKNOWN)),
):
    for _word in _words.split():
        PRONOUNS[_word] = _features
PRONOUN_CLASSES = sorted(set(PRONOUNS.values()))
PRONOUN_CLASS = {word: PRONOUN_CLASSES.index(f) + 1 for word, f in PRONOUNS.items()}  # 0 = not a pronoun
FIRST_SINGULAR = PRONOUN_CLASS["i"]  # the pronoun class of "i me my mine myself"
SECOND_PERSON = PRONOUN_CLASS["you"]  # the pronoun class of "you your yours yourself"

# what a nominal is, in the INANIMATE column: a place or a thing, a time (``linguistics.syntax.place_or_time``), or
# one headed by a noun for people ("the gardener")
NOT_A_THING, PLACE, TIME = 0, 1, 2
PERSON_NOUN = -1

# a mention's person in a speaker's turn (the PERSON column, ``linguistics.turns``): none, the speaker, a you with
# an addressee, a third person, a you with none (the reader's), and we / us / our
NO_PERSON, FIRST, SECOND, THIRD, READER, FIRST_PLURAL = 0, 1, 2, 3, 4, 5

# grammatical roles (the ROLE column, ``linguistics.syntax.grammatical_role``; 0: no parse), and the SENTENCE
# column's value where the sentence is unknown
N_ROLES = 6
NO_ROLE, SUBJECT, OBJECT, POSSESSOR, OBLIQUE, OTHER_ROLE = range(N_ROLES)
NO_SENTENCE = -1

# groups of the title before a name (the TITLE column, ``linguistics.mentions.title_group``)
MALE_TITLE, MARRIED_TITLE, UNMARRIED_TITLE, AUNT_TITLE, UNCLE_TITLE = 1, 2, 3, 4, 5
# a cell holding a titled name of one of these groups is never joined by a titled name of another one of them
# ("Mrs. March" and "Mr. March", "Aunt March", "Miss March")
TITLE_CLASHES = frozenset({MALE_TITLE, MARRIED_TITLE, UNMARRIED_TITLE, AUNT_TITLE, UNCLE_TITLE})
# titles of an elder that a child's name in the family never takes ("Mrs. March" is not "Meg March")
ELDER_TITLES = frozenset({MARRIED_TITLE, AUNT_TITLE, UNCLE_TITLE})
