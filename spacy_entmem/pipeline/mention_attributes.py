"""Cheap, symbolic attributes of candidate mentions (no torch): what the mention memory compares with its
cells besides the span vectors — pronoun person / number / gender, gender cues of nominals (honorifics and
kinship words), a normalised string and a head word for string matching, whether the mention sits inside a
quotation, and whether it looks like a proper name.

English pronouns are a closed class, so a word list serves and no tagger has to run. Strings become ids
through ``StringIds`` (hashes), so the memory compares integers.
"""
from typing import AbstractSet, Dict, Iterable, List, Optional, Tuple

import numpy
from spacy.attrs import IS_TITLE, LOWER, ORTH, SENT_START, TAG
from spacy.strings import hash_string
from spacy.tokens import Doc

from ..linguistics import switches
from ..linguistics.values import (FEMININE, MASCULINE, NEUTER, PLURAL, PRONOUN_CLASS,  # noqa: F401
                                 PRONOUN_CLASSES, PRONOUNS, SINGULAR, UNKNOWN)
from ..linguistics.columns import ATTRIBUTE_FIELDS, N_NAME_WORDS
from ..linguistics.values import (AUNT_TITLE, FIRST_SINGULAR, MALE_TITLE, MARRIED_TITLE, PERSON_NOUN, SECOND_PERSON,
                                  UNCLE_TITLE, UNMARRIED_TITLE)
from ..linguistics.values import TIME as TIME_EXPRESSION
from .binding import bound_subject_end
from .sentences import SENTENCE_FINAL
from .speakers import NO_SPEAKER, OPENING_QUOTES, TOGGLING_QUOTES, candidate_speakers, read_quotations


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


def _head_index(words: List[str]) -> int:
    """The position of a mention's head by its words alone (``head_word``). ``attributes._pre_head`` finds the
    head by tags for the output attributes; this one needs no tagger and is what the memory was trained on."""
    for i, word in enumerate(words):
        if i > 0 and word in HEAD_STOPS:
            return i - 1
    return len(words) - 1


def head_word(words: List[str]) -> str:
    """The head of a mention's lowercased words: the last word before a preposition, comma or relative
    pronoun ("the house of the lord" → "house")."""
    return words[_head_index(words)]


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


def given_name(words: List[str], capitalised: List[bool]) -> str:
    """The first word of a name (lowercased words, with whether each is capitalised) after articles, titles
    and honorifics, if it is capitalised, alphabetic and not a pronoun; "" otherwise."""
    for word, upper in zip(words, capitalised):
        if word in NAME_PREFIXES:
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


def _sentence_initial_flags(lower: List[str], sent_starts: List[bool]) -> List[bool]:
    """Per token: first of the doc or of a sentence (parsed, or ``follows_sentence_boundary``)."""
    return [i == 0 or starts or follows_sentence_boundary(lower[i - 1]) for i, starts in enumerate(sent_starts)]


def _syntax_and_turn_columns(doc: Doc, texts: List[str], spans: List[Tuple[int, int]], quoted: List[bool],
                             quotes: List[Tuple[int, int]], things: bool, reader_you: bool = False
                             ) -> Tuple[List[Tuple[int, ...]], List[int], List[Tuple[int, int, int]]]:
    """Per candidate (``texts``: the doc's token texts): its binding columns from the parse
    (``syntax.binding_columns``), its person and the id of the speaker's turn it stands in (``turns``); with
    ``things``, whether it is a place or a time expression
    (``syntax.place_or_time``; NOT_A_THING for all without); and the last columns: the root of its reporter if
    it is a reported "they" (``syntax.reporting_subject``), its grammatical role and its sentence
    (``syntax.role_and_sentence_columns``)."""
    from . import syntax  # here: syntax and turns read this module's word lists
    from .turns import read_turns

    binding = syntax.binding_columns(doc, spans) if doc.has_annotation("DEP") else syntax.no_binding(spans)
    turns, persons = read_turns(texts, quoted, quotes, spans, reader_you)
    kinds = [syntax.place_or_time(doc, start, end, columns[0]) if things else syntax.NOT_A_THING
             for columns, (start, end) in zip(binding, spans)]
    reporters = [syntax.reporting_subject(doc, start, end) if end - start == 1 and texts[start].lower() == "they"
                 else syntax.NO_TOKEN for start, end in spans]  # (only a "they" has one: no Token made for the rest)
    roles = syntax.role_and_sentence_columns(doc, [columns[0] for columns in binding])
    return [columns + (person, turns[start] if start < len(turns) else -1)
            for columns, person, (start, _) in zip(binding, persons, spans)], kinds, \
        [(reporter,) + role for reporter, role in zip(reporters, roles)]


