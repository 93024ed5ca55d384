"""Features of a pronoun query (a pronoun and two candidate names, as in GAP) read off an annotated doc: what the
memory decided and how sure it was (its log), where the spans stand in the text, and the tok2vec vectors around
them. ``pronoun_resolver`` scores them; nothing here is learned.

A span is a ``(start, end)`` token range of the doc. The memory log must be a span model's (one step per
candidate), with the query's spans among the candidates or near them (``memory_log.steps_matching``)."""
import math
from typing import Dict, List, Sequence, Set, Tuple

import numpy
from spacy.tokens import Doc

from .memory_log import MemoryLog, held_link_probability, step_entities, steps_matching
from ..linguistics.sentences import SENTENCE_FINAL

TokenRange = Tuple[int, int]
# a pronoun right after one of these starts a clause (a cheap stand-in for "is a subject")
CLAUSE_OPENERS = frozenset({".", "!", "?", ",", '"', ";", "and", "but", "when", "after", "as", "while", "because"})
POSSESSIVE_PRONOUNS = frozenset({"his", "her", "hers"})
OBJECT_PRONOUNS = frozenset({"him", "her"})
MEMORY_FEATURES = ("link", "name_link", "has_name_cell", "mention_probability", "pronoun_new_entity",
                   "pronoun_mention_probability", "pronoun_joined_name")
SURFACE_FEATURES = ("same_entity", "before_pronoun", "log_distance", "same_sentence",
                    "sentences_between", "sentence_initial", "parallel_subjects", "possessive_after",
                    "log_name_frequency", "closer_than_other", "possessive_pronoun", "object_pronoun_initial_name")
# the vectors: candidate (start, end, after, before, pronoun × start, pronoun × end), the same for the other,
# then the pronoun (itself, before, after)
N_CANDIDATE_VECTORS, N_PRONOUN_VECTORS = 6, 3


def feature_names(vector_width: int) -> List[str]:
    """The name of every column of ``query_features``' rows."""
    names = list(MEMORY_FEATURES) + list(SURFACE_FEATURES) + [f"other_{name}" for name in MEMORY_FEATURES]
    for who, n in (("candidate", N_CANDIDATE_VECTORS), ("other", N_CANDIDATE_VECTORS), ("pronoun", N_PRONOUN_VECTORS)):
        names.extend(f"{who}_vector{k}_{i}" for k in range(n) for i in range(vector_width))
    return names


def query_features(doc: Doc, pronoun: TokenRange, a: TokenRange, b: TokenRange) -> numpy.ndarray:
    """(2, F) float32: the features of A as the pronoun's antecedent (B the competitor), then of B (A the
    competitor). The doc needs its memory log (``store_memory_log``) and ``doc.tensor`` (a tok2vec)."""
    log = doc._.entity_memory_log
    if log is None or "spans" not in log:
        raise ValueError("[spacy-entmem] pronoun features need a span memory's log: run the pipeline with "
                         "entity_memory's store_memory_log = true")
    if doc.tensor is None or doc.tensor.shape[0] != len(doc) or doc.tensor.ndim != 2:
        raise ValueError("[spacy-entmem] pronoun features need doc.tensor (token vectors from a tok2vec)")
    spans = {"pronoun": pronoun, "A": a, "B": b}
    for name, span in spans.items():
        if not 0 <= span[0] < span[1] <= len(doc):
            raise ValueError(f"[spacy-entmem] the {name} span {span} is not a non-empty token range of the doc "
                             f"({len(doc)} tokens)")
    steps = {name: steps_matching(log, span) for name, span in spans.items()}
    missing = [f"{name} {spans[name]}" for name, found in steps.items() if not found]
    if missing:
        raise ValueError(f"[spacy-entmem] no candidate of the memory stands for the {', '.join(missing)} span(s): "
                         "run the memory with the query's spans among its candidates")
    entities = step_entities(log["action"], log["cell"])
    words = [token.text for token in doc]
    cells_before = _cells_before(log, entities, words, steps["pronoun"][0])
    memory = {name: _memory_features(log, entities, words, steps[name], steps["pronoun"], cells_before)
              for name in ("A", "B")}
    vectors = {name: _candidate_vectors(doc.tensor, span, pronoun) for name, span in (("A", a), ("B", b))}
    pronoun_vectors = _pronoun_vectors(doc.tensor, pronoun)
    rows = []
    for name, other, span, other_span in (("A", "B", a, b), ("B", "A", b, a)):
        surface = _surface_features(words, entities, steps, name, span, other_span, pronoun)
        rows.append(numpy.concatenate([memory[name], surface, memory[other], vectors[name], vectors[other],
                                       pronoun_vectors]))
    return numpy.stack(rows).astype("float32")


def _capitalised(words: Sequence[str], span: TokenRange) -> Set[str]:
    return {w.lower() for w in words[span[0]:span[1]] if w[:1].isupper()}


def _cells_before(log: MemoryLog, entities: List[int], words: Sequence[str],
                  t: int) -> Tuple[Dict[int, int], Dict[int, Set[str]]]:
    """The memory just before step ``t``: which entity each used cell holds, and each entity's capitalised
    words (one replay of the log per query, shared by both candidates)."""
    spans, cells = log["spans"].tolist(), log["cell"].tolist()
    cell_entity: Dict[int, int] = {}
    entity_words: Dict[int, Set[str]] = {}
    for step in range(t):
        if entities[step] < 0:
            continue
        cell_entity[cells[step]] = entities[step]
        entity_words.setdefault(entities[step], set()).update(_capitalised(words, tuple(spans[step])))
    return cell_entity, entity_words


