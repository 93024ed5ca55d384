"""Who speaks a quotation, read off the words around it: the candidate mention a speech verb attributes it to
(‘“…,” said Harry’, ‘“…,” Harry said’, ‘Harry said, “…”’), and the same speaker for a quotation that goes on
right after such an attribution (‘“…,” said Harry, “…”’). The mention memory's ``speaker_continuity`` rule
joins a quoted I / me / my to its quotation's speaker."""
from typing import Dict, List, Optional, Sequence, Tuple

Span = Tuple[int, int]
OPENING_QUOTES, CLOSING_QUOTES, TOGGLING_QUOTES = {"“", "``", "‘"}, {"”", "''", "’"}, {'"'}
NO_SPEAKER: Span = (-1, -1)
# verbs that attribute a quotation to their subject, before or after it (not "told" / "asked him": those
# take the addressee as object)
SPEECH_VERBS = frozenset(
    "said says say cried asked replied answered exclaimed returned continued observed added whispered shouted "
    "rejoined remarked repeated murmured interrupted responded demanded inquired enquired muttered resumed "
    "explained declared retorted urged suggested screamed sobbed protested insisted laughed sighed began "
    "persisted pleaded called".split())
ATTRIBUTION_GAP = {",", ":"}  # what may stand between a quotation mark and its attribution


def quotations(lower: Sequence[str]) -> List[Span]:
    """[open, close] token indices of each quotation, both quotation marks included, in text order; the same
    reading as ``mention_attributes.quotation_flags`` (a line break ends an unclosed quotation, whose close
    is then the token before the break)."""
    found, opened = [], -1
    for i, text in enumerate(lower):
        if "\n" in text and opened >= 0:
            found.append((opened, i - 1))
            opened = -1
        if text in OPENING_QUOTES or (text in TOGGLING_QUOTES and opened < 0):
            opened = i
        elif opened >= 0 and (text in CLOSING_QUOTES or text in TOGGLING_QUOTES):
            found.append((opened, i))
            opened = -1
    if opened >= 0:
        found.append((opened, len(lower) - 1))
    return found


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


def quotation_speakers(lower: Sequence[str], candidates: Sequence[Span]) -> List[Optional[Span]]:
    """Per quotation (``quotations``), the candidate span attributed as its speaker, or None."""
    by_start: Dict[int, List[Span]] = {}
    by_end: Dict[int, List[Span]] = {}
    for span in candidates:
        by_start.setdefault(span[0], []).append(span)
        by_end.setdefault(span[1], []).append(span)
    speakers: List[Optional[Span]] = []
    continued, continued_at = None, -1  # the last after-attribution's speaker and the token after it
    for opening, close in quotations(lower):
        speaker = _before(lower, opening, by_end)
        if speaker is None and continued is not None and \
                all(lower[k] in ATTRIBUTION_GAP for k in range(continued_at, opening)):
            speaker = continued  # "…," said Harry, "…"
        after, after_end = _after(lower, close, by_start)
        speakers.append(speaker if speaker is not None else after)
        continued, continued_at = after, after_end
    return speakers


def candidate_speakers(lower: Sequence[str], candidates: Sequence[Span], asks: Sequence[bool]) -> List[Span]:
    """Per candidate: where ``asks`` (a first-person pronoun, say), the speaker span of the quotation it stands
    in (``quotation_speakers``), else ``NO_SPEAKER``."""
    if not any(asks):
        return [NO_SPEAKER] * len(candidates)
    spans = quotations(lower)
    speakers = quotation_speakers(lower, candidates)
    inside = [-1] * len(lower)
    for q, (opening, close) in enumerate(spans):
        inside[opening: close + 1] = [q] * (close + 1 - opening)
    found = []
    for (start, _end), ask in zip(candidates, asks):
        q = inside[start] if ask else -1
        speaker = speakers[q] if q >= 0 else None
        found.append(speaker if speaker is not None else NO_SPEAKER)
    return found
