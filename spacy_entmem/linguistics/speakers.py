"""Who speaks a quotation, read off the words around it: the candidate mention a speech verb attributes it to
(‘“…,” said Harry’, ‘“…,” Harry said’, ‘“…,” Harry told Sally’, ‘Harry said, “…”’), and the same speaker for a
quotation that goes on right after such an attribution (‘“…,” said Harry, “…”’); and whom it addresses: the
object of a verb of telling (‘“…,” Harry told Sally’), else, in an exchange, the one who spoke the quotation
before (‘“…,” Sally replied’ after Harry spoke). The mention memory's ``speaker_continuity`` rule joins a quoted
I / me / my to its quotation's speaker and a quoted you / your to its addressee."""
from typing import Dict, List, Optional, Sequence, Tuple

from . import switches
from .sentences import SENTENCE_FINAL
from .values import FIRST_SINGULAR, PRONOUN_CLASS

Span = Tuple[int, int]
OPENING_QUOTES, CLOSING_QUOTES, TOGGLING_QUOTES = {"“", "``", "‘"}, {"”", "''", "’"}, {'"'}
QUOTATION_MARKS = OPENING_QUOTES | CLOSING_QUOTES | TOGGLING_QUOTES
# which marks pair: inside a quotation, a mark of another kind neither opens nor closes one (a nested quotation, or
# "’" as an apostrophe: "the Wilsons’ house")
QUOTE_KINDS = {"“": "double", "”": "double", "``": "double", "''": "double", "‘": "single", "’": "single",
               '"': "straight"}
NO_SPEAKER: Span = (-1, -1)
# verbs that attribute a quotation to their subject, before or after it (not "told" / "asked him": those
# take the addressee as object)
SPEECH_VERBS = frozenset(
    "said says say cried asked replied answered exclaimed returned continued observed added whispered shouted "
    "rejoined remarked repeated murmured interrupted responded demanded inquired enquired muttered resumed "
    "explained declared retorted urged suggested screamed sobbed protested insisted laughed sighed began "
    "persisted pleaded called".split())
# verbs of telling: their subject speaks and their object is the addressee, so they attribute a quotation only
# to a subject before them ("…," Robert told Sarah); never "…," told Robert
TELLING_VERBS = frozenset("told tells tell warned warns reminded reminds assured assures promised promises".split())
ATTRIBUTION_GAP = {",", ":"}  # what may stand between a quotation mark and its attribution
# a quotation answers the one before it (its addressee is that one's speaker) if it opens at most this many
# tokens after that one closed (quotations have addressees at all only with the ``addressees`` switch)
EXCHANGE_GAP = 40


def paragraph_newlines(newline_counts: Sequence[int]) -> int:
    """How many line breaks end a paragraph, given each token's count of them: 2 (a blank line) in a text that has
    one, else 1 (one paragraph per line)."""
    return 2 if any(n >= 2 for n in newline_counts) else 1


def read_quotations(lower: Sequence[str]) -> Tuple[List[bool], List[Span]]:
    """One pass over the words (lowercased; quotation marks and line breaks have no case): per token whether it
    stands inside a quotation, marks included (straight quotes toggle, curly and PTB quotes open and close; a
    closing mark outside any quotation is flagged too, as an apostrophe "’" may be), and the [open, close]
    token indices of each quotation in text order. A paragraph break ends an unclosed quotation (its close is the
    token before the break): a blank line, or any line break in a text with no blank line (one paragraph per
    line); in a text whose paragraphs are blank-line separated, a single line break is a wrapped line inside the
    paragraph ("I could not / remain where I was," said he) and the quotation goes on. Marks pair by kind
    (``QUOTE_KINDS``): inside a quotation a mark of another kind is quoted and nothing more, so a quotation within
    it ("“He said ‘go,’ and I went”") or an apostrophe ("the Wilsons’") does not end it; an opening mark of its own
    kind starts a new one, and the open one is not listed."""
    flags: List[bool] = []
    found: List[Span] = []
    opened, kind = -1, ""
    newlines = [text.count("\n") for text in lower]
    breaks = paragraph_newlines(newlines)
    for i, text in enumerate(lower):
        if newlines[i] >= breaks and opened >= 0:
            found.append((opened, i - 1))
            opened = -1
        mark = QUOTE_KINDS.get(text, "")
        if opened >= 0 and mark and mark != kind:
            flags.append(True)  # a quotation inside the open one ("“… ‘I am here,’ he said …”"), or an apostrophe
        elif text in OPENING_QUOTES or (text in TOGGLING_QUOTES and opened < 0):
            flags.append(True)
            opened, kind = i, mark
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


