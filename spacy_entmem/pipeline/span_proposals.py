"""Mention proposals: spaCy's ``span_finder`` with a linear-time ``set_annotations``.

spaCy's ``SpanFinder.set_annotations`` pairs every predicted start with every predicted end and only
then filters by length, so its cost grows with the square of the document length (a 100k-token document
has ~10^8 pairs). ``entmem_span_finder`` keeps spaCy's model, loss, training and scorer and produces the
same spans, but pairs each start only with the ends inside ``max_length`` (binary search), so the cost
is linear in the document length times ``max_length``. It also keeps at most ``max_per_token`` × length
candidates, those with the highest min(start, end) probability (an untrained or low-threshold finder can
otherwise propose tens of thousands of spans per page); the kept scores are in the group's
``attrs["scores"]``. Candidates never cross a sentence end or a line break, and (``propose_pronouns``) every
personal pronoun is a candidate whatever its score: a closed class the memory may still ignore. With
``propose_name_ends`` a predicted start that begins a run of capitalised words is also paired with the run's
last word ("Alan Turing", whose end the model scored 0.45), whatever that word's end score. With
``drop_pronoun_bounded`` a longer candidate that begins with a personal pronoun other than a possessive
("he published a paper") or ends with a subject pronoun or "you" ("1936 he", "Margaret you") is not proposed:
such spans are almost never mentions (10 of LitBank train's 23,218 gold mentions, 126 of GUM train's 36,789,
mostly GUM's clause-length event mentions), and the finder proposes them often (a fifth of its candidates on
LitBank + GUM dev). With ``cut_name_clauses`` a span that begins with two or more capitalised words followed by
a verb ("Alan Turing studied mathematics", whose end the model put after the verb) is cut back to the name ("Alan
Turing"): it would cut none of LitBank train's 23,218 gold mentions and 10 of GUM train's 36,789 ("Stu Roberts
is an attorney", "Open Education Resources licensed under ...").
With ``propose_person_nouns`` a common noun for people (the packaged person-noun list's: "landlord", "waiter")
that no candidate covers gets its noun phrase in the parse proposed ("A landlord called": the finder had
proposed nothing there); with ``propose_noun_phrases`` every common noun does (a scheme that marks every entity,
as GUM's); a doc with no parse gets none.
"""
from typing import AbstractSet, Any, Callable, Dict, Iterable, Optional

import numpy
from spacy.attrs import LOWER, ORTH, SENT_START, TAG
from spacy.language import Language
from spacy.lexeme import Lexeme
from spacy.pipeline.span_finder import DEFAULT_SPAN_FINDER_MODEL, SpanFinder
from spacy.strings import hash_string
from spacy.tokens import Doc, Span, SpanGroup
from thinc.api import Model
from thinc.types import Floats2d

from ..linguistics import switches
from ..linguistics.switches import GrammarSwitches, with_own_switches
from ..linguistics.lexicon import COMMON_NOUN_TAGS, PLURAL_NOUN_TAG, POSSESSIVE_DETERMINERS, names_people
from ..linguistics.values import PRONOUNS
from ..linguistics.sentences import SENTENCE_FINAL
from ..linguistics.syntax import root_of, token_heads
from ..linguistics.turns import LETTER_OPENING, is_letter, signature_span

CANDIDATES_KEY = "mention_candidates"
# personal pronouns that begin no longer mention (possessives do: "his ideas"; so does "you" in speech: "you
# guys") and subject pronouns that end none ("I" does: "Isabel and I", "Charles I"; "you" ends 11 of LitBank +
# GUM train and dev's gold mentions, "some of you", and none of the finder's candidates the memory keeps on their
# dev sets, but "promised Margaret you" was one)
PRONOUN_STARTS = frozenset("i me he him she it we us they them".split())
PRONOUN_ENDS = frozenset("he she we they you".split())
# possessive determiners but "her" (an object too): a noun phrase hardly ever ends in one ("showed her his", "the
# principal cause of his"; LitBank + GUM train and dev hold 5 such gold mentions ending in "his", "a friend of his")
DETERMINER_ENDS = POSSESSIVE_DETERMINERS - {"her"}
# words that open a clause: a span that ends with a name right after one ends with that clause's subject
# ("Tuesday that Tim Cook", "the war which England"; no gold mention of LitBank + GUM train and dev does)
CLAUSE_OPENERS = frozenset("that which who whom when where because if while".split())