def _memory_features(log: MemoryLog, entities: List[int], words: Sequence[str], candidate_steps: List[int],
                     pronoun_steps: List[int], cells_before: Tuple[Dict[int, int], Dict[int, Set[str]]]
                     ) -> numpy.ndarray:
    """MEMORY_FEATURES of one candidate: its held link probability; the pronoun's best COREF probability on a
    cell whose entity shares a capitalised word with it (a name the memory saw before); how sure the memory was
    that the candidate is a mention; how likely the pronoun was a new entity / a mention; whether the pronoun
    joined an entity that shares such a word. ``cells_before``: ``_cells_before`` at the pronoun's step."""
    t = pronoun_steps[0]
    spans = log["spans"].tolist()
    name = _capitalised(words, tuple(spans[candidate_steps[0]]))
    for step in candidate_steps[1:]:
        name |= _capitalised(words, tuple(spans[step]))
    cell_entity, entity_words = cells_before
    named_cells = [cell for cell, entity in cell_entity.items() if entity_words[entity] & name]
    name_link = max((float(log["coref"][t][cell]) for cell in named_cells), default=0.0)
    joined = entities[t]
    joined_name = joined >= 0 and bool(entity_words.get(joined, set()) & name)
    return numpy.array([
        held_link_probability(log, candidate_steps, pronoun_steps), name_link, float(bool(named_cells)),
        max(float(log["entity"][step]) for step in candidate_steps), float(log["overwrite"][t].max()),
        float(log["entity"][t]), float(joined_name)], dtype="float32")


def _surface_features(words: Sequence[str], entities: List[int], steps: Dict[str, List[int]], name: str,
                      span: TokenRange, other_span: TokenRange, pronoun: TokenRange) -> numpy.ndarray:
    """SURFACE_FEATURES of one candidate against the pronoun and the other candidate."""
    (start, end), (p_start, p_end) = span, pronoun
    before = end <= p_start
    distance = max(p_start - end if before else start - p_end, 0)
    between = words[end:p_start] if before else words[p_end:start]
    n_sentence_ends = sum(word in SENTENCE_FINAL for word in between)
    sentence_initial = start == 0 or words[start - 1] in SENTENCE_FINAL | {'"'}
    pronoun_opens_clause = p_start == 0 or words[p_start - 1].lower() in CLAUSE_OPENERS
    o_start, o_end = other_span
    other_distance = max(p_start - o_end if o_end <= p_start else o_start - p_end, 0)
    pronoun_word = words[p_start].lower()
    same_entity = any(entities[c] >= 0 and entities[c] == entities[p] for c in steps[name] for p in steps["pronoun"])
    return numpy.array([
        float(same_entity), float(before), math.log1p(distance), float(n_sentence_ends == 0),
        float(n_sentence_ends), float(sentence_initial), float(sentence_initial and pronoun_opens_clause),
        float(end < len(words) and words[end] in ("'s", "'")), math.log(sum(w == words[end - 1] for w in words)),
        float(distance < other_distance), float(pronoun_word in POSSESSIVE_PRONOUNS),
        float(pronoun_word in OBJECT_PRONOUNS and sentence_initial)], dtype="float32")


def role_features(doc: Doc, pronoun: TokenRange, a: TokenRange, b: TokenRange) -> numpy.ndarray:
    """(2, ROLE_FEATURES) float32, A's row then B's: the candidate's grammatical role in the parse, the other
    candidate's and the pronoun's (one-hot over ``syntax.N_ROLES``, all "no role" without a parse), and whether
    each candidate has the pronoun's role (parallelism); the last two entries of each row are the candidate's then
    the other's."""
    from ..linguistics.syntax import NO_ROLE, N_ROLES, grammatical_role, span_root  # (syntax reads this package's word lists)

    parsed = doc.has_annotation("DEP")
    roles = [grammatical_role(doc[span_root(doc, *span)]) if parsed else NO_ROLE for span in (pronoun, a, b)]
    one_hot = numpy.eye(N_ROLES, dtype="float32")
    rows = []
    for this, other in ((1, 2), (2, 1)):
        same = [float(parsed and roles[k] == roles[0]) for k in (this, other)]
        rows.append(numpy.concatenate([one_hot[roles[this]], one_hot[roles[other]], one_hot[roles[0]],
                                       numpy.array(same, dtype="float32")]))
    return numpy.stack(rows)


def _row(tensor: numpy.ndarray, i: int) -> numpy.ndarray:
    return tensor[i] if 0 <= i < len(tensor) else numpy.zeros(tensor.shape[1], dtype=tensor.dtype)


def _candidate_vectors(tensor: numpy.ndarray, span: TokenRange, pronoun: TokenRange) -> numpy.ndarray:
    (start, end), p = span, _row(tensor, pronoun[0])
    first, last = _row(tensor, start), _row(tensor, end - 1)
    return numpy.concatenate([first, last, _row(tensor, end), _row(tensor, start - 1), p * first, p * last])


def _pronoun_vectors(tensor: numpy.ndarray, pronoun: TokenRange) -> numpy.ndarray:
    start = pronoun[0]
    return numpy.concatenate([_row(tensor, start), _row(tensor, start - 1), _row(tensor, start + 1)])
