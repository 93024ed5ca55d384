"""Cheap, symbolic attributes of candidate mentions (no torch): what the mention memory compares with its
cells besides the span vectors — pronoun person / number / gender, gender cues of nominals (honorifics and
kinship words), a normalised string and a head word for string matching, whether the mention sits inside a
quotation, and whether it looks like a proper name.

English pronouns are a closed class, so a word list serves and no tagger has to run. Strings become ids
through a ``StringIds`` table shared by a batch, so the memory compares integers.
"""
from typing import Dict, Iterable, List, Tuple

import numpy
from spacy.tokens import Doc

from ..nn.memory.mention_memory import ATTRIBUTE_FIELDS

UNKNOWN, MASCULINE, FEMININE, NEUTER = 0, 1, 2, 3
SINGULAR, PLURAL = 1, 2
# word → (person, number, gender)
PRONOUNS: Dict[str, Tuple[int, int, int]] = {}
for words, features in (
    ("i me my mine myself", (1, SINGULAR, UNKNOWN)),
    ("we us our ours ourselves", (1, PLURAL, UNKNOWN)),
    ("you your yours yourself yourselves thee thou thy thine ye", (2, UNKNOWN, UNKNOWN)),
    ("he him his himself", (3, SINGULAR, MASCULINE)),
    ("she her hers herself", (3, SINGULAR, FEMININE)),
    ("it its itself", (3, SINGULAR, NEUTER)),
    ("they them their theirs themselves", (3, PLURAL, UNKNOWN)),
):
    for word in words.split():
        PRONOUNS[word] = features
PRONOUN_CLASSES = sorted(set(PRONOUNS.values()))
PRONOUN_CLASS = {word: PRONOUN_CLASSES.index(f) + 1 for word, f in PRONOUNS.items()}  # 0 = not a pronoun

GENDER_CUES = {
    MASCULINE: "mr mr. sir lord king prince duke earl count baron monsieur m. master father brother uncle son "
               "husband man gentleman boy nephew grandfather emperor monk priest",
    FEMININE: "mrs mrs. miss ms ms. lady queen princess duchess countess baroness madame mme mme. mademoiselle "
              "mlle mother sister aunt daughter wife woman girl niece grandmother empress nun",
}
GENDER_OF_WORD = {word: gender for gender, words in GENDER_CUES.items() for word in words.split()}
LEADING_WORDS = {"the", "a", "an", "this", "that", "these", "those"}
HEAD_STOPS = {"of", ",", "who", "whom", "whose", "which", "that", "in", "with", "at", "from", "on", "to", "for",
              "by", "(", ";", ":", "-", "--"}
OPENING_QUOTES, CLOSING_QUOTES, TOGGLING_QUOTES = {"“", "``", "‘"}, {"”", "''", "’"}, {'"'}
SENTENCE_ENDS = {".", "!", "?", "\n"}


class StringIds:
    """Strings → small integers, shared by the documents of a batch (-1 stands for 'no string')."""

    def __init__(self):
        self.ids: Dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.ids.setdefault(text, len(self.ids)) if text else -1


def quotation_flags(texts: List[str]) -> List[bool]:
    """Per token text: inside a quotation (straight quotes toggle, curly and PTB quotes open and close; a
    new line ends an unclosed quotation)."""
    flags, inside = [], False
    for text in texts:
        if "\n" in text:
            inside = False
        if text in OPENING_QUOTES or (text in TOGGLING_QUOTES and not inside):
            flags.append(True)
            inside = True
        elif text in CLOSING_QUOTES or (text in TOGGLING_QUOTES and inside):
            flags.append(True)
            inside = False
        else:
            flags.append(inside)
    return flags


def _head_index(words: List[str]) -> int:
    for i, word in enumerate(words):
        if i > 0 and word in HEAD_STOPS:
            return i - 1
    return len(words) - 1


def _sentence_initial_flags(lower: List[str], sent_starts: List[bool]) -> List[bool]:
    """Per token: first of the doc or of a sentence (parsed, or after '.', '!', '?', a line break or an
    opening quote)."""
    openers = OPENING_QUOTES | TOGGLING_QUOTES
    flags = []
    for i, starts in enumerate(sent_starts):
        previous = lower[i - 1] if i else ""
        flags.append(i == 0 or starts or previous in SENTENCE_ENDS or "\n" in previous or previous in openers)
    return flags


def mention_attributes(doc: Doc, spans: Iterable[Tuple[int, int]], ids: StringIds) -> numpy.ndarray:
    """(M, len(ATTRIBUTE_FIELDS)) int64, one row per candidate span [start, end) of ``doc``: norm (id of the
    lowercased text without a leading article or demonstrative; -1 for a pronoun), head (id of the lowercased
    head word; -1 for a pronoun), pronoun class (0: not a pronoun), gender (UNKNOWN / MASCULINE / FEMININE /
    NEUTER), number (UNKNOWN / SINGULAR / PLURAL), quoted (1 inside a quotation), proper (1 if a word other
    than a sentence-initial one is capitalised)."""
    has_sentences = doc.has_annotation("SENT_START")
    texts, lower, titles, sent_starts = [], [], [], []
    for token in doc:  # one pass over the tokens (creating Token objects is the cost here)
        texts.append(token.text)
        lower.append(token.lower_)
        titles.append(token.is_title)
        sent_starts.append(has_sentences and bool(token.is_sent_start))
    quoted = quotation_flags(texts)
    initial = _sentence_initial_flags(lower, sent_starts)
    capitalised = [title and not first for title, first in zip(titles, initial)]
    rows = []
    for start, end in spans:
        words = lower[start:end]
        pronoun = PRONOUN_CLASS.get(words[0], 0) if len(words) == 1 else 0
        if pronoun:
            _, number, gender = PRONOUNS[words[0]]
            rows.append((-1, -1, pronoun, gender, number, int(quoted[start]), 0))
            continue
        content = words[1:] if len(words) > 1 and words[0] in LEADING_WORDS else words
        head = _head_index(words)
        gender = next((GENDER_OF_WORD[w] for w in words[: head + 1] if w in GENDER_OF_WORD), UNKNOWN)
        proper = any(capitalised[start:end])
        rows.append((ids(" ".join(content)), ids(words[head]), 0, gender, UNKNOWN, int(quoted[start]),
                     int(proper)))
    return numpy.asarray(rows, dtype="int64").reshape(-1, len(ATTRIBUTE_FIELDS))