@Language.factory(
    "entmem_span_finder",
    assigns=["doc.spans"],
    default_config={
        "threshold": 0.5,
        "model": DEFAULT_SPAN_FINDER_MODEL,
        "spans_key": CANDIDATES_KEY,
        "max_length": 20,
        "min_length": None,
        "max_per_token": 0.4,
        "propose_pronouns": True,
        "propose_name_ends": False,
        "drop_pronoun_bounded": False,
        "cut_name_clauses": False,
        "propose_person_nouns": False,
        "propose_noun_phrases": False,
        "grammar_switches": {},
        "scorer": {"@scorers": "spacy.span_finder_scorer.v1"},
    },
    default_score_weights={f"spans_{CANDIDATES_KEY}_f": 0.0, f"spans_{CANDIDATES_KEY}_p": 0.0,
                           f"spans_{CANDIDATES_KEY}_r": 0.0},
)
def make_linear_span_finder(
    nlp: Language, name: str, model: Model[Iterable[Doc], Floats2d], spans_key: str, threshold: float,
    max_length: Optional[int], min_length: Optional[int], max_per_token: float, scorer: Optional[Callable],
    propose_pronouns: bool = True, propose_name_ends: bool = False, drop_pronoun_bounded: bool = False,
    cut_name_clauses: bool = False, propose_person_nouns: bool = False, propose_noun_phrases: bool = False,
    grammar_switches: Dict[str, Any] = {},  # noqa: B006 (spaCy config default)
) -> "LinearSpanFinder":
    if max_length is None:
        raise ValueError(f"[spacy-entmem] {name}: max_length must be set (a number of tokens); without it "
                         "the number of proposed spans grows with the square of the document length")
    if max_per_token <= 0:
        raise ValueError(f"[spacy-entmem] {name}: max_per_token must be > 0, got {max_per_token}")
    finder = LinearSpanFinder(nlp, model, name, spans_key=spans_key, threshold=threshold, max_length=max_length,
                              min_length=min_length, scorer=scorer)
    finder.cfg["max_per_token"] = max_per_token
    finder.cfg["propose_pronouns"] = propose_pronouns
    finder.cfg["propose_name_ends"] = propose_name_ends
    finder.cfg["drop_pronoun_bounded"] = drop_pronoun_bounded
    finder.cfg["cut_name_clauses"] = cut_name_clauses
    finder.cfg["propose_person_nouns"] = propose_person_nouns
    finder.cfg["propose_noun_phrases"] = propose_noun_phrases
    finder.cfg["grammar_switches"] = GrammarSwitches.from_config(grammar_switches, f"{name}.grammar_switches").to_config()
    return finder


SCORER_ROWS = 20000
UNTRAINED_FINDER_MESSAGE = (
    "[spacy-entmem] the span finder {name!r} has not been trained: train it with `spacy train` (README, "
    "'Training your own') or load a trained pipeline (spacy_entmem.load_default())")


def boundary_scores(doc_scores: numpy.ndarray, pairs) -> numpy.ndarray:
    """min(start probability, end probability) of each (start, end) pair (inclusive end)."""
    index = numpy.asarray(pairs, dtype="int64").reshape(-1, 2)
    return numpy.minimum(doc_scores[index[:, 0], 0], doc_scores[index[:, 1], 1]).astype("float32")