def _candidates_by_edge(lower: Sequence[str], candidates: Sequence[Span]
                        ) -> Tuple[Dict[int, List[Span]], Dict[int, List[Span]]]:
    """The candidates that may name a speaker or addressee, by their start and by their end: not those holding a
    quotation mark (a candidate across one, "I. “ Father Flynn", names no speaker)."""
    by_start: Dict[int, List[Span]] = {}
    by_end: Dict[int, List[Span]] = {}
    for span in candidates:
        if not any(word in QUOTATION_MARKS for word in lower[span[0]:span[1]]):
            by_start.setdefault(span[0], []).append(span)
            by_end.setdefault(span[1], []).append(span)
    return by_start, by_end


def _attribution_start(lower: Sequence[str], close: int) -> int:
    """The first token of what follows a quotation's closing mark past a comma or colon."""
    k = close + 1
    while k < len(lower) and lower[k] in ATTRIBUTION_GAP:
        k += 1
    return k


def _after(lower: Sequence[str], close: int, by_start: Dict[int, List[Span]]) -> Tuple[Optional[Span], int]:
    """The speaker of an attribution right after a quotation's closing mark, and where the attribution ends."""
    k = _attribution_start(lower, close)
    if k < len(lower) and lower[k] in SPEECH_VERBS:  # "…," said Harry
        speaker = _longest(by_start.get(k + 1, []))
        return speaker, speaker[1] if speaker else -1
    verbs = SPEECH_VERBS | TELLING_VERBS if switches.active().telling else SPEECH_VERBS
    subjects = [span for span in by_start.get(k, []) if span[1] < len(lower) and lower[span[1]] in verbs]
    speaker = _longest(subjects)  # "…," Harry said; "…," Harry told Sally
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
    by_start, by_end = _candidates_by_edge(lower, candidates)
    quotes = quotations(lower) if quotes is None else quotes
    speakers: List[Optional[Span]] = []
    continued, continued_at = None, -1  # the last after-attribution's speaker and the token after it
    for opening, close in quotes:
        speaker = _before(lower, opening, by_end)
        if speaker is None and continued is not None and _continues(lower, continued_at, opening):
            speaker = continued  # "…," said Harry, "…"
        after, after_end = _after(lower, close, by_start)
        speakers.append(speaker if speaker is not None else after)
        continued, continued_at = after, after_end
    if switches.active().alternating_turns:
        speakers = alternating_speakers(lower, quotes, speakers)
    return speakers


def _next_turn(lower: Sequence[str], close: int, opening: int, breaks: int) -> bool:
    """Whether a quotation opening at ``opening`` begins the paragraph after the one in which the quotation closing
    at ``close`` stands: one paragraph break between them (a token of ``breaks`` line breaks or more), right before
    the opening mark; what comes before it (the attribution, "returned the young lady.") is narration of that turn."""
    gap = lower[close + 1:opening]
    paragraph_breaks = [k for k, word in enumerate(gap) if word.count("\n") >= breaks]
    return paragraph_breaks == [len(gap) - 1]


