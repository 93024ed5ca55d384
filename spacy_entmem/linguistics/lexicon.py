"""The word lists and word-level readings the symbolic layer shares: pronouns, gender cues of nouns for people
(honorifics and kinship words), titles and their groups, name words, head words, possessives, singular forms,
tag classes, and the strings-to-ids map (``StringIds``). No parse and no torch: the layer's bottom, which the
parse's rules (``syntax``), the turns (``turns``) and the mention rows (``mentions``) read.
"""
from typing import AbstractSet, Dict, List, Optional, Tuple

from spacy.strings import hash_string

from . import switches
from .columns import N_NAME_WORDS
from .sentences import SENTENCE_FINAL
from .speakers import OPENING_QUOTES, TOGGLING_QUOTES
from .values import (AUNT_TITLE, FEMININE, MALE_TITLE, MARRIED_TITLE, MASCULINE, PLURAL, PRONOUNS, SINGULAR,
                     UNCLE_TITLE, UNKNOWN, UNMARRIED_TITLE)


GENDER_CUES = {
    MASCULINE: "mr mr. sir lord king prince duke earl count baron monsieur m. master father brother uncle son "
               "husband man gentleman boy nephew grandfather emperor monk priest don signor herr",
    FEMININE: "mrs mrs. miss ms ms. lady queen princess duchess countess baroness madame mme mme. mademoiselle "
              "mlle mother sister aunt daughter wife woman girl niece grandmother empress nun doña madam frau",
}
GENDER_OF_WORD = {word: gender for gender, words in GENDER_CUES.items() for word in words.split()}
LEADING_WORDS = {"the", "a", "an", "this", "that", "these", "those"}
# words skipped before a given name ("Mr. Darcy", "the young Dr. Watson")
NAME_PREFIXES = set(GENDER_OF_WORD) | LEADING_WORDS | {
    "dr", "dr.", "prof", "prof.", "professor", "captain", "capt.", "colonel", "col.", "general", "st", "st.",
    "saint", "young", "old", "little", "poor", "dear"}
# honorifics that make a titled name ("Miss Bingley", "Dr. Watson"): what ``titled_name`` looks for
HONORIFICS = {"mr", "mr.", "mrs", "mrs.", "miss", "ms", "ms.", "lady", "sir", "lord", "dr", "dr.", "madame", "mme",
              "mme.", "mademoiselle", "mlle", "monsieur", "signor", "herr", "frau", "professor", "prof.", "captain",
              "capt.", "colonel", "col."}
HEAD_STOPS = {"of", ",", "who", "whom", "whose", "which", "that", "in", "with", "at", "from", "on", "to", "for",
              "by", "(", ";", ":", "-", "--"}
SENTENCE_OPENERS = OPENING_QUOTES | TOGGLING_QUOTES
# Penn Treebank noun tags → number (the tagger's, where the pipeline runs one)
NOUN_TAG_NUMBER = {"NN": SINGULAR, "NNP": SINGULAR, "NNS": PLURAL, "NNPS": PLURAL}
NUMBER_OF_TAG_ID = {hash_string(tag): number for tag, number in NOUN_TAG_NUMBER.items()}  # as doc.to_array([TAG])
COMMON_NOUN_TAGS = frozenset({"NN", "NNS"})  # a common noun's tags
PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})  # a name's tags
POSSESSIVE_MARKERS = {"'s", "’s", "'"}
# possessive determiners ("her" is also an object pronoun)
POSSESSIVE_DETERMINERS = frozenset("my your his her its our their thy".split())
# what opens a nominal that a name can stand in apposition with ("her sister Jane", "the lawyer Utterson")
APPOSITION_OPENERS = LEADING_WORDS | POSSESSIVE_DETERMINERS
SINGULAR_NOUN_TAG = hash_string("NN")
PROPER_NOUN_TAG_IDS = frozenset(hash_string(tag) for tag in PROPER_NOUN_TAGS)
# whether a head word tagged as a name (NNP, NNPS) is kept out of the person-noun kind: the learnt list is read
# without case ("mike" is a word of the encoder's vocabulary), and a name is no common noun for people
# seventh round: in a transcript with speaker labels, an unquoted I / me / my speaks in its label's voice (an
# ablation's switch)
# seventh round: a plural noun names people when its singular is on the list ("engineers": "engineer"; an
# ablation's switch)
PLURAL_NOUN_TAG = hash_string("NNS")
IRREGULAR_SINGULARS = {"people": "person", "children": "child", "folk": "folk", "folks": "folk"}
NO_NOMINAL = (-1, -1)
NO_NAME_WORDS = (-1,) * N_NAME_WORDS
NARRATOR_VOICE = 0  # the voice of a text with no speaker named (``mention_memory.VOICE``)
# whether a quoted I / you takes the gender of its speaker / addressee (``speaker_gender``; an ablation's switch)