def candidate_pairs(starts: numpy.ndarray, ends: numpy.ndarray, segment: numpy.ndarray, shortest: int,
                    longest: Optional[int]) -> numpy.ndarray:
    """(P, 2) int64 (start, inclusive end) of every start paired with every end ``shortest``..``longest``
    tokens on, inside one segment (never across a sentence boundary or a line break), ordered by start then
    end. ``starts`` and ``ends`` are sorted token indices; the pairing is vectorised (binary search per
    start), so its cost and memory are linear in the number of pairs."""
    lo = numpy.searchsorted(ends, starts + shortest - 1, side="left")
    hi = numpy.searchsorted(ends, starts + longest - 1, side="right") if longest is not None else \
        numpy.full(len(starts), len(ends))
    counts = numpy.maximum(hi - lo, 0)
    first = numpy.repeat(lo - (numpy.cumsum(counts) - counts), counts)
    pair_starts = numpy.repeat(starts, counts).astype("int64")
    pair_ends = ends[first + numpy.arange(int(counts.sum()))].astype("int64")
    same = (segment[pair_starts] == segment[pair_ends]) & (segment[pair_starts] >= 0)
    return numpy.stack([pair_starts[same], pair_ends[same]], axis=1).reshape(-1, 2)


NOT_IN_PHRASE = frozenset({"cc", "conj", "punct", "appos"})  # right dependents that end a noun's own phrase
# the places of a noun in the parse, and the tags a word with a determiner in such a place may rightly have (a
# noun, a name, a verb, a pronoun: anything else is a tagger's error on a rare noun, ``mistagged_person_noun``)
NOMINAL_PLACES = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "dative", "attr", "appos", "conj"})
MISTAKABLE_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD", "PRP",
                             "PRP$", "WP", "EX", "DT"})

VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"})
# bits of a tag's classes (``tag_bits``)
COMMON_NOUN_TAG_BIT, MISTAKABLE_TAG_BIT, VERB_TAG_BIT = 1, 2, 4
TAG_BITS = {hash_string(tag): (COMMON_NOUN_TAG_BIT * (tag in COMMON_NOUN_TAGS)
                               + MISTAKABLE_TAG_BIT * (tag in MISTAKABLE_TAGS) + VERB_TAG_BIT * (tag in VERB_TAGS))
            for tag in COMMON_NOUN_TAGS | MISTAKABLE_TAGS | VERB_TAGS}


def tag_bits(tags: numpy.ndarray) -> numpy.ndarray:
    """(len(tags),) int64: the classes (``TAG_BITS``) of tag hashes as ``doc.to_array([TAG])`` gives them (a dict
    lookup per token: ``numpy.isin`` sorts its inputs each call, which cost more than the lookups on a paragraph)."""
    return numpy.fromiter((TAG_BITS.get(tag, 0) for tag in tags.tolist()), dtype="int64", count=len(tags))


# Measured reason (GUM dev +0.01 / +0.02, LitBank dev unchanged): the suite's eighth set, whose role-noun items
# with "dispatcher" failed because it was never proposed (role nouns 85.7 -> 100 %).
def mistagged_person_noun(token, nouns: AbstractSet[str]) -> bool:
    """Whether ``token`` is a singular noun for people (on ``nouns``) that the tagger gave a tag of no noun nor verb
    although a determiner of its own stands right before it and it fills a noun's place in the parse ("The
    dispatcher poured himself a drink": "dispatcher" tagged CD, the subject of "poured")."""
    if token.tag_ in MISTAKABLE_TAGS or token.dep_ not in NOMINAL_PLACES or token.i == 0 or \
            not token.is_alpha or token.lower_ not in nouns:
        return False
    before = token.doc[token.i - 1]
    return before.tag_ == "DT" and before.head.i == token.i