def alternating_speakers(lower: Sequence[str], quotes: Sequence[Span],
                         speakers: List[Optional[Span]]) -> List[Optional[Span]]:
    """``speakers`` with each unattributed quotation of a two-person exchange given the speaker of the turn before
    the last: where it begins the paragraph after the quotation before it, as that one does after the one before it
    (``_next_turn``), and those two have speakers with other words ("“…,” returned the young lady. / “I'm not Mr.
    Laurence, I'm only Laurie.”" after the boy spoke: the boy). An inferred speaker counts for the turns after it."""
    out = list(speakers)
    words = [None if speaker is None else tuple(lower[speaker[0]:speaker[1]]) for speaker in out]
    breaks = paragraph_newlines([word.count("\n") for word in lower])  # (as ``read_quotations`` reads paragraphs)
    for q in range(2, len(quotes)):
        if out[q] is not None or out[q - 1] is None or out[q - 2] is None or words[q - 1] == words[q - 2]:
            continue
        if _next_turn(lower, quotes[q - 1][1], quotes[q][0], breaks) and \
                _next_turn(lower, quotes[q - 2][1], quotes[q - 1][0], breaks):
            out[q], words[q] = out[q - 2], words[q - 2]
    return out


def _told(lower: Sequence[str], close: int, by_start: Dict[int, List[Span]]) -> Optional[Span]:
    """The addressee of an attribution right after a quotation's closing mark with a verb of telling: the
    candidate right after the verb (‘“…,” Harry told Sally’ → Sally)."""
    k = _attribution_start(lower, close)
    for subject in sorted(by_start.get(k, []), key=lambda span: span[0] - span[1]):  # the longest first
        if subject[1] < len(lower) and lower[subject[1]] in TELLING_VERBS:
            return _longest(by_start.get(subject[1] + 1, []))
    return None


def quotation_addressees(lower: Sequence[str], candidates: Sequence[Span], quotes: List[Span],
                         speakers: Sequence[Optional[Span]]) -> List[Optional[Span]]:
    """Per quotation, the candidate span it is addressed to, or None: the object of a verb of telling in the
    attribution after it; else the speaker of the quotation before it, if that one closed at most
    ``EXCHANGE_GAP`` tokens before this one opens and another speaker (other words) spoke it than this one's
    (known) speaker. None for all without the ``addressees`` switch."""
    if not switches.active().addressees:
        return [None] * len(quotes)
    by_start, _ = _candidates_by_edge(lower, candidates)
    words = [None if speaker is None else tuple(lower[speaker[0]:speaker[1]]) for speaker in speakers]
    found: List[Optional[Span]] = []
    for q, (opening, close) in enumerate(quotes):
        addressee = _told(lower, close, by_start) if switches.active().telling else None
        if addressee is None and q > 0 and words[q] is not None and words[q - 1] is not None \
                and words[q] != words[q - 1] and opening - quotes[q - 1][1] <= EXCHANGE_GAP:
            addressee = speakers[q - 1]
        found.append(addressee)
    return found


# what may stand right before a vocative ("“Jim,” says he", "Oh, Marmee"), and what ends one
VOCATIVE_OPENERS = OPENING_QUOTES | TOGGLING_QUOTES | {"oh", "o"}
ANSWER_GAP = 12  # how far back a question may close for a quotation of a name alone to answer it
VOCATIVE_WORDS = 3  # a longer span is a phrase said, not a name called ("“American girls are the best girls,”")
CLAUSE_END = {"!", "?", ".", ";"} | QUOTATION_MARKS
DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "some", "any", "no"}