def speaker_voice(doc: Doc, ids: StringIds) -> Tuple[int, Tuple[int, ...]]:
    """The voice of the doc's unquoted I / me / my (``mention_memory.VOICE``: 0 for an unnamed narrator, 1 + the
    speaker's id where ``doc._.speaker`` names who says the text) and the ids of the speaker's name words (its
    lowercased words but honorifics; -1 padded)."""
    speaker = doc._.speaker if Doc.has_extension("speaker") else None
    return named_voice(str(speaker), ids) if speaker else (NARRATOR_VOICE, NO_NAME_WORDS)


def named_voice(speaker: str, ids: StringIds) -> Tuple[int, Tuple[int, ...]]:
    """The voice of a named speaker (1 + the id of the name) and the ids of its name words (lowercased, honorifics
    left out, -1 padded)."""
    words = [word for word in speaker.lower().split() if word not in HONORIFICS][:N_NAME_WORDS]
    names = tuple(ids(word) for word in words)
    return ids(" ".join(speaker.split())) + 1, names + NO_NAME_WORDS[len(names):]


def label_voices(texts: List[str], ids: StringIds) -> List[Optional[Tuple[int, Tuple[int, ...]]]]:
    """Per token, with the ``labelled_voices`` switch, the voice of the speaker label whose turn it stands in ("Nurse: How
    are you? / Patient: My daughter …": "My" is the patient's; ``named_voice``); None before the first label and
    in a text without labels."""
    from .turns import speaker_labels  # here: turns reads this module's word lists

    voices: List[Optional[Tuple[int, Tuple[int, ...]]]] = [None] * len(texts)
    labels = speaker_labels(texts) if switches.active().labelled_voices else []
    for (start, end), (following, _) in zip(labels, labels[1:] + [(len(texts), len(texts))]):
        voice = named_voice(" ".join(texts[start:end]), ids)
        voices[end:following] = [voice] * (following - end)
    return voices