def noun_phrase_pairs(doc: Doc, pairs: numpy.ndarray, segment: numpy.ndarray, longest: int,
                      nouns: Optional[AbstractSet[str]] = None) -> numpy.ndarray:
    """(K, 2) int64 (start, inclusive end): for each common noun (NN / NNS, no compound modifier) in ``nouns``
    (None: every one) that none of ``pairs`` covers (with the ``clauses_cover_nothing`` switch, a pair whose parse root is
    a verb covers nothing), its noun phrase in the parse: its left subtree and the subtrees of its right
    dependents but conjuncts, appositions and punctuation ("a man of excellent character", "the waiter" of "the
    waiter and the cook"), else its left subtree alone where that phrase is not inside one segment or not
    shorter than ``longest``; none without a parse."""
    if not len(doc) or not doc.has_annotation("DEP"):
        return numpy.zeros((0, 2), dtype="int64")
    tags, lower = doc.to_array([TAG, LOWER]).reshape(-1, 2).T
    strings, lower = doc.vocab.strings, lower.tolist()
    classes = tag_bits(tags)
    nounlike = (classes & COMMON_NOUN_TAG_BIT) > 0
    if nouns is not None:  # a noun for people the tagger did not read as a noun ("the dispatcher" tagged CD)
        unexpected = numpy.flatnonzero((classes & (COMMON_NOUN_TAG_BIT | MISTAKABLE_TAG_BIT)) == 0).tolist()
        nounlike[[i for i in unexpected if strings[lower[i]] in nouns and mistagged_person_noun(doc[i], nouns)]] = True
    wanted = numpy.asarray([i for i in numpy.flatnonzero(nounlike).tolist()
                            if nouns is None or names_people(strings[lower[i]], tags[i] == PLURAL_NOUN_TAG, nouns)],
                           dtype="int64")
    if not len(wanted):
        return numpy.zeros((0, 2), dtype="int64")
    # the candidates that hold a wanted noun: only they can cover one (and only their roots are read)
    pairs = pairs[numpy.searchsorted(wanted, pairs[:, 1], "right") > numpy.searchsorted(wanted, pairs[:, 0])]
    if switches.active().clauses_cover_nothing and len(pairs):
        heads = token_heads(doc)
        roots = [root_of(heads, start, end + 1) for start, end in pairs.tolist()]
        keep = (classes[roots] & VERB_TAG_BIT) == 0
        if switches.active().fragments_cover_nothing:
            keep &= numpy.asarray([doc[root].left_edge.i <= start and end <= doc[root].right_edge.i
                                   for root, (start, end) in zip(roots, pairs.tolist())], dtype=bool)
        pairs = pairs[keep]
    covered = numpy.zeros(len(doc) + 1, dtype="int64")
    numpy.add.at(covered, pairs[:, 0], 1)
    numpy.add.at(covered, pairs[:, 1] + 1, -1)
    covered = numpy.cumsum(covered)[:-1] > 0
    found = []
    for i in wanted[~covered[wanted]].tolist():  # only the uncovered nouns are read
        token = doc[i]
        if token.dep_ == "compound":
            continue
        start = token.left_edge.i
        end = max([token.i] + [child.right_edge.i for child in token.rights if child.dep_ not in NOT_IN_PHRASE])
        for last in (end, token.i):
            if last - start < longest and segment[start] == segment[last] >= 0:
                found.append((start, last))
                break
    return numpy.asarray(found, dtype="int64").reshape(-1, 2)