STRING_ID_MASK = (1 << 62) - 1  # ids stay non-negative int64 (-1: no string)


class StringIds:
    """Strings → non-negative integers (-1 stands for 'no string'): spaCy's 64-bit string hash cut to 62 bits,
    so ids agree across batches and documents, and a memory carried from one text to the next (``stream``)
    still matches its strings."""

    def __call__(self, text: str) -> int:
        return hash_string(text) & STRING_ID_MASK if text else -1


def head_index(words: List[str]) -> int:
    """The position of a mention's head by its words alone (``head_word``). ``attributes._pre_head`` finds the
    head by tags for the output attributes; this one needs no tagger and is what the memory was trained on."""
    for i, word in enumerate(words):
        if i > 0 and word in HEAD_STOPS:
            return i - 1
    return len(words) - 1


def head_word(words: List[str]) -> str:
    """The head of a mention's lowercased words: the last word before a preposition, comma or relative
    pronoun ("the house of the lord" → "house")."""
    return words[head_index(words)]


def cue_gender(words: List[str], cased: Optional[List[bool]] = None,
               given_names: AbstractSet[str] = frozenset()) -> int:
    """The gender of the first honorific or kinship word among ``words`` that is not a possessor ("Mrs.
    Bennet", "his sister"; not "King's College"), else UNKNOWN. With ``cased`` (whether each word is
    capitalised), a capitalised cue right after one of ``given_names`` is a family name ("Susan King", "Doris
    Duke") and "M." right after a name word a middle initial ("Susan M. Leeson"): no cue. "Queen Victoria",
    "M. Poirot", "My Lord" and "the Invisible Man" keep theirs."""
    for i, word in enumerate(words):
        if word not in GENDER_OF_WORD or (i + 1 < len(words) and words[i + 1] in POSSESSIVE_MARKERS):
            continue
        if cased is not None and i and cased[i] and _is_name_word(words[i - 1], cased[i - 1]) and (
                words[i - 1] in given_names or word == "m."):
            continue
        return GENDER_OF_WORD[word]
    return UNKNOWN


def speaker_gender(words: List[str], capitalised: List[bool], name_genders: Optional[Dict[str, int]]) -> int:
    """The gender of a quotation's speaker or addressee span (lowercased words, whether each is capitalised):
    a he / she, an honorific or kinship cue ("Mrs. Hale", "her mother"), else a given name the lexicon knows;
    UNKNOWN otherwise. A quoted I / you takes it (the ``speaker_genders`` switch), so gender agreement keeps '“I know,” he
    answered' out of a feminine cell."""
    if len(words) == 1 and words[0] in PRONOUNS:
        gender = PRONOUNS[words[0]][2]
    else:
        gender = cue_gender(words, capitalised, name_genders or frozenset())
        if not gender and name_genders:
            gender = name_genders.get(given_name(words, capitalised), UNKNOWN)
    return gender if gender in (MASCULINE, FEMININE) else UNKNOWN


# titles of office before a name ("Mayor Elena Ortiz", "Detective Sarah Lund"): no given name, and no gender (the
# name-gender lexicon, read off the corpora, had "mayor" neuter and "judge", "president" masculine)
ROLE_TITLES = set(
    "mayor senator governor president judge justice speaker chancellor minister secretary councillor councilman "
    "councilwoman sheriff officer detective inspector sergeant constable reverend pastor bishop cardinal pope chief "
    "commissioner ambassador agent coach director dean principal superintendent trooper deputy representative doctor "
    "nurse lieutenant major admiral corporal marshal".split())


