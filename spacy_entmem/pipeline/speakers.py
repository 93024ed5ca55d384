"""Who speaks a quotation, read off the words around it: the candidate mention a speech verb attributes it to
(‘“…,” said Harry’, ‘“…,” Harry said’, ‘Harry said, “…”’), and the same speaker for a quotation that goes on
right after such an attribution (‘“…,” said Harry, “…”’). The mention memory's ``speaker_continuity`` rule
joins a quoted I / me / my to its quotation's speaker."""
from typing import Dict, List, Optional, Sequence, Tuple

from .sentences import SENTENCE_FINAL

Span = Tuple[int, int]
OPENING_QUOTES, CLOSING_QUOTES, TOGGLING_QUOTES = {"“", "``", "‘"}, {"”", "''", "’"}, {'"'}
QUOTATION_MARKS = OPENING_QUOTES | CLOSING_QUOTES | TOGGLING_QUOTES
NO_SPEAKER: Span = (-1, -1)
# verbs that attribute a quotation to their subject, before or after it (not "told" / "asked him": those
# take the addressee as object)
SPEECH_VERBS = frozenset(
    "said says say cried asked replied answered exclaimed returned continued observed added whispered shouted "
    "rejoined remarked repeated murmured interrupted responded demanded inquired enquired muttered resumed "
    "explained declared retorted urged suggested screamed sobbed protested insisted laughed sighed began "
    "persisted pleaded called".split())
ATTRIBUTION_GAP = {",", ":"}  # what may stand between a quotation mark and its attribution


def read_quotations(lower: Sequence[str]) -> Tuple[List[bool], List[Span]]:
    """One pass over the words (lowercased; quotation marks and line breaks have no case): per token whether it
    stands inside a quotation, marks included (straight quotes toggle, curly and PTB quotes open and close; a
    closing mark outside any quotation is flagged too, as an apostrophe "’" may be), and the [open, close]
    token indices of each quotation in text order. A line break ends an unclosed quotation (its close is the
    token before the break); an opening mark inside a quotation starts a new one, and the open one is not
    listed."""
    flags: List[bool] = []
    found: List[Span] = []
    opened = -1
    for i, text in enumerate(lower):
        if "\n" in text and opened >= 0:
            found.append((opened, i - 1))
            opened = -1
        if text in OPENING_QUOTES or (text in TOGGLING_QUOTES and opened < 0):
            flags.append(True)
            opened = i
        elif text in CLOSING_QUOTES or (text in TOGGLING_QUOTES and opened >= 0):
            flags.append(True)
            if opened >= 0:
                found.append((opened, i))
                opened = -1
        else:
            flags.append(opened >= 0)
    if opened >= 0:
        found.append((opened, len(lower) - 1))
    return flags, found


def quotations(lower: Sequence[str]) -> List[Span]:
    """[open, close] token indices of each quotation, both quotation marks included (``read_quotations``)."""
    return read_quotations(lower)[1]


def _longest(spans: List[Span]) -> Optional[Span]:
    return max(spans, key=lambda span: span[1] - span[0]) if spans else None


def _after(lower: Sequence[str], close: int, by_start: Dict[int, List[Span]]) -> Tuple[Optional[Span], int]:
    """The speaker of an attribution right after a quotation's closing mark, and where the attribution ends."""
    k = close + 1
    while k < len(lower) and lower[k] in ATTRIBUTION_GAP:
        k += 1
    if k < len(lower) and lower[k] in SPEECH_VERBS:  # "…," said Harry
        speaker = _longest(by_start.get(k + 1, []))
        return speaker, speaker[1] if speaker else -1
    subjects = [span for span in by_start.get(k, []) if span[1] < len(lower) and lower[span[1]] in SPEECH_VERBS]
    speaker = _longest(subjects)  # "…," Harry said
    return speaker, speaker[1] + 1 if speaker else -1


def _before(lower: Sequence[str], opening: int, by_end: Dict[int, List[Span]]) -> Optional[Span]:
    """The speaker of an attribution right before a quotation's opening mark ("Harry said, “…”")."""
    k = opening - 1
    while k >= 0 and lower[k] in ATTRIBUTION_GAP:
        k -= 1
    return _longest(by_end.get(k, [])) if k >= 0 and lower[k] in SPEECH_VERBS else None


def _continues(lower: Sequence[str], attribution_end: int, opening: int) -> bool:
    """Whether a quotation opening at ``opening`` goes on from the attribution ending before ``attribution_end``:
    only a comma or colon between them, and the attribution's last token does not end its sentence ("…,” said
    I. “…”, with "I." one token, is the end of a turn)."""
    if not all(lower[k] in ATTRIBUTION_GAP for k in range(attribution_end, opening)):
        return False
    return attribution_end < opening or lower[attribution_end - 1][-1:] not in SENTENCE_FINAL


def quotation_speakers(lower: Sequence[str], candidates: Sequence[Span],
                       quotes: Optional[List[Span]] = None) -> List[Optional[Span]]:
    """Per quotation (``quotes``, else ``quotations(lower)``), the candidate span attributed as its speaker, or
    None. Candidates holding a quotation mark are not speakers."""
    by_start: Dict[int, List[Span]] = {}
    by_end: Dict[int, List[Span]] = {}
    for span in candidates:
        if any(word in QUOTATION_MARKS for word in lower[span[0]:span[1]]):
            continue  # a candidate across a quotation mark ("I. “ Father Flynn") names no speaker
        by_start.setdefault(span[0], []).append(span)
        by_end.setdefault(span[1], []).append(span)
    speakers: List[Optional[Span]] = []
    continued, continued_at = None, -1  # the last after-attribution's speaker and the token after it
    for opening, close in quotations(lower) if quotes is None else quotes:
        speaker = _before(lower, opening, by_end)
        if speaker is None and continued is not None and _continues(lower, continued_at, opening):
            speaker = continued  # "…," said Harry, "…"
        after, after_end = _after(lower, close, by_start)
        speakers.append(speaker if speaker is not None else after)
        continued, continued_at = after, after_end
    return speakers


def candidate_speakers(lower: Sequence[str], candidates: Sequence[Span], asks: Sequence[bool],
                       quotes: Optional[List[Span]] = None) -> List[Span]:
    """Per candidate: where ``asks`` (a first-person pronoun, say), the speaker span of the quotation it stands
    in (``quotation_speakers``; ``quotes`` as ``quotations`` reads them, if already read), else
    ``NO_SPEAKER``."""
    if not any(asks):
        return [NO_SPEAKER] * len(candidates)
    quotes = quotations(lower) if quotes is None else quotes
    speakers = quotation_speakers(lower, candidates, quotes)
    inside = [-1] * len(lower)
    for q, (opening, close) in enumerate(quotes):
        inside[opening: close + 1] = [q] * (close + 1 - opening)
    found = []
    for (start, _end), ask in zip(candidates, asks):
        q = inside[start] if ask else -1
        speaker = speakers[q] if q >= 0 else None
        found.append(speaker if speaker is not None else NO_SPEAKER)
    return found