def title_words(doc: Doc, bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(len(doc),) bool: the capitalised alphabetic words ("Alan", not "ALAN", "1936" or "alan"); ``bits``: the
    doc's ``word_bits`` if read already (as for each function below that takes them)."""
    return (_word_bits_of(doc, bits) & TITLED_BIT) > 0


def name_run_pairs(doc: Doc, starts: numpy.ndarray, segment: numpy.ndarray,
                   bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(K, 2) int64 (start, inclusive end): each start at a capitalised alphabetic word followed by more of
    them in its segment, paired with the last word of that run ("Alan Turing studied" → (0, 1))."""
    ends = capitalised_run_ends(title_words(doc, bits), segment)[starts]
    longer = ends > starts
    return numpy.stack([starts[longer], ends[longer]], axis=1).astype("int64").reshape(-1, 2)


CLAUSE_VERBS = frozenset("was were is are be been being had has have did does do said says will would could "
                         "should may might can must shall went came took made told asked".split())
# adverbs that may stand between a name and its verb ("Alan Turing later worked"), besides lowercase -ly words
CLAUSE_ADVERBS = frozenset("later then also soon never often always once still first finally eventually already "
                           "again just now".split())


def capitalised_run_ends(titled: numpy.ndarray, segment: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(len(titled),) for each token, the last token of the run of ``titled`` words that continues from it
    (itself where it or the next word is not titled); with ``segment``, a run also stops at a segment end."""
    linked = numpy.zeros(len(titled), dtype=bool)
    linked[:-1] = titled[:-1] & titled[1:]
    if segment is not None:
        linked[:-1] &= segment[:-1] == segment[1:]
    stops = numpy.where(linked, len(titled), numpy.arange(len(titled)))
    return numpy.minimum.accumulate(stops[::-1])[::-1]


def cut_name_clauses(doc: Doc, pairs: numpy.ndarray, bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """``pairs`` where a span that begins with a run of two or more capitalised words followed by a verb
    ("Alan Turing studied mathematics": a past-tense -ed word or a common verb), perhaps after one adverb
    ("Alan Turing later worked": a lowercase -ly word or one of ``CLAUSE_ADVERBS``), is cut back to the run
    ("Alan Turing"); duplicates removed, sorted by start then end."""
    if not len(pairs):
        return pairs
    bits = _word_bits_of(doc, bits)
    titled, verb, adverb = (bits & TITLED_BIT) > 0, (bits & VERB_WORD_BIT) > 0, (bits & ADVERB_WORD_BIT) > 0
    run_end = capitalised_run_ends(titled)
    starts, ends = pairs[:, 0], pairs[:, 1]
    last = run_end[starts]
    after = numpy.minimum(last + 1, len(doc) - 1)
    after = numpy.minimum(after + adverb[after], len(doc) - 1)  # the verb's place, past one adverb
    cut = titled[starts] & (last > starts) & (last < ends) & verb[after]
    out = pairs.copy()
    out[cut, 1] = last[cut]
    return unique_pairs(out, len(doc))


def pronoun_tokens(doc: Doc, bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(len(doc),) bool: the tokens whose lowercased form is a personal pronoun (``PRONOUNS``)."""
    return (_word_bits_of(doc, bits) & PRONOUN_BIT) > 0


def signature_pairs(doc: Doc) -> numpy.ndarray:
    """(0 or 1, 2) [start, end] (end inclusive) of the name that signs a letter (``turns.signature_span``); the
    token texts are read only for a doc that opens as a letter (``turns.is_letter``, which reads its first words)."""
    if not is_letter([token.lower_ for token in doc[:LETTER_OPENING]]):
        return numpy.zeros((0, 2), dtype="int64")
    span = signature_span([token.text for token in doc])
    return numpy.asarray([[span[0], span[1] - 1]] if span else [], dtype="int64").reshape(-1, 2)


def unique_pairs(pairs: numpy.ndarray, n_tokens: int) -> numpy.ndarray:
    """(start, end) pairs of tokens of a doc of ``n_tokens``, duplicates removed, sorted by start then end (as
    ``numpy.unique(pairs, axis=0)``, on one integer per pair: 55 against 147 µs for 150 pairs)."""
    codes = numpy.unique(pairs[:, 0] * (n_tokens + 1) + pairs[:, 1])
    return numpy.stack([codes // (n_tokens + 1), codes % (n_tokens + 1)], axis=1).astype("int64").reshape(-1, 2)


def capitalised_run_starts(titled: numpy.ndarray) -> numpy.ndarray:
    """(len(titled),) for each token, the first token of the run of ``titled`` words that ends with it (itself
    where it or the word before is not titled)."""
    linked = numpy.zeros(len(titled), dtype=bool)
    linked[1:] = titled[1:] & titled[:-1]
    return numpy.maximum.accumulate(numpy.where(linked, 0, numpy.arange(len(titled))))


def pronoun_bounded(doc: Doc, pairs: numpy.ndarray, bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(P,) bool: the (start, inclusive end) pairs longer than one token that begin with a personal pronoun of
    ``PRONOUN_STARTS``, end with one of ``PRONOUN_ENDS`` or with a possessive determiner of ``DETERMINER_ENDS``
    (all-capital words such as "US" or "IT" are not pronouns here), or end with a subject: capitalised words
    right after one of ``CLAUSE_OPENERS`` inside the span ("Tuesday that Tim Cook")."""
    if not len(pairs):
        return numpy.zeros(0, dtype=bool)
    bits = _word_bits_of(doc, bits)
    starts, ends = pairs[:, 0], pairs[:, 1]
    begins = (bits[starts] & PRONOUN_START_BIT) > 0
    finishes = (bits[ends] & (PRONOUN_END_BIT | DETERMINER_END_BIT)) > 0
    titled = (bits & TITLED_BIT) > 0
    opener = capitalised_run_starts(titled)[ends] - 1
    subject = titled[ends] & (opener > starts) & ((bits[numpy.maximum(opener, 0)] & CLAUSE_OPENER_BIT) > 0)
    return (ends > starts) & (begins | finishes | subject)


# bits of a word's flags (``word_bits``): what the finder's rules test of a token's word
(PRONOUN_BIT, PRONOUN_START_BIT, PRONOUN_END_BIT, DETERMINER_END_BIT, CLAUSE_OPENER_BIT, TITLED_BIT, VERB_WORD_BIT,
 ADVERB_WORD_BIT, SPLIT_BIT, SENTENCE_FINAL_BIT) = (1 << k for k in range(10))
WORD_BITS_LIMIT = 1_000_000  # distinct words kept before the table starts again (a bound on its memory)
_word_bits_by_orth: Dict[int, int] = {}


def _bits_of_word(lex: Lexeme) -> int:
    """A word's flags: a personal pronoun (``PRONOUNS``) and one of ``PRONOUN_STARTS`` / ``PRONOUN_ENDS`` /
    ``DETERMINER_ENDS`` / ``CLAUSE_OPENERS`` by its lowercased form (an all-capital word of two letters or more,
    "US", "IT", is none of the last four); capitalised and alphabetic ("Alan", not "ALAN", "1936" or "alan"); a
    clause's verb (a lowercase past-tense -ed word or one of ``CLAUSE_VERBS``) or adverb (a lowercase -ly word or
    one of ``CLAUSE_ADVERBS``); one that holds a line break or is white space; a sentence-final mark."""
    lower, orth = lex.lower_, lex.orth_
    shouted = lex.is_upper and len(orth) > 1
    verb = (lower.endswith("ed") and len(orth) > 3 and lex.is_lower) or lower in CLAUSE_VERBS
    adverb = not verb and ((orth.endswith("ly") and len(orth) > 3 and lex.is_lower) or orth in CLAUSE_ADVERBS)
    flags = ((PRONOUN_BIT, lower in PRONOUNS), (PRONOUN_START_BIT, lower in PRONOUN_STARTS and not shouted),
             (PRONOUN_END_BIT, lower in PRONOUN_ENDS and not shouted),
             (DETERMINER_END_BIT, lower in DETERMINER_ENDS and not shouted),
             (CLAUSE_OPENER_BIT, lower in CLAUSE_OPENERS), (TITLED_BIT, lex.is_title and lex.is_alpha),
             (VERB_WORD_BIT, verb), (ADVERB_WORD_BIT, adverb), (SPLIT_BIT, "\n" in orth or lex.is_space),
             (SENTENCE_FINAL_BIT, orth in SENTENCE_FINAL))
    return sum(bit for bit, holds in flags if holds)


def _word_bits_of(doc: Doc, bits: Optional[numpy.ndarray]) -> numpy.ndarray:
    """``bits`` if given, else the doc's ``word_bits``."""
    return word_bits(doc) if bits is None else bits


def word_bits(doc: Doc) -> numpy.ndarray:
    """(len(doc),) int64: each token's word flags (``_bits_of_word``), read once per distinct word and kept (a
    dict lookup per token: the per-doc ``numpy.unique`` and ``numpy.isin`` calls this replaces took about two fifths
    of the finder's ``set_annotations`` on GAP paragraphs, by line_profiler)."""
    orths = doc.to_array(ORTH).tolist() if len(doc) else []
    known = _word_bits_by_orth
    new = [orth for orth in set(orths) if orth not in known]
    if new:
        if len(known) + len(new) > WORD_BITS_LIMIT:
            known.clear()
            new = list(set(orths))
        vocab = doc.vocab
        known.update((orth, _bits_of_word(vocab[orth])) for orth in new)
    return numpy.fromiter((known[orth] for orth in orths), dtype="int64", count=len(orths))


def mention_segments(doc: Doc, bits: Optional[numpy.ndarray] = None) -> numpy.ndarray:
    """(len(doc),) a segment id per token such that tokens i..j may form a candidate iff
    ``segment[i] == segment[j] >= 0``. Segments end at sentence starts (when the doc has them; else after
    '.', '!' or '?'); a token that holds a line break or is only white space gets -1 and splits segments."""
    if not len(doc):
        return numpy.zeros(0, dtype="int64")
    bits = _word_bits_of(doc, bits)
    split = (bits & SPLIT_BIT) > 0
    breaks = numpy.zeros(len(doc), dtype=bool)
    if doc.has_annotation("SENT_START"):
        breaks[1:] = doc.to_array([SENT_START]).reshape(-1)[1:] == 1
    else:
        breaks[1:] = (bits[:-1] & SENTENCE_FINAL_BIT) > 0
    running = numpy.cumsum(breaks.astype("int64") + split)  # a new segment after each break and each split
    return numpy.where(split, -1, running)


class LinearSpanFinder(SpanFinder):
    """``span_finder`` whose start/end pairing visits only ends within ``max_length`` of each start.

    A training doc whose reference has no ``spans_key`` group (a GAP paragraph, say) gives no boundary
    loss: its mentions are unknown, not absent (spaCy's span_finder would teach "no mention here").
    """

    def _get_aligned_truth_scores(self, examples, ops):
        examples = list(examples)
        truths, masks = super()._get_aligned_truth_scores(examples, ops)
        offset = 0
        for eg in examples:
            n_tokens = len(eg.predicted)
            if self.cfg["spans_key"] not in eg.reference.spans:
                masks[offset: offset + n_tokens] = 0
            offset += n_tokens
        return truths, masks

    def predict(self, docs: Iterable[Doc]):
        """spaCy's prediction, with the per-token scorer run over at most ``SCORER_ROWS`` tokens at a time
        (it has no context across tokens: the same scores up to float rounding, and its activations no longer
        grow with a long document: +2.8 GB at 1M tokens before)."""
        docs = list(docs)
        if not self.is_trained():
            raise ValueError(UNTRAINED_FINDER_MESSAGE.format(name=self.name))
        if sum(len(doc) for doc in docs) <= SCORER_ROWS:
            return super().predict(docs)
        vectors = self.model.ops.flatten(self.model.get_ref("tok2vec").predict(docs))
        scorer = self.model.get_ref("scorer")
        return self.model.ops.xp.concatenate([scorer.predict(vectors[i: i + SCORER_ROWS])
                                              for i in range(0, len(vectors), SCORER_ROWS)])

    def is_trained(self) -> bool:
        """Whether the scorer's output layer has its weights (set by ``initialize`` or loading)."""
        weighted = [node for node in self.model.walk() if "W" in node.param_names]
        return bool(weighted) and all(node.has_param("W") for node in weighted)

    def from_disk(self, path, *, exclude=tuple()) -> "LinearSpanFinder":
        settings = dict(self.cfg)  # from the config, overrides given to spacy.load included
        super().from_disk(path, exclude=exclude)
        self.cfg.update(settings)  # no training state in this cfg: the config wins (pipeline/settings.py)
        return self

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "LinearSpanFinder":
        settings = dict(self.cfg)
        super().from_bytes(bytes_data, exclude=exclude)
        self.cfg.update(settings)
        return self

    def _without_pronoun_bounded(self, doc: Doc, pairs: numpy.ndarray, bits: numpy.ndarray) -> numpy.ndarray:
        """``pairs`` without the pronoun-bounded ones when ``drop_pronoun_bounded`` is on."""
        return pairs[~pronoun_bounded(doc, pairs, bits)] if self.cfg.get("drop_pronoun_bounded", False) else pairs

    @property
    def grammar_switches(self) -> GrammarSwitches:
        """The grammar switches it runs with (its ``grammar_switches`` setting; ``linguistics.switches``)."""
        return GrammarSwitches.from_config(self.cfg.get("grammar_switches", {}), f"{self.name}.grammar_switches")

    @with_own_switches
    def set_annotations(self, docs: Iterable[Doc], scores: Floats2d) -> None:
        scores = self.model.ops.to_numpy(scores)
        threshold = self.cfg["threshold"]
        shortest = self.cfg["min_length"] or 1
        longest = self.cfg["max_length"]
        propose_nouns, people = self.cfg.get("propose_noun_phrases", False), None
        if self.cfg.get("propose_person_nouns", False) and not propose_nouns:
            from ..models.memory import packaged_common_person_nouns

            propose_nouns, people = True, packaged_common_person_nouns()
        offset = 0
        for doc in docs:
            doc_scores = scores[offset: offset + len(doc)]
            starts = numpy.flatnonzero(doc_scores[:, 0] >= threshold)
            ends = numpy.flatnonzero(doc_scores[:, 1] >= threshold)
            bits = word_bits(doc)  # (read once: each of the finder's word tests below takes them)
            segment = mention_segments(doc, bits)
            pairs = self._without_pronoun_bounded(doc, candidate_pairs(starts, ends, segment, shortest, longest), bits)
            if self.cfg.get("cut_name_clauses", False):
                pairs = cut_name_clauses(doc, pairs, bits)
            pair_scores = boundary_scores(doc_scores, pairs)
            limit = max(1, int(self.cfg.get("max_per_token", 0.4) * len(doc)))
            if len(pairs) > limit:  # keep the best, in their original order
                pairs = pairs[numpy.sort(numpy.argpartition(-pair_scores, limit - 1)[:limit])]
            if self.cfg.get("propose_pronouns", False):  # a closed class: every personal pronoun is a candidate
                single = set(pairs[pairs[:, 0] == pairs[:, 1], 0].tolist())
                extra = [i for i in numpy.flatnonzero(pronoun_tokens(doc, bits)).tolist() if i not in single]
                pairs = numpy.concatenate([pairs, numpy.repeat(numpy.asarray(extra, dtype="int64")[:, None], 2, 1)])
                pairs = pairs[numpy.lexsort((pairs[:, 1], pairs[:, 0]))]
            if self.cfg.get("propose_name_ends", False):
                names = name_run_pairs(doc, starts, segment, bits)
                names = self._without_pronoun_bounded(doc, names[names[:, 1] - names[:, 0] < longest], bits)
                pairs = unique_pairs(numpy.concatenate([pairs, names]), len(doc))
            if self.cfg.get("propose_pronouns", False) and switches.active().signature:
                signed = signature_pairs(doc)  # "Best,\nDaniel" (most docs: no letter, nothing to add)
                if len(signed):
                    pairs = unique_pairs(numpy.concatenate([pairs, signed]), len(doc))
            if propose_nouns:
                found = noun_phrase_pairs(doc, pairs, segment, longest, people)
                pairs = unique_pairs(numpy.concatenate([pairs, found]), len(doc))
            pair_scores = boundary_scores(doc_scores, pairs)
            doc.spans[self.cfg["spans_key"]] = SpanGroup(
                doc, name=self.cfg["spans_key"], spans=[Span(doc, s, e + 1) for s, e in pairs.tolist()],
                attrs={"scores": [round(float(x), 4) for x in pair_scores]},
            )
            offset += len(doc)
