"""Speakers' turns and grammatical person: within one speaker's turn, "I" is the speaker, "you" the addressee
and "he" / "she" someone else, so mentions of different persons in one turn are never one entity.

A turn is a quotation; a line that opens with a speaker label ("Lee: I met Dana …", up to the next label); the
unquoted text of a letter or an email (a text that opens with a greeting: "Hi Tom," / "Dear Sir,"); else one
sentence (a transcript without labels may change speakers at any sentence). The person of a candidate: 1 for
I / me / my / mine / myself, for a speaker label's name in its own turn and for the name that signs a letter
("Best, Mark"); 2 for you / your / … and for the name a greeting addresses; 3 for he / she and their forms and for
a nominal that my / our / your opens ("our accountant"; not a vocative nor "Your Majesty": ``possessed_nominal``);
5 for we / us / our (sixth round); 0 (no constraint) for it, they and everything else.
An unquoted you in a text with no speaker labels and no greeting is READER (4): the reader, or anyone ("If you
want to bake bread, you need flour"), never a third person the text names (``mention_memory.person_clash``).
"""
from typing import List, Optional, Sequence, Tuple

from . import switches
from .lexicon import follows_sentence_boundary
from .values import FIRST_PLURAL, NO_PERSON, PRONOUNS, READER, SINGULAR  # noqa: F401  (READER: a you with no addressee)

GREETINGS = {"hi", "hello", "hey", "dear", "dearest", "greetings"}
GREETING_ENDS = {",", ":", "!", "-", "—"}  # what closes a greeting's line ("Hi Tom," / "Dear Sir:")
MAX_LABEL_WORDS = 3  # "Lee:", "Dr. Smith:", "Mary Ann Lee:"
SPEAKER_POSSESSIVES = {"my", "our", "your"}
# heads of a form of address that a possessive opens and that names the addressee: "Your Majesty", "my lord"
ADDRESS_HEADS = {"majesty", "highness", "grace", "excellency", "honour", "honor", "lordship", "ladyship", "worship",
                 "lord", "lady", "liege"}
VOCATIVE_ENDS = {",", "!", "?", ".", ";", ":", "”", '"', "'", "’"}  # what may follow a vocative ("…, my boy!")
# what may precede one in a list of those addressed ("Speaker O'Neill, and my fellow citizens:")
VOCATIVE_JOINERS = {"and", "or"}
# forms of "be" before a predicate nominal, which names its subject ("I'm your host")
COPULAS = {"am", "'m", "’m", "is", "'s", "’s", "are", "'re", "’re", "was", "were", "be", "been", "being"}
# the words that close a letter before its writer's name ("Best, Mark"; the ``signature`` switch)
CLOSINGS = {"best", "thanks", "regards", "cheers", "sincerely", "yours", "love", "warmly", "cordially",
            "respectfully"}
MAX_SIGNATURE_WORDS = 3  # "Mark", "Dr. Lee", "Mary Ann Lee"
LETTER_OPENING = 4  # the tokens where a letter's greeting is looked for ("Hi", "Tom", ",", "\n")
QUOTATION_TURNS = 1 << 40  # quotations are numbered apart from the unquoted turns


def pronoun_person(word: str) -> int:
    """1, 2 or 3 for a singular personal pronoun of that person ("you" of either number); with the ``we_person`` switch
    FIRST_PLURAL for we / us / our / ours / ourselves; 0 otherwise."""
    features = PRONOUNS.get(word)
    if features is None:
        return NO_PERSON
    person, number, gender = features
    singular = number == SINGULAR
    if person == 2 or (person == 1 and singular) or (person == 3 and singular and gender in (1, 2)):
        return person
    if person == 1 and switches.active().we_person:
        return FIRST_PLURAL
    return NO_PERSON


def possessed_nominal(lower: Sequence[str], start: int, end: int) -> bool:
    """Whether the candidate [start, end) is a nominal that my / our / your opens ("our accountant", "my father"):
    someone other than the speaker, the addressee and "we". Not a form of address ("Your Majesty", "my lord":
    ``ADDRESS_HEADS``), nor a vocative, which stands between punctuation ("Come here, my boy!", "“My dear Watson,
    you …”", "… and my fellow citizens:") and is the addressee, nor a predicate nominal after a form of "be",
    which is its subject ("I'm your host")."""
    if end - start < 2 or lower[start] not in SPEAKER_POSSESSIVES or lower[end - 1] in ADDRESS_HEADS:
        return False
    before = lower[start - 1] if start else ""
    after = lower[end] if end < len(lower) else ""
    if before in COPULAS:  # a predicate nominal names its subject: "I'm your host"
        return False
    # the text's start, a line break, "," or "“", or "and" in a list of those addressed
    opens_alone = not before.strip() or not before[-1].isalnum() or before in VOCATIVE_JOINERS
    closes_alone = not after.strip() or after in VOCATIVE_ENDS
    return not (opens_alone and closes_alone)