def vocatives(lower: Sequence[str], quoted: Sequence[bool], candidates: Sequence[Span],
              pronouns: Sequence[bool]) -> List[bool]:
    """Per candidate, whether it is set off in a quotation as a vocative, the one the quotation addresses: at most
    ``VOCATIVE_WORDS`` words, right after the opening mark (or "oh") and before a comma or "!" and the
    quotation goes on ("“Marmee, I want …”", "“My dear Watson,” said he"; not "“Another boy.”", a phrase said, nor
    "“Ben Gunn,” he answered" after "“Who are you?” I asked", a name alone answering a question), or
    after a comma and right before the end of the clause or a comma that closes the quotation ("“Yes, Jo.”",
    "“…, Marmee?”", "“Here it is, sir,” said I"); no pronoun, no
    determiner first ("the captain" is spoken of), no quotation mark inside. Between two commas it is not read as
    one ("I saw Jo, Meg, and Amy"). Off (all false) without the ``vocatives`` switch."""
    if not switches.active().vocatives:
        return [False] * len(candidates)
    found = []
    for (start, end), pronoun in zip(candidates, pronouns):
        inside = 0 < start < end <= start + VOCATIVE_WORDS and end < len(lower) and quoted[start] and not pronoun \
            and lower[start] not in DETERMINERS and not any(word in QUOTATION_MARKS for word in lower[start:end])
        before, after = (lower[start - 1], lower[end]) if inside else ("", "")
        closing = end + 1 < len(lower) and lower[end + 1] in QUOTATION_MARKS
        last = after in CLAUSE_END or (after == "," and closing)
        # the quotation is the name and nothing more, after a question: an answer ("“Who are you?” I asked. “Ben
        # Gunn,” he answered"), not a call ("“My dear Watson,” said he")
        answer = closing and before in QUOTATION_MARKS and _after_question(lower, start - 1)
        found.append(inside and ((before in VOCATIVE_OPENERS and after in {",", "!"} and not answer)
                                 or (before == "," and last)))
    return found


def narrator_addressed(lower: Sequence[str], quoted: Sequence[bool], speakers: Sequence[Span],
                       called: Sequence[bool]) -> List[Span]:
    """``speakers`` (per candidate, ``candidate_speakers``) with a vocative's (``called``) addressee kept only where
    it is the narrator's unquoted I ("“…,” said I. “Jim, …”"): in a book's talk of several people the last other
    speaker is too often not the one called."""
    return [NO_SPEAKER if vocative and not (speaker[1] - speaker[0] == 1 and not quoted[speaker[0]]
                                            and PRONOUN_CLASS.get(lower[speaker[0]]) == FIRST_SINGULAR) else speaker
            for speaker, vocative in zip(speakers, called)]


def _after_question(lower: Sequence[str], opening: int) -> bool:
    """Whether the quotation closed last before the opening mark at ``opening`` (at most ``ANSWER_GAP`` tokens
    back) ends with a question mark."""
    for k in range(opening - 1, max(opening - ANSWER_GAP, 0) - 1, -1):
        if lower[k] in QUOTATION_MARKS:
            return k > 0 and lower[k - 1] == "?"
    return False


def candidate_speakers(lower: Sequence[str], candidates: Sequence[Span], asks: Sequence[bool],
                       quotes: Optional[List[Span]] = None, addressed: Optional[Sequence[bool]] = None
                       ) -> List[Span]:
    """Per candidate: where ``asks`` (a first-person pronoun, say), the speaker span of the quotation it stands
    in (``quotation_speakers``; ``quotes`` as ``quotations`` reads them, if already read); where ``addressed`` (a
    second-person pronoun), the span the quotation is addressed to (``quotation_addressees``); else
    ``NO_SPEAKER``."""
    addressed = addressed if addressed is not None else [False] * len(candidates)
    if not any(asks) and not any(addressed):
        return [NO_SPEAKER] * len(candidates)
    quotes = quotations(lower) if quotes is None else quotes
    speakers = quotation_speakers(lower, candidates, quotes)
    addressees = quotation_addressees(lower, candidates, quotes, speakers) if any(addressed) else []
    inside = [-1] * len(lower)
    for q, (opening, close) in enumerate(quotes):
        inside[opening: close + 1] = [q] * (close + 1 - opening)
    found = []
    for (start, _end), ask, address in zip(candidates, asks, addressed):
        q = inside[start] if ask or address else -1
        span = (speakers[q] if ask else addressees[q]) if q >= 0 else None
        found.append(span if span is not None else NO_SPEAKER)
    return found