def mention_attributes(doc: Doc, spans: Iterable[Tuple[int, int]], ids: StringIds,
                       name_genders: Optional[Dict[str, int]] = None,
                       inanimate_nouns: Optional[AbstractSet[str]] = None,
                       person_nouns: Optional[AbstractSet[str]] = None, reader_you: bool = False) -> numpy.ndarray:
    """(M, len(ATTRIBUTE_FIELDS)) int64, one row per candidate span [start, end) of ``doc``: norm (id of the
    lowercased text without a leading article or demonstrative; -1 for a pronoun), head (id of the lowercased
    head word; -1 for a pronoun), pronoun class (0: not a pronoun), gender (UNKNOWN / MASCULINE / FEMININE /
    NEUTER), number (UNKNOWN / SINGULAR / PLURAL), quoted (1 inside a quotation), proper (1 if a word other
    than a sentence-initial one is capitalised). ``name_genders`` (given name → gender, see
    ``corpora.name_genders``) gives a gender to names that carry no honorific or kinship cue. Last column:
    inanimate (1 if the mention has no gender and its head word is in ``inanimate_nouns``, see
    ``corpora.inanimate_nouns``: "Bletchley Park", "mathematics"; always 0 without the list; ``PERSON_NOUN`` if
    it has none of these and its head word is in ``person_nouns``: "the gardener"); noun number
    (a nominal's head word tagged NN / NNP: SINGULAR, NNS / NNPS: PLURAL; UNKNOWN for pronouns, other tags
    and docs without tags)."""
    # the token attributes as arrays: no Token objects (quotes and line breaks have no case, so the
    # lowercased words serve for the quotation flags)
    columns = doc.to_array([LOWER, IS_TITLE, SENT_START]).reshape(-1, 3).tolist() if len(doc) else []
    strings = doc.vocab.strings
    lower = [strings[row[0]] for row in columns]
    titles = [bool(row[1]) for row in columns]
    sent_starts = [row[2] == 1 for row in columns] if doc.has_annotation("SENT_START") else [False] * len(doc)
    # tag hashes, looked up only at the candidates' head words
    tags = doc.to_array([TAG]).tolist() if doc.has_annotation("TAG") else [0] * len(doc)
    quoted, quotes = read_quotations(lower)
    initial = _sentence_initial_flags(lower, sent_starts)
    capitalised = [title and not first for title, first in zip(titles, initial)]
    spans = [(int(start), int(end)) for start, end in spans]
    first_person = [end - start == 1 and PRONOUN_CLASS.get(lower[start]) == FIRST_SINGULAR and quoted[start]
                    for start, end in spans]
    second_person = [end - start == 1 and PRONOUN_CLASS.get(lower[start]) == SECOND_PERSON and quoted[start]
                     for start, end in spans]
    speakers = candidate_speakers(lower, spans, first_person, quotes, second_person)
    family = family_names(lower, titles, capitalised, name_genders.keys()) if name_genders else {}
    nominals = apposed_nominals(lower, capitalised, tags, spans, inanimate_nouns)
    texts = [strings[orth] for orth in doc.to_array(ORTH).tolist()] if len(doc) else []  # (no Token objects)
    extra, things, last_columns = _syntax_and_turn_columns(doc, texts, spans, quoted, quotes,
                                                        things=inanimate_nouns is not None, reader_you=reader_you)
    voice, speaker_names = speaker_voice(doc, ids)
    labelled = label_voices(texts, ids)
    rows = []
    for start, end in spans:
        words = lower[start:end]
        pronoun = PRONOUN_CLASS.get(words[0], 0) if len(words) == 1 else 0
        if pronoun:
            _, number, gender = PRONOUNS[words[0]]
            if switches.active().speaker_genders and speakers[len(rows)] != NO_SPEAKER and not gender:
                s0, s1 = speakers[len(rows)]  # a quoted I / you is as its speaker / addressee is
                gender = speaker_gender(lower[s0:s1], titles[s0:s1], name_genders)
            bound_end = bound_subject_end(lower, tags, start)
            narrating = pronoun == FIRST_SINGULAR and not quoted[start]  # the narrator's or the speaker's I
            own_voice, own_names = labelled[start] if narrating and labelled[start] else (voice, speaker_names)
            rows.append((-1, -1, pronoun, gender, number, int(quoted[start]), 0, 0, UNKNOWN, bound_end, 0)
                        + (own_names if narrating else NO_NAME_WORDS) + speakers[len(rows)] + NO_NOMINAL
                        + extra[len(rows)] + (own_voice,) + last_columns[len(rows)] + (0,))
            continue
        content = words[1:] if len(words) > 1 and words[0] in LEADING_WORDS else words
        head = _head_index(words)
        gender = cue_gender(words[: head + 1], titles[start:start + head + 1], name_genders or frozenset())
        cased = titles[start:end]
        mention_names = name_words(words, cased, head) if any(cased) else []
        if not gender and name_genders:
            first_name = given_name(words, cased)
            family_name = len(mention_names) == 1 and family.get(first_name, len(doc)) <= start
            gender = UNKNOWN if family_name else name_genders.get(first_name, UNKNOWN)
        inanimate = 0
        title = title_group(words, cased, head) if mention_names else 0
        if inanimate_nouns is not None:  # the animacy rule is on
            thing = things[len(rows)]
            if thing == TIME_EXPRESSION and not title:  # ("Mrs. March", "Aunt May": a person, not a month)  # "on Friday", "in June": no name, whatever the name lexicon says
                inanimate, gender = TIME_EXPRESSION, UNKNOWN
            elif not gender:
                inanimate = thing or int(words[head] in inanimate_nouns)
                if not inanimate and person_nouns is not None and names_people(
                        words[head], tags[start + head] == PLURAL_NOUN_TAG, person_nouns) and not (
                        switches.active().person_nouns_not_names and tags[start + head] in PROPER_NOUN_TAG_IDS):
                    inanimate = PERSON_NOUN
        proper = any(capitalised[start:end])
        noun_number = NUMBER_OF_TAG_ID.get(tags[start + head], UNKNOWN)
        names = [ids(word) for word in mention_names[:N_NAME_WORDS]]
        titled = int(bool(names) and titled_name(words, cased, head))
        rows.append((ids(" ".join(content)), ids(words[head]), 0, gender, UNKNOWN, int(quoted[start]),
                     int(proper), inanimate, noun_number, -1, titled) + tuple(names) + NO_NAME_WORDS[len(names):]
                    + speakers[len(rows)] + nominals[len(rows)] + extra[len(rows)] + (voice,) + last_columns[len(rows)]
                    + (title,))
    return numpy.asarray(rows, dtype="int64").reshape(-1, len(ATTRIBUTE_FIELDS))