def given_name(words: List[str], capitalised: List[bool]) -> str:
    """The first word of a name (lowercased words, with whether each is capitalised) after articles, titles
    and honorifics, titles of office among them (``ROLE_TITLES``, with the ``office_titles`` switch), if it is
    capitalised, alphabetic and not a pronoun; "" otherwise."""
    for word, upper in zip(words, capitalised):
        if word in NAME_PREFIXES or (word in ROLE_TITLES and switches.active().office_titles):
            continue
        return word if _is_name_word(word, upper) else ""
    return ""


def _is_name_word(word: str, capitalised: bool) -> bool:
    if not capitalised or word in NAME_PREFIXES or word in PRONOUNS:
        return False
    return word.isalpha() or word.replace("-", "").replace("'", "").replace("’", "").isalpha()


def name_words(words: List[str], capitalised: List[bool], head: int) -> List[str]:
    """The capitalised words of a mention up to its head (lowercased), without titles, articles and pronouns:
    "Miss Elizabeth Bennet" → ["elizabeth", "bennet"]."""
    return [word for word, upper in zip(words[: head + 1], capitalised) if _is_name_word(word, upper)]


def complement_words(words: List[str], capitalised: List[bool], head: int) -> List[str]:
    """The capitalised words of a name's "of" complement (lowercased, a final "s" cut so that "the Gate" and "the
    Gates" agree; up to the next comma, relative pronoun or preposition): "the Witch of the North" → ["north"],
    "the Guardian of all the Emerald Gates" → ["emerald", "gate"]; [] where the head is not capitalised or no "of"
    follows it ("the house of the Lord")."""
    if head + 1 >= len(words) or words[head + 1] != "of" or not capitalised[head]:
        return []
    found = []
    for word, upper in zip(words[head + 2:], capitalised[head + 2:]):
        if word in HEAD_STOPS:
            break
        if _is_name_word(word, upper):
            found.append(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return found


# the title before a name → its group (``mention_memory.TITLE``); other titles ("Dr.", "Captain") have none
TITLE_GROUPS = {
    **dict.fromkeys(("mr", "mr.", "sir", "lord", "monsieur", "m.", "signor", "herr", "master"), MALE_TITLE),
    **dict.fromkeys(("mrs", "mrs.", "madame", "mme", "mme.", "frau", "madam"), MARRIED_TITLE),
    **dict.fromkeys(("miss", "mademoiselle", "mlle", "mlle."), UNMARRIED_TITLE),
    **dict.fromkeys(("aunt", "auntie", "aunty"), AUNT_TITLE),
    **dict.fromkeys(("uncle",), UNCLE_TITLE),
}


def title_group(words: List[str], capitalised: List[bool], head: int) -> int:
    """The group of the title right before a name whose words run to the head ("Mrs. March" → MARRIED_TITLE,
    "old Mr. Laurence" → MALE_TITLE, "Aunt March" → AUNT_TITLE); 0 for a mention that is no titled name."""
    for i, word in enumerate(words[: head + 1]):
        if word in TITLE_GROUPS:
            names = list(zip(words[i + 1: head + 1], capitalised[i + 1: head + 1]))
            return TITLE_GROUPS[word] if names and all(_is_name_word(w, up) for w, up in names) else 0
        if word not in NAME_PREFIXES:
            return 0
    return 0


def titled_name(words: List[str], capitalised: List[bool], head: int) -> bool:
    """Whether a mention is an honorific followed by capitalised names up to its head ("Miss Bingley", "the
    young Mr. Darcy"; not "Miss Bingley's brother", "Mr. and Mrs. Bennet")."""
    for i, word in enumerate(words[: head + 1]):
        if word in HONORIFICS:
            names = list(zip(words[i + 1: head + 1], capitalised[i + 1: head + 1]))
            return bool(names) and all(_is_name_word(w, upper) for w, upper in names)
        if word not in NAME_PREFIXES:
            return False
    return False


def family_names(lower: List[str], titles: List[bool], capitalised: List[bool],
                 given_names: AbstractSet[str]) -> Dict[str, int]:
    """The words a doc uses as family names: the last word of a run of capitalised name words after an honorific
    ("Mrs. Martin") or after another name word ("Mary Elise Ray"; a sentence's first word only if it is one of
    ``given_names``, so not "When Martin") → the token after the run where it first stands so."""
    names: Dict[str, int] = {}
    i = 0
    while i < len(lower):
        if not _is_name_word(lower[i], titles[i]):
            i += 1
            continue
        start = i
        while i < len(lower) and _is_name_word(lower[i], titles[i]):
            i += 1
        after_honorific = start > 0 and lower[start - 1] in HONORIFICS
        after_name = i - start > 1 and (capitalised[start] or lower[start] in given_names)
        if after_honorific or after_name:
            names.setdefault(lower[i - 1], i)
    return names


def apposed_nominals(lower: List[str], capitalised: List[bool], tags: List[int], spans: List[Tuple[int, int]],
                     inanimate_nouns: Optional[AbstractSet[str]] = None) -> List[Tuple[int, int]]:
    """Per candidate span: where it is a name (capitalised name words, not a sentence's first) right after a
    candidate nominal in apposition with it, that nominal's span ("her sister Jane" → "her sister", "the lawyer
    Utterson" → "the lawyer"); else ``NO_NOMINAL``. LitBank and GUM annotate such a pair as two mentions of one
    entity. The nominal opens with an article or a possessive and has no capitalised word; its head (last word)
    is a singular common noun where the doc has tags ("the literature of writers Mark Twain" is none) and no
    thing of ``inanimate_nouns`` ("the day Tom came"); a name followed by a possessive is a determiner of what
    follows ("the boy Tom's hat")."""
    ending_at: Dict[int, List[Tuple[int, int]]] = {}
    for start, end in spans:
        if end - start >= 2 and lower[start] in APPOSITION_OPENERS and not any(capitalised[start:end]) \
                and (not tags[end - 1] or tags[end - 1] == SINGULAR_NOUN_TAG) \
                and lower[end - 1].isalpha() and lower[end - 1] not in PRONOUNS \
                and (inanimate_nouns is None or lower[end - 1] not in inanimate_nouns):
            ending_at.setdefault(end, []).append((start, end))
    found = []
    for start, end in spans:
        nominals = ending_at.get(start)
        apposed = nominals and not (end < len(lower) and lower[end] in POSSESSIVE_MARKERS) \
            and all(_is_name_word(lower[i], capitalised[i]) for i in range(start, end))
        found.append(max(nominals) if apposed else NO_NOMINAL)
    return found


def singular_forms(word: str) -> List[str]:
    """The singulars a plural noun may have by English spelling ("engineers" → "engineer", "witnesses" →
    "witness", "secretaries" → "secretary", "policemen" → "policeman", "children" → "child"), most specific
    first; none for a word without a plural ending."""
    if word in IRREGULAR_SINGULARS:
        return [IRREGULAR_SINGULARS[word]]
    forms = []
    if word.endswith("men") and len(word) > 4:
        forms.append(word[:-3] + "man")
    if word.endswith("ies") and len(word) > 4:
        forms.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        forms.append(word[:-1])
    return forms


def names_people(word: str, plural: bool, nouns: AbstractSet[str]) -> bool:
    """Whether the head noun ``word`` is on the person-noun list ``nouns``, or (``plural``: tagged NNS, with
    the ``person_noun_plurals`` switch) one of its singular forms is."""
    if word in nouns:
        return True
    return plural and switches.active().person_noun_plurals and any(form in nouns for form in singular_forms(word))


def follows_sentence_boundary(previous: str) -> bool:
    """Whether the token after ``previous`` (a token's text) begins a sentence by punctuation alone: after
    '.', '!', '?', any token with a line break ("\\n\\n" too) or an opening quote."""
    return previous in SENTENCE_FINAL or "\n" in previous or previous in SENTENCE_OPENERS