def greeting_line(lower: Sequence[str]) -> Tuple[int, int]:
    """(the greeting word, the token that ends its line) of a letter's lower-case tokens: "Dear Ms. Ortiz ," gives
    the span of "Dear Ms. Ortiz"; the line ends at a comma, colon, dash or "!", a line break or a sentence end."""
    greeting = next(i for i, word in enumerate(lower) if word.strip() and word in GREETINGS)
    end = next((i for i in range(greeting + 1, len(lower))
                if lower[i] in GREETING_ENDS or not lower[i].strip() or follows_sentence_boundary(lower[i - 1])),
               len(lower))
    return greeting, end


def signature_start(texts: Sequence[str]) -> int:
    """The first token of the writer's name that ends a letter after a closing word and an optional comma or line
    break ("Best, Mark", "Thanks" and "Priya" on the next line, "Kind regards, Dr. Lee": up to
    ``MAX_SIGNATURE_WORDS`` capitalised words, then the text's end), or len(texts) where the text ends otherwise."""
    words = [i for i, text in enumerate(texts) if text.strip()]
    first = len(words)
    while first > 0 and len(words) - first < MAX_SIGNATURE_WORDS and texts[words[first - 1]][:1].isupper() \
            and texts[words[first - 1]].lower() not in CLOSINGS:
        first -= 1
    before = first - 1
    if before >= 0 and texts[words[before]] in GREETING_ENDS:
        before -= 1
    if first == len(words) or before < 0 or texts[words[before]].lower() not in CLOSINGS:
        return len(texts)
    return words[first]


def signature_span(texts: Sequence[str]) -> Optional[Tuple[int, int]]:
    """[start, end) of the name that signs a letter (``is_letter``, ``signature_start``), up to the end of its
    line; None for a text that is no letter or has no signature. A finder that missed the name ("Best,\nDaniel":
    the last word of the text) proposes it, so the ``signature`` rule has a candidate to make the writer."""
    if not is_letter([text.lower() for text in texts]):
        return None
    start = signature_start(texts)
    end = start
    while end < len(texts) and texts[end].strip() and "\n" not in texts[end]:
        end += 1
    return (start, end) if end > start else None


def _line_starts(texts: Sequence[str]) -> List[int]:
    """The token indices that open a line (the first token and each one after a token holding a line break)."""
    return [i for i in range(len(texts)) if i == 0 or "\n" in texts[i - 1]] if texts else []


def speaker_labels(texts: Sequence[str]) -> List[Tuple[int, int]]:
    """[start, end) of each speaker label's name: capitalised words right at a line's start, then ":"."""
    labels = []
    for start in _line_starts(texts):
        while start < len(texts) and not texts[start].strip():
            start += 1
        for end in range(start + 1, min(start + MAX_LABEL_WORDS, len(texts) - 1) + 1):
            if texts[end] == ":" and all(texts[i][:1].isupper() for i in range(start, end)):
                labels.append((start, end))
                break
    return labels


def is_letter(lower: Sequence[str]) -> bool:
    """Whether the text opens with a greeting and a name or title ("Hi Tom,", "Dear Ms. Lee,"), read in its first
    ``LETTER_OPENING`` tokens."""
    words = [word for word in lower[:LETTER_OPENING] if word.strip()]
    return len(words) >= 2 and words[0] in GREETINGS


def read_turns(texts: Sequence[str], quoted: Sequence[bool], quotations: Sequence[Tuple[int, int]],
               spans: Sequence[Tuple[int, int]], reader_you: bool = False) -> Tuple[List[int], List[int]]:
    """Per token, the id of the turn it stands in, and per candidate span, its person (see the module docstring;
    READER for an addressless you only with ``reader_you``, else 2); ``quoted`` and ``quotations`` as
    ``speakers.read_quotations`` gives them."""
    lower = [text.lower() for text in texts]
    labels = speaker_labels(texts)
    letter = is_letter(lower)
    turns = [0] * len(texts)
    for k, (start, close) in enumerate(quotations):
        for i in range(start, close + 1):
            turns[i] = QUOTATION_TURNS + k
    label_starts = {start for start, _ in labels}
    turn = 0
    for i in range(len(texts)):
        if label_starts:
            turn += i in label_starts
        elif not letter and i and follows_sentence_boundary(lower[i - 1]):
            turn += 1
        if not quoted[i]:
            turns[i] = turn
    greeting, line_end = greeting_line(lower) if letter else (0, 0)  # (0, 0): no candidate is on it
    signature = signature_start(texts) if letter and switches.active().signature else len(texts)
    label_spans = set(labels)
    persons = []
    addressless = reader_you and not letter and not labels  # an unquoted you has no addressee the text names
    for start, end in spans:
        if end - start == 1 and lower[start] in PRONOUNS:
            person = pronoun_person(lower[start])
            persons.append(READER if person == 2 and addressless and not quoted[start] else person)
        elif (start, end) in label_spans or start >= signature:  # a speaker's label, a letter's signature
            persons.append(1)
        elif greeting <= start and end <= line_end:  # "Tom", "Dear Ms. Ortiz", "Ortiz": on the greeting's line
            persons.append(2)
        elif switches.active().possessed_third and possessed_nominal(lower, start, end):
            persons.append(3)
        else:
            persons.append(NO_PERSON)
    return turns, persons
