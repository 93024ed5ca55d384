"""The layout of a candidate's attribute row: what the symbolic layer computes for each candidate mention
(``linguistics.mentions``) and the memory reads, one column each."""
from .values import PERSON_NOUN  # noqa: F401  (the INANIMATE value of a nominal headed by a noun for people)

# (bound_end: for an object pronoun, the end of the subject mention it cannot refer to, see
# ``linguistics.binding``, else -1; titled: the mention is an honorific and capitalised names, "Miss Bingley";
# name_word_k: ids of its first capitalised words other than titles and articles, -1 where it has fewer)
ATTRIBUTE_FIELDS = ("norm", "head", "pronoun", "gender", "number", "quoted", "proper", "inanimate", "noun_number",
                    "bound_end", "titled", "name_word_1", "name_word_2", "name_word_3", "speaker_start",
                    "speaker_end", "apposed_start", "apposed_end", "root", "binder") + tuple(
                        f"forbidden_{k}" for k in range(1, 5)) + ("person", "turn", "voice", "reporter", "role",
                                                                  "sentence", "title", "of_word_1", "of_word_2")
NORM, HEAD, PRONOUN, GENDER, NUMBER, QUOTED, PROPER, INANIMATE, NOUN_NUMBER, BOUND_END, TITLED = range(11)
NAME_WORDS = slice(TITLED + 1, TITLED + 4)
N_NAME_WORDS = NAME_WORDS.stop - NAME_WORDS.start
# (speaker_start, speaker_end: for a quoted I / me / my, the candidate span its quotation is attributed to; for
# a quoted you / your, the span it is addressed to, ``linguistics.speakers``; -1, -1 otherwise)
SPEAKER = slice(NAME_WORDS.stop, NAME_WORDS.stop + 2)
# (apposed_start, apposed_end: for a name right after a nominal candidate in apposition with it, "her sister
# Jane", that nominal's span, ``linguistics.mentions.apposed_nominals``; -1, -1 otherwise)
APPOSED = slice(SPEAKER.stop, SPEAKER.stop + 2)
# (root: the candidate's root token in the parse; binder: for a reflexive, the root token of its antecedent;
# forbidden_k: root tokens of the noun phrases it can never refer to, -1 where it has fewer; see
# ``linguistics.syntax``; person: 1 / 2 / 3 for a singular personal pronoun or an addressed name (2), 0 otherwise;
# turn: the id of the speaker's turn it stands in, ``linguistics.turns``)
ROOT, BINDER = APPOSED.stop, APPOSED.stop + 1
FORBIDDEN = slice(BINDER + 1, BINDER + 5)
PERSON, TURN = FORBIDDEN.stop, FORBIDDEN.stop + 1
# (voice: who says the text: 0 an unnamed narrator, else 1 + the id of the speaker the text is attributed to
# (``Doc._.speaker``, a dialogue read turn by turn); read for unquoted I / me / my only. Such an I also carries
# its speaker's name words in NAME_WORDS, so a later mention of the speaker's name joins it)
VOICE = TURN + 1
# (reporter: for a "they" that is the subject of a reported clause, the root token of the reporting verb's
# subject, "The gardener said that they …", ``linguistics.syntax.reporting_subject``; -1 otherwise)
REPORTER = VOICE + 1
# (role: the grammatical role of its root in the parse, ``linguistics.syntax.grammatical_role``, 0 without a parse;
# sentence: the index of its sentence, -1 without a parse)
ROLE, SENTENCE = REPORTER + 1, REPORTER + 2
# (title: the group of the title before a name, ``linguistics.mentions.title_group``: "Mr." / "Sir", "Mrs.",
# "Miss", "Aunt", "Uncle" are groups of their own that never name one person (``TITLE_CLASHES``); 0: none or
# another title, "Dr.", "Captain")
TITLE = SENTENCE + 1
# (of_word_k: ids of the capitalised words of a name's "of" complement, "the Witch of the North" → "north", "the
# Guardian of the Emerald Gates" → "emerald", "gate"; ``linguistics.lexicon.complement_words``; -1 where it has fewer)
OF_WORDS = slice(TITLE + 1, TITLE + 3)
N_OF_WORDS = OF_WORDS.stop - OF_WORDS.start
# no string, not a pronoun, nothing known
PADDING_ATTRIBUTES = (-1, -1, 0, 0, 0, 0, 0, 0, 0, -1, 0) + (-1,) * N_NAME_WORDS + (-1, -1, -1, -1) + (
    -1, -1) + (-1,) * (FORBIDDEN.stop - FORBIDDEN.start) + (0, -1, 0, -1, 0, -1, 0) + (-1,) * N_OF_WORDS
