"""A bounded mention-level entity memory trained with teacher forcing (Toshniwal et al. 2020, "Learning to
Ignore"; fast-coref), keeping PeTra's memory: N cells of (vector m_i, usage u_i), a new entity takes the
least-used cell, and the similarity MLP scores [g; m_i; g ⊙ m_i; features].

The steps are candidate mentions (ordered by end, inner first) with span vectors g_t built as in the span
PeTra (``SpanPetraMemory.represent_spans``). At each step the memory chooses one action:

    IGNORE         logit 0                                         (not a mention)
    OVERWRITE      logit s_m(g) + s_n(g)                           (a new entity, in the least-used cell)
    COREF cell i   logit s_m(g) + MLP2([g; m_i; g ⊙ m_i; φ(t, i)]) (masked on empty cells)

with s_m the mention score, s_n the new-entity score and φ(t, i) embedded symbolic features of the pair
(string / head match with the cell's mentions, gender / number / pronoun agreement, token distance to the
cell's last mention, the cell's recency rank and size, quotation, proper names; see ``CellState``).

Training maximises log p(gold action) at every step while the memory is updated with the *gold* action;
inference takes the argmax inside the loop and updates the memory with it, so the decoded clusters are the
memory's contents (for k-best lists, ``forced_actions`` imposes an action at chosen steps and
``record_decision_scores`` returns every step's scores; see ``spacy_entmem.pipeline.kbest``).

Updates: OVERWRITE m_j ← g; COREF m_i ← β m_i + (1 − β) g, β = σ(w·[m_i; g]); usage u ← γ u, then 1 on the
cell acted on (so the least-used cell is the least recently used one). A cell that is overwritten forgets its
entity: a later mention of it starts a new one (bounded memory).
"""
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy
import torch
from torch import nn
from torch.nn import functional as F

from ...linguistics import switches
from ...linguistics.cell_rules import (CELL_CLASH_RULES, GENDER_AGREEMENT, IS_PERSONAL_GENDER, IS_SPOKEN_PERSON,
                                       N_PRONOUN_CLASSES, NUMBER_AGREEMENT, NUMBER_RULES, PAIR_FEATURE_SIZES,
                                       PARSE_FEATURE_SIZES, PLURAL_THEY_WINDOW, SPOKEN_PERSONS, THEY, TIME_EXPRESSION,
                                       CellRules, apposed_names, complement_keys, complements_clash, is_name,
                                       narrator_pronouns, narrator_voiced, speaker_followers, speaking, third_person,
                                       titles_clash)
from ...linguistics.columns import (APPOSED, BINDER, GENDER, HEAD, INANIMATE, NAME_WORDS, NORM, NOUN_NUMBER, NUMBER,
                                    OF_WORDS, PERSON, PRONOUN, PROPER, QUOTED, REPORTER, ROLE, ROOT, SENTENCE, SPEAKER,
                                    TITLE, TURN, VOICE)
from ...linguistics.values import NO_SENTENCE, PERSON_NOUN, READER
from .archive import ArchivedEntity, EntityArchive
from .carry import CELL_ARRAYS, CELL_SETS, CarriedMemory, export_row, import_row
from .outputs import MemoryOutput, token_mask
from .petra import UNUSED_CELL_SCORE, SplitInputMLP, encode_left_to_right, memory_config_problems
from .span_petra import SpanPetraMemory, rows_at

IGNORE, OVERWRITE, COREF = 0, 1, 2
NO_CLUSTER = -1
# gold codes of a candidate (besides a cluster id >= 0 and NOT_A_MENTION): in partially annotated documents
# (GAP) the memory follows its own decision at UNKNOWN candidates, without loss; a SOME_OTHER_ENTITY
# candidate is a mention of none of the annotated entities (a GAP pronoun that is neither A's nor B's)
NOT_A_MENTION, UNKNOWN, SOME_OTHER_ENTITY = -1, -2, -3
FEATURE_WEIGHT = "similarity_mlp.memory_projs.2.weight"  # the similarity MLP's first layer on the pair features


def put(target: torch.Tensor, index: Tuple[torch.Tensor, ...], values: torch.Tensor) -> torch.Tensor:
    """``target`` with ``target[index] = values``: in place where autograd records nothing (inference: no copy
    of the whole memory at every step), else out of place (training backpropagates through the old values)."""
    if torch.is_grad_enabled() and (target.requires_grad or values.requires_grad):
        return target.index_put(index, values)
    return target.index_put_(index, values)


def span_steps(spans: numpy.ndarray, attrs: numpy.ndarray, asks: numpy.ndarray, columns: slice) -> numpy.ndarray:
    """(B, M) for each candidate in ``asks`` (B, M), the step of the candidate whose span its attribute
    ``columns`` (start, end) name; -1 elsewhere and where that span is no candidate (pruned, say)."""
    steps = numpy.full(spans.shape[:2], -1)
    for b in numpy.flatnonzero(asks.any(axis=1)).tolist():
        at = {(start, end): t for t, (start, end) in enumerate(spans[b].tolist())}
        for t in numpy.flatnonzero(asks[b]).tolist():
            steps[b, t] = at.get(tuple(attrs[b, t, columns].tolist()), -1)
    return steps


# what a learnt eviction policy reads of a cell (``CellState.eviction_features``)
EVICTION_FEATURES = ("bias", "log idle tokens", "log mentions", "recency rank", "proper", "holds a name",
                     "holds a person", "narrator", "I or you", "last mention a pronoun", "inanimate", "only times",
                     "plural", "one mention", "log idle × log mentions")


def speaker_steps(spans: numpy.ndarray, attrs: numpy.ndarray) -> numpy.ndarray:
    """(B, M) for each quoted I / me / my with an attributed speaker, the step of the candidate that is that
    speaker span (for a quoted you / your or a vocative, its addressee's); -1 elsewhere and where the speaker span
    is no candidate (pruned, say)."""
    return span_steps(spans, attrs, speaker_followers(attrs), SPEAKER)


def follower_steps(leaders: Optional[numpy.ndarray]) -> Optional[numpy.ndarray]:
    """(B, M) for each candidate that is the leader of an earlier one (``leader_steps``: the speaker after its
    quotation's I, "“I am tired,” Robert said"), the first such earlier step; -1 elsewhere; None without leaders
    or with the ``later_leaders`` switch off."""
    if leaders is None or not switches.active().later_leaders:
        return None
    followers = numpy.full(leaders.shape, -1)
    later = (leaders >= 0) & (leaders > numpy.arange(leaders.shape[1])[None, :])
    for b, s in zip(*numpy.nonzero(later)):
        if followers[b, leaders[b, s]] < 0:
            followers[b, leaders[b, s]] = s
    return followers if (followers >= 0).any() else None


NEW_ENTITY_CELL = -2  # what a rule names instead of a cell where the candidate must begin a new entity


def join_where_free(forced: Optional[numpy.ndarray], cells: numpy.ndarray) -> numpy.ndarray:
    """Forced action indices (B,) (or None: none yet) with COREF into ``cells`` (B,) where a rule names a cell
    (≥ 0), OVERWRITE where it names ``NEW_ENTITY_CELL``, and no action is forced already (an earlier rule's or
    a k-best list's); -1 where neither."""
    rule = numpy.where(cells >= 0, 2 + cells, numpy.where(cells == NEW_ENTITY_CELL, OVERWRITE, -1))
    return rule if forced is None else numpy.where(forced >= 0, forced, rule)


def joinable(cells: numpy.ndarray, disagree: Optional[numpy.ndarray]) -> numpy.ndarray:
    """``cells`` (B,) a rule names (-1: none), set to -1 in place where ``disagree`` (B, N; None: no
    constraint) forbids the row to join its cell."""
    if disagree is not None:
        rows = numpy.flatnonzero(cells >= 0)
        cells[rows[disagree[rows, cells[rows]]]] = -1
    return cells


def entity_of_step(state: "CellState", decision: "Decision") -> numpy.ndarray:
    """(B,) the entity each candidate joined or began at the step just applied to ``state``; -1 if ignored."""
    joined = state.entity[numpy.arange(len(decision.action)), decision.cell]
    return numpy.where(decision.action == IGNORE, -1, joined)


class CellState(CellRules):
    """The symbolic side of the memory for a batch of B documents (numpy): which entity each cell holds,
    the strings and heads of its mentions, its gender / number, its last mention; the rules and pair features
    that read it are ``linguistics.cell_rules.CellRules``'."""

    def __init__(self, batch: int, n_cells: int):
        self.entity = numpy.full((batch, n_cells), -1, dtype="int64")  # -1: empty
        self.usage = numpy.zeros((batch, n_cells))
        self.last_end = numpy.zeros((batch, n_cells), dtype="int64")
        self.count = numpy.zeros((batch, n_cells), dtype="int64")
        self.gender = numpy.zeros((batch, n_cells), dtype="int64")
        self.number = numpy.zeros((batch, n_cells), dtype="int64")
        self.last_pronoun = numpy.zeros((batch, n_cells), dtype="int64")
        self.last_quoted = numpy.zeros((batch, n_cells), dtype="int64")
        self.last_role = numpy.zeros((batch, n_cells), dtype="int64")  # ROLE of its last mention
        self.last_sentence = numpy.full((batch, n_cells), NO_SENTENCE, dtype="int64")  # SENTENCE of its last mention
        self.proper = numpy.zeros((batch, n_cells), dtype="int64")
        self.inanimate = numpy.zeros((batch, n_cells), dtype=bool)  # a mention with an inanimate head joined
        # a time expression joined (INANIMATE == TIME_EXPRESSION); something else joined
        self.temporal = numpy.zeros((batch, n_cells), dtype=bool)
        self.untimed = numpy.zeros((batch, n_cells), dtype=bool)
        self.person_noun = numpy.zeros((batch, n_cells), dtype=bool)  # a nominal headed by a person noun joined
        self.third_person = numpy.zeros((batch, n_cells), dtype=bool)  # a name, nominal or he / she ... joined
        # 1 + the voice of the unquoted I / me / my that joined (``VOICE``; 0: none joined)
        self.narrator = numpy.zeros((batch, n_cells), dtype="int64")
        # bit 1: a singular noun heads one of its nominal mentions, bit 2: a plural one (``noun_number``)
        self.noun_numbers = numpy.zeros((batch, n_cells), dtype="int64")
        self.strings = [[set() for _ in range(n_cells)] for _ in range(batch)]
        self.names = [[set() for _ in range(n_cells)] for _ in range(batch)]  # name word ids of its mentions
        self.roots = [[set() for _ in range(n_cells)] for _ in range(batch)]  # its mentions' root tokens
        # (turn, person) of its mentions that have a person (``PERSON``, ``TURN``)
        self.persons = [[set() for _ in range(n_cells)] for _ in range(batch)]
        self.titles = [[set() for _ in range(n_cells)] for _ in range(batch)]  # TITLE groups of its titled names
        # read off ``persons`` (kept as arrays: every step asks them of every cell): an I / me / my or a you
        # joined; a you with no addressee (``READER``) joined
        self.spoken = numpy.zeros((batch, n_cells), dtype=bool)
        self.reader = numpy.zeros((batch, n_cells), dtype=bool)
        # per document: ("n", norm id) / ("h", head id) -> the cells holding a mention with that string
        self.cells_with = [dict() for _ in range(batch)]
        self.next_entity = numpy.zeros(batch, dtype="int64")
        # per document: the entities evicted from its cells (``archive``; None: none kept)
        self.archives: List[Optional[EntityArchive]] = [None] * batch
        # book-length settings (``MentionMemory``): the most mentioned cells kept from eviction; names read only
        # from mentions a name heads; several cells holding a name: the most mentioned takes it
        self.protected_cells = 0
        self.names_from_name_heads = False
        self.name_ties_to_most_mentioned = False
        # a learnt eviction policy (``training.eviction``): weights over ``EVICTION_FEATURES`` (None: least used),
        # and the first token of each document's current candidate (the cells' idle time is read off it)
        self.eviction_weights: Optional[numpy.ndarray] = None
        self.step_starts = numpy.zeros(batch, dtype="int64")

    def derive_person_flags(self, row: int) -> None:
        """Set row ``row``'s ``spoken`` and ``reader`` from its ``persons`` (a state carried in from a text before)."""
        for cell, persons in enumerate(self.persons[row]):
            self.spoken[row, cell] = any(p in SPOKEN_PERSONS for _, p in persons)
            self.reader[row, cell] = any(p == READER for _, p in persons)

    def select(self, rows: numpy.ndarray) -> "CellState":
        """A state whose row k is a copy of row ``rows[k]`` of this one (beam search: each kept reading
        continues from its parent). A row taken more than once gets its own string sets; this state is not
        to be used afterwards (its string sets pass to the first row that takes them)."""
        out = CellState.__new__(CellState)
        for name, value in vars(self).items():
            if isinstance(value, numpy.ndarray):
                setattr(out, name, value[rows])
        out.strings, out.cells_with, out.names, out.roots, out.persons, taken = [], [], [], [], [], set()
        out.titles, out.archives = [], []
        for name in ("protected_cells", "names_from_name_heads", "name_ties_to_most_mentioned", "eviction_weights"):
            setattr(out, name, getattr(self, name))  # (settings, not per-document rows)
        for row in rows.tolist():
            strings, cells_with, names = self.strings[row], self.cells_with[row], self.names[row]
            roots, persons, titles, archive = self.roots[row], self.persons[row], self.titles[row], self.archives[row]
            if row in taken:
                strings, names = [set(cell) for cell in strings], [set(cell) for cell in names]
                roots, persons = [set(cell) for cell in roots], [set(cell) for cell in persons]
                titles = [set(cell) for cell in titles]
                cells_with = {key: set(cells) for key, cells in cells_with.items()}
                archive = None if archive is None else archive.copy()
            taken.add(row)
            out.strings.append(strings)
            out.cells_with.append(cells_with)
            out.names.append(names)
            out.roots.append(roots)
            out.persons.append(persons)
            out.titles.append(titles)
            out.archives.append(archive)
        return out

    def least_used(self) -> numpy.ndarray:
        """(B,) the cell a new entity takes: an empty one (lowest index) or else the least used; with
        ``protected_cells`` = G, not one of the G most mentioned cells (Dual Cache's global cache: the main
        entities stay while the others churn)."""
        if self.eviction_weights is not None:  # the learnt policy: evict the cell it scores highest
            scores = self.eviction_features() @ self.eviction_weights
            return numpy.argmax(numpy.where(self.used, scores, numpy.inf), axis=1)
        usage = numpy.where(self.used, self.usage, -1.0)
        if 0 < self.protected_cells < usage.shape[1] and self.used.all(axis=1).any():  # (else an empty cell is taken)
            protected = numpy.argsort(-self.count, axis=1, kind="stable")[:, :self.protected_cells]
            usage = usage.copy()
            numpy.put_along_axis(usage, protected, numpy.where(
                numpy.take_along_axis(self.used, protected, axis=1), numpy.inf, -1.0), axis=1)
        return numpy.argmin(usage, axis=1)

    def eviction_features(self) -> numpy.ndarray:
        """(B, N, len(EVICTION_FEATURES)) what a learnt eviction policy reads of each cell (see the names)."""
        idle = numpy.maximum(self.step_starts[:, None] - self.last_end, 0)
        rank = self.recency_rank()
        named = numpy.array([[bool(names) for names in row] for row in self.names])
        columns = [numpy.ones_like(idle, dtype=float), numpy.log1p(idle), numpy.log1p(self.count),
                   rank / max(self.entity.shape[1] - 1, 1), self.proper > 0, named, self.holds_person(),
                   self.narrator > 0, self.spoken | self.reader, self.last_pronoun > 0, self.inanimate,
                   self.time_only(), self.plural(), self.count == 1, numpy.log1p(idle) * numpy.log1p(self.count)]
        return numpy.stack([numpy.asarray(column, dtype=float) for column in columns], axis=-1)

    def apply(self, actions: numpy.ndarray, cells: numpy.ndarray, attrs: numpy.ndarray, ends: numpy.ndarray,
              decay: float, active: numpy.ndarray) -> None:
        """Record the actions (B,) on cells (B,) of the candidates with attributes attrs (B, A) ending at
        ends (B,) (A = len(ATTRIBUTE_FIELDS)); rows where ``active`` is false (padding) change nothing. One cell per row, so the numeric
        fields are set with array indexing; only the string sets need a loop."""
        self.usage[active] *= decay
        rows = numpy.flatnonzero(active & (actions != IGNORE))
        if not len(rows):
            return
        cells, attrs = cells[rows], attrs[rows]
        fresh = actions[rows] == OVERWRITE
        new_rows, new_cells = rows[fresh], cells[fresh]
        self.entity[new_rows, new_cells] = self.next_entity[new_rows]
        self.next_entity[new_rows] += 1
        for field in (self.count, self.gender, self.number, self.proper, self.inanimate, self.narrator,
                      self.noun_numbers, self.temporal, self.untimed, self.person_noun, self.third_person,
                      self.spoken, self.reader):
            field[new_rows, new_cells] = 0
        for b, i in zip(new_rows.tolist(), new_cells.tolist()):
            for key in self.strings[b][i]:
                self.cells_with[b][key].discard(i)
            self.strings[b][i] = set()
            self.names[b][i] = set()
            self.roots[b][i] = set()
            self.persons[b][i] = set()
            self.titles[b][i] = set()
        complemented = (attrs[:, OF_WORDS] >= 0).any(axis=1)  # (a name's "of" complement: ``complement_keys``)
        for b, i, norm, head, k in zip(rows.tolist(), cells.tolist(), attrs[:, NORM].tolist(), attrs[:, HEAD].tolist(),
                                       range(len(rows))):
            if norm >= 0:
                for key in (("n", norm), ("h", head)) + (tuple(complement_keys(attrs[k])) if complemented[k] else ()):
                    self.strings[b][i].add(key)
                    self.cells_with[b].setdefault(key, set()).add(i)
        for b, i, root, person, turn in zip(rows.tolist(), cells.tolist(), attrs[:, ROOT].tolist(),
                                            attrs[:, PERSON].tolist(), attrs[:, TURN].tolist()):
            if root >= 0:
                self.roots[b][i].add(root)
            if person > 0:
                self.persons[b][i].add((turn, person))
        named = is_name(attrs) | speaking(attrs) if self.names_from_name_heads else (attrs[:, NAME_WORDS] >= 0).any(axis=1)
        for b, i, title in zip(rows.tolist(), cells.tolist(), attrs[:, TITLE].tolist()):
            if title > 0:
                self.titles[b][i].add(title)
        for b, i, words in zip(rows[named].tolist(), cells[named].tolist(), attrs[named, NAME_WORDS].tolist()):
            self.names[b][i].update(word for word in words if word >= 0)
        for field, column in ((self.gender, GENDER), (self.number, NUMBER)):
            known = attrs[:, column] != 0
            field[rows[known], cells[known]] = attrs[known, column]
        self.proper[rows, cells] = numpy.maximum(self.proper[rows, cells], attrs[:, PROPER])
        self.inanimate[rows, cells] |= attrs[:, INANIMATE] > 0
        self.temporal[rows, cells] |= attrs[:, INANIMATE] == TIME_EXPRESSION
        self.untimed[rows, cells] |= attrs[:, INANIMATE] != TIME_EXPRESSION
        self.person_noun[rows, cells] |= attrs[:, INANIMATE] == PERSON_NOUN
        self.third_person[rows, cells] |= third_person(attrs)
        self.spoken[rows, cells] |= IS_SPOKEN_PERSON[attrs[:, PERSON]]
        self.reader[rows, cells] |= attrs[:, PERSON] == READER
        self.narrator[rows, cells] = numpy.where(narrator_pronouns(attrs), attrs[:, VOICE] + 1,
                                                 self.narrator[rows, cells])
        self.noun_numbers[rows, cells] |= attrs[:, NOUN_NUMBER]
        self.last_pronoun[rows, cells] = attrs[:, PRONOUN]
        self.last_quoted[rows, cells] = attrs[:, QUOTED]
        self.last_role[rows, cells] = attrs[:, ROLE]
        self.last_sentence[rows, cells] = attrs[:, SENTENCE]
        self.last_end[rows, cells] = ends[rows]
        self.count[rows, cells] += 1
        self.usage[rows, cells] = 1.0


@dataclass
class Decision:
    """Per step: the action (B,) and the cell it acts on (B,)."""

    action: numpy.ndarray
    cell: numpy.ndarray
    scores: Optional[numpy.ndarray] = None  # (B, N + 2) at inference: what the greedy choice maximised


def allowed_actions(state: CellState, codes: numpy.ndarray, cell_cluster: numpy.ndarray,
                    partial: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(B, N + 2) the actions [IGNORE, OVERWRITE, COREF 1..N] that agree with the gold, and (B,) whether
    the step is supervised at all.

    Fully annotated documents allow exactly one action: IGNORE for a non-mention, COREF with the cell that
    holds the mention's cluster, else OVERWRITE. In partially annotated documents (``partial``) a known
    cluster not in memory yet may start a new entity or join any cell that holds no other known cluster
    (an earlier mention of it may have gone unannotated); so may a SOME_OTHER_ENTITY mention; an UNKNOWN
    candidate allows everything and is not supervised."""
    B, N = cell_cluster.shape
    allowed = numpy.zeros((B, N + 2), dtype=bool)
    holds = (cell_cluster == codes[:, None]) & state.used & (codes[:, None] >= 0)
    has = holds.any(axis=1)
    free_cells = state.used & (cell_cluster < 0)  # cells holding no annotated cluster
    for b in range(B):
        code = codes[b]
        if code == NOT_A_MENTION:
            allowed[b, IGNORE] = True
        elif has[b]:
            allowed[b, 2 + holds[b].argmax()] = True
        elif code == UNKNOWN:
            allowed[b] = True
        elif partial[b]:
            allowed[b, OVERWRITE] = True
            allowed[b, 2:] = free_cells[b]
        else:
            allowed[b, OVERWRITE] = True
    return allowed, codes != UNKNOWN


def choose(scores: numpy.ndarray, state: CellState, forced: Optional[numpy.ndarray] = None) -> Decision:
    """The best action per row of scores (B, N + 2), or the action index ``forced`` (B,) gives where it is
    ≥ 0; a new entity takes the least-used cell."""
    best = scores.argmax(axis=1)
    if forced is not None:
        best = numpy.where(forced >= 0, forced, best)
    return decide(best, state, scores)


def decide(columns: numpy.ndarray, state: CellState, scores: Optional[numpy.ndarray] = None) -> Decision:
    """The decisions of the action columns (B,) [IGNORE, OVERWRITE, COREF 1..N]: a new entity takes the
    least-used cell."""
    return Decision(numpy.minimum(columns, COREF).astype("int64"),
                    numpy.where(columns >= 2, columns - 2, state.least_used()).astype("int64"), scores)


def action_index(actions: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
    """The column of each decision in the (N + 2) action scores: IGNORE 0, OVERWRITE 1, COREF cell i 2 + i."""
    return numpy.where(actions == COREF, 2 + cells, actions)


class MentionMemory(nn.Module):
    """Span vectors → teacher-forced bounded memory over candidate mentions (see the module docstring)."""

    def __init__(
        self,
        input_width: int,
        hidden_width: int = 200,
        n_cells: int = 20,
        mlp_width: int = 200,
        usage_decay: float = 0.98,
        dropout: float = 0.3,
        max_span_width: int = 20,
        width_embedding: int = 20,
        feature_width: int = 16,
        parse_features: bool = False,
    ):
        super().__init__()
        self.n_cells = n_cells
        # the pair features: the string, agreement and memory ones, then with ``parse_features`` the parse's
        self.parse_features = parse_features
        self.feature_sizes = PAIR_FEATURE_SIZES + (PARSE_FEATURE_SIZES if parse_features else ())
        self.feature_offsets = numpy.cumsum((0,) + self.feature_sizes[:-1])  # rows of each in one joint table
        self.hidden_width = hidden_width
        self.usage_decay = usage_decay
        self.dropout = nn.Dropout(dropout)
        self.encoder = nn.GRU(input_width, hidden_width, batch_first=True)
        self.max_span_width = max_span_width
        self.width_embedding = nn.Embedding(max_span_width + 1, width_embedding)
        self.span_projection = nn.Sequential(nn.Linear(3 * hidden_width + width_embedding, hidden_width), nn.Tanh())
        self.pronoun_embedding = nn.Embedding(N_PRONOUN_CLASSES, feature_width)
        candidate_width = hidden_width + feature_width + 2
        self.mention_mlp = nn.Sequential(nn.Linear(candidate_width, mlp_width), nn.ReLU(), nn.Linear(mlp_width, 1))
        self.new_entity_mlp = nn.Sequential(nn.Linear(candidate_width, mlp_width), nn.ReLU(), nn.Linear(mlp_width, 1))
        self.pair_embeddings = nn.ModuleList(nn.Embedding(size, feature_width) for size in self.feature_sizes)
        self.similarity_mlp = SplitInputMLP(
            hidden_width, [hidden_width, hidden_width, feature_width * len(self.feature_sizes)], mlp_width, 1)
        self.update_gate = nn.Linear(2 * hidden_width, 1)
        # decision offsets at inference (log space): set by the pipeline component
        self.ignore_bias = 0.0
        self.new_entity_bias = 0.0
        # pair features held at category 0 ("not applicable"), for ablations (benchmarks/feature_ablation.py)
        self.disabled_pair_features: Tuple[int, ...] = ()
        # at inference: a pronoun never joins a cell whose gender (index 2) / number (3) differs from its own
        # (the decision only: the probabilities in the memory log stay the model's)
        self.agreement_constraints: Tuple[int, ...] = ()
        # at inference: a name or nominal with a gender cue (title, kinship word, given name) never joins a
        # cell of the other gender
        self.name_agreement = False
        # at inference: a masculine / feminine pronoun never joins a cell of things (``CellState.thing_only``)
        self.animacy_agreement = False
        # at inference: a third-person pronoun never joins a cell whose nominal mentions all have the other
        # number while no pronoun has joined it (``CellState.number_clash``)
        self.noun_number_agreement = False
        # at inference: a common noun phrase with a plural head never joins a cell that only singular mentions
        # have joined (``CellState.plural_clash``)
        self.plural_noun_agreement = False
        # at inference: a titled name ("Miss Bingley") never joins a cell whose mentions have name words, none
        # of them its own (``CellState.name_clash``)
        self.titled_name_agreement = False
        # at inference: an object pronoun never joins the cell of its clause's subject (``CellState.bound``)
        self.binding_agreement = False
        # at inference: a candidate never joins a cell holding a noun phrase the parse rules out (binding
        # principles B and C, i-within-i: ``CellState.syntax_clash``), and a reflexive joins the cell of its
        # binder where it may (principle A: ``CellState.binder_cell``)
        self.syntactic_binding = False
        # at inference: a singular personal pronoun never joins a cell holding another person in the same
        # speaker's turn (``CellState.person_clash``)
        self.person_agreement = False
        # at inference: a "they" with no plural entity and exactly one person mentioned in the last
        # SINGULAR_THEY_WINDOW tokens may join that person's cell if it is a nominal of no gender ("A pilot
        # called. They wanted …": number agreement is not applied to that pair; ``CellState.single_person``)
        self.singular_they = False
        # at inference: a name whose name words all belong to one cell's mentions, if it is a mention, joins
        # that cell (``CellState.name_holder``): no new entity, no other cell
        self.name_continuity = False
        # at inference: an unquoted I / me / my joins the most recently used cell that holds one (in
        # first-person narration outside quotations they are all the narrator)
        self.narrator_continuity = False
        # at inference: a quoted I / me / my joins its quotation's attributed speaker ("…," said Harry): the
        # speaker's cell if read already, else the one cell holding the speaker's name (``leader_cells``)
        self.speaker_continuity = False
        # at inference: a name in apposition with the nominal right before it ("her sister Jane") joins the
        # entity that nominal joined or began (``leader_cells``)
        self.apposition_continuity = False
        # at inference, for k-best lists: (B, M) action indices to take instead of the best (-1: the best),
        # and whether to return every step's decision scores (``MemoryOutput.decision_scores``)
        self.forced_actions: Optional[numpy.ndarray] = None
        self.record_decision_scores = False
        # at inference: candidates that IGNORE would beat even if a cell scored ``pruning_bound`` are left
        # out of the loop (None: every candidate is read; see ``pruned_candidates``)
        self.pruning_bound: Optional[float] = None
        # at inference: how many readings of each document beam search keeps (1: greedy; see ``beam``)
        self.beam_width = 1
        # at inference: the memory each document of the next call starts from (None: empty; see ``carry``); the
        # output then holds each document's memory at its end (``MemoryOutput.final_states``)
        self.carried: Optional[List[Optional[CarriedMemory]]] = None
        # at inference, for whole books: how many evicted entities (that hold a name) each document's archive
        # keeps for a returning name (0: none, ``archive``); how many of the most mentioned cells are kept from
        # eviction (``CellState.least_used``); a titled name never joins a cell of a clashing title
        # (``CellState.title_clash``); names read only off mentions that a name heads; a name that several
        # cells hold goes to the most mentioned of them
        self.archive_size = 0
        self.protected_cells = 0
        # at inference: weights of a learnt eviction policy over ``EVICTION_FEATURES`` (None: least used), and a
        # list that, when set, receives (document, step, cell features, cell entities) at every eviction
        self.eviction_weights: Optional[numpy.ndarray] = None
        self.eviction_log: Optional[list] = None
        self.title_agreement = False
        self.names_from_name_heads = False
        self.name_ties_to_most_mentioned = False

    @property
    def device(self) -> torch.device:
        return self.update_gate.weight.device

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """As torch's; a memory with ``parse_features`` also loads the weights of one without them, the parse
        features' first-layer columns set to zero (``with_new_features``): it then scores as that one did
        until training moves them."""
        return super().load_state_dict(with_new_features(state_dict, super().state_dict()), strict=strict,
                                       assign=assign)

    def _tensor(self, array: numpy.ndarray) -> torch.Tensor:
        """A numpy array as a tensor on the module's device (CPU arrays drive the loop's bookkeeping)."""
        return torch.from_numpy(array).to(self.device)

    represent_spans = SpanPetraMemory.represent_spans
    _represent_chunk = SpanPetraMemory._represent_chunk

    def forward(self, X: torch.Tensor, lengths: torch.Tensor, spans: torch.Tensor, n_spans: torch.Tensor,
                attributes: torch.Tensor, clusters: Optional[torch.Tensor] = None,
                partial: Optional[torch.Tensor] = None) -> MemoryOutput:
        """X (B, T, D) token vectors; spans (B, M, 2) candidates in step order (rows ≥ n_spans are
        padding); attributes (B, M, len(ATTRIBUTE_FIELDS)); clusters (B, M) the gold cluster of each candidate (-1: not a
        mention, or UNKNOWN / SOME_OTHER_ENTITY in partially annotated documents) for teacher forcing, None at
        inference; partial (B,) which documents are partially annotated (GAP)."""
        B, M = spans.shape[:2]
        if X.shape[1] == 0 or M == 0:
            return self._empty(X, n_spans)
        # inputs come as CPU tensors; the loop's bookkeeping stays in numpy on the CPU
        X, lengths, spans, attributes = (t.to(self.device) for t in (X, lengths, spans, attributes))
        h = self.dropout(encode_left_to_right(self.encoder, self.dropout(X), lengths))
        g = self.dropout(self.represent_spans(h, spans))
        attrs = attributes.cpu().numpy()
        candidate = torch.cat([g, self.pronoun_embedding(attributes[..., PRONOUN]),
                               attributes[..., [QUOTED, PROPER]].to(g.dtype)], dim=-1)
        mention_score = self.mention_mlp(candidate).squeeze(-1)
        new_score = self.new_entity_mlp(candidate).squeeze(-1)
        sim_token = self.similarity_mlp.project_tokens(g)
        del h, candidate  # not needed by the loop: at inference their memory is freed before it (~1.2 GB at 1M tokens)
        spans_np, n_spans = spans.cpu().numpy(), n_spans.cpu()
        pruned = self.pruned_candidates(mention_score, new_score, n_spans, attrs) if clusters is None else None
        if pruned is not None:
            return self._read_unpruned(pruned, g, sim_token, mention_score, new_score, spans_np, attrs, n_spans)
        return self.read_memory(g, sim_token, mention_score, new_score, spans_np, attrs, n_spans,
                                None if clusters is None else clusters.cpu().numpy(),
                                None if partial is None else partial.cpu().numpy().astype(bool))

    def pruned_candidates(self, mention_score: torch.Tensor, new_score: torch.Tensor, n_spans: torch.Tensor,
                          attrs: numpy.ndarray) -> Optional[numpy.ndarray]:
        """(B, M) the candidates the greedy loop may skip, or None when nothing is pruned: IGNORE beats
        OVERWRITE and would beat COREF with any cell scoring at most ``pruning_bound`` (an IGNORE step
        changes no cell, so every other step decides as if the pruned ones were read). Off in training and
        for k-best lists (forced actions, recorded scores). With ``narrator_continuity`` an unquoted I / me /
        my and a letter's signature are always read (the rule may join them whatever their scores)."""
        if self.pruning_bound is None or self.training or self.forced_actions is not None \
                or self.record_decision_scores:
            return None
        best = mention_score + torch.clamp(new_score + self.new_entity_bias, min=self.pruning_bound)
        pruned = ((best < self.ignore_bias) & token_mask(n_spans, best.shape[1]).to(best.device)).cpu().numpy()
        if self.narrator_continuity:
            pruned &= ~narrator_voiced(attrs)
        if self.speaker_continuity:
            pruned &= ~speaker_followers(attrs)
        if self.apposition_continuity:
            pruned &= ~apposed_names(attrs)
        return pruned

    def _read_unpruned(self, pruned: numpy.ndarray, g, sim_token, mention_score, new_score, spans, attrs,
                       n_spans) -> MemoryOutput:
        """The greedy loop over the candidates that are not ``pruned``; the output has a step for every
        candidate again, the pruned ones IGNORE with probability 0 of being a mention (``MemoryOutput.pruned``)."""
        source = loop_steps(pruned, n_spans)
        n_kept = (source >= 0).sum(axis=1)
        order = numpy.zeros((len(source), max(int(n_kept.max()), 1)), dtype="int64")  # padded with step 0
        rows, steps = numpy.nonzero(source >= 0)
        order[rows, source[rows, steps]] = steps  # the candidate each step of the shorter loop reads
        order_t = self._tensor(order)
        out = self.read_memory(rows_at(g, order_t), rows_at(sim_token, order_t), mention_score.gather(1, order_t),
                               new_score.gather(1, order_t), numpy.take_along_axis(spans, order[..., None], 1),
                               numpy.take_along_axis(attrs, order[..., None], 1), torch.from_numpy(n_kept), None)
        return expand_steps(out, source, pruned, n_spans)

    def read_memory(self, g, sim_token, mention_score, new_score, spans, attrs, n_spans, clusters,
                    partial=None) -> MemoryOutput:
        carried = None if clusters is not None or self.training else self.carried
        if clusters is None and self.beam_width > 1 and self.forced_actions is None \
                and not self.record_decision_scores and not self.training:
            if carried is not None:
                raise ValueError("[spacy-entmem] a memory carried from text to text reads greedily: set "
                                 "beam_width = 1 to read a stream")
            from .beam import read_memory_beam

            return read_memory_beam(self, g, sim_token, mention_score, new_score, spans, attrs, n_spans,
                                    self.beam_width)
        B, M, H = g.shape
        N = self.n_cells
        active_mask = token_mask(n_spans, M)
        active = active_mask.numpy()
        state = CellState(B, N)
        if not self.training:
            self.configure_book_settings(state)
        cell_cluster = numpy.full((B, N), NO_CLUSTER, dtype="int64")
        memory = g.new_zeros(B, N, H)
        # each cell's share of the similarity MLP's first layer, kept up to date with the cell (the cell
        # changes only when acted on; scoring it against every later mention reuses the product)
        memory_part = g.new_zeros(B, N, self.similarity_mlp.token_proj.out_features)
        if carried is not None:
            memory, memory_part = self._start_from(carried, state, memory)
        rows = numpy.arange(B)
        g_steps, sim_steps = g.unbind(1), sim_token.unbind(1)
        # the logits of IGNORE (0) and OVERWRITE, and each step's mention score for the COREF columns
        fixed_steps = torch.stack([torch.zeros_like(mention_score), mention_score + new_score], dim=-1).unbind(1)
        mention_steps = mention_score[..., None].unbind(1)
        feature_table = self.projected_feature_table()
        log_probs, actions, cells, usages, gold_steps, decision_scores, entities = [], [], [], [], [], [], []
        partial = numpy.zeros(B, dtype=bool) if partial is None else partial
        n_supervised = 0
        leaders = self.leader_steps(spans, attrs) if clusters is None else None
        followers = follower_steps(leaders)
        # the entity each step's candidate joined or began (-1: ignored), for the speaker and apposition rules
        step_entity = numpy.full((B, M), -1) if leaders is not None else None
        for t in range(M):
            coref, disagree = self._cell_scores(g_steps[t], sim_steps[t], memory, memory_part, state,
                                                attrs[:, t], spans[:, t, 0], active[:, t], feature_table)
            logits = torch.cat([fixed_steps[t], mention_steps[t] + coref], dim=-1)
            log_p = torch.log_softmax(logits, dim=-1)
            if clusters is not None:  # teacher forcing: the best of the actions the gold allows
                allowed, supervised = allowed_actions(state, clusters[:, t], cell_cluster, partial)
                mask = self._tensor(allowed)
                decision = choose(log_p.detach().masked_fill(~mask, -float("inf")).cpu().numpy(), state)
                gold = torch.logsumexp(log_p.masked_fill(~mask, -float("inf")), dim=-1)
                counted = supervised & active[:, t]
                gold_steps.append(gold * self._tensor(counted).to(gold.dtype))
                n_supervised += int(counted.sum())
            else:
                forced = self.forced_actions[:, t] if self.forced_actions is not None else None
                if self.narrator_continuity:  # the rule yields to a k-best list's forced actions
                    narrator = state.narrator_cell(attrs[:, t], active[:, t])
                    if (narrator >= 0).any():
                        forced = join_where_free(forced, narrator)
                if leaders is not None and self.follows_at(leaders, followers, t):
                    forced = join_where_free(forced, self.leader_cells(
                        state, leaders[:, t], t, step_entity, attrs, spans, disagree,
                        follower_t=None if followers is None else followers[:, t]))
                state.step_starts = spans[:, t, 0]
                holder = self.name_holders(state, attrs[:, t], spans[:, t, 0], active[:, t], disagree)
                holder = self.binder_holders(state, attrs[:, t], active[:, t], disagree, holder)
                holder = self.singular_they_holders(state, attrs[:, t], spans[:, t, 0], active[:, t], disagree,
                                                    holder)
                holder = self.plural_they_holders(state, attrs[:, t], spans[:, t, 0], active[:, t], disagree,
                                                  holder, log_p)
                decision = self._greedy(log_p.detach(), state, disagree, forced, holder)
                if self.eviction_log is not None:
                    self.log_evictions(state, decision, active[:, t], t)
                if self.archive_size:
                    memory, memory_part = self.archive_and_restore(state, decision, memory, memory_part, attrs[:, t],
                                                                   active[:, t])
                if self.record_decision_scores:
                    decision_scores.append(decision.scores)
            log_probs.append(log_p)
            actions.append(decision.action)
            cells.append(numpy.where(decision.action == IGNORE, -1, decision.cell))
            memory, memory_part = self._update(memory, memory_part, g_steps[t], decision, active[:, t])
            if clusters is not None:  # which annotated cluster each cell now holds (-1: none)
                code = clusters[:, t]
                acted = active[:, t] & (decision.action != IGNORE)
                known = acted & (code >= 0)
                cell_cluster[rows[known], decision.cell[known]] = code[known]
                fresh = acted & (code < 0) & (decision.action == OVERWRITE)
                cell_cluster[rows[fresh], decision.cell[fresh]] = NO_CLUSTER
            state.apply(decision.action, decision.cell, attrs[:, t], spans[:, t, 1], self.usage_decay, active[:, t])
            entities.append(numpy.where(active[:, t], entity_of_step(state, decision), -1))
            if leaders is not None:
                step_entity[:, t] = entities[-1]
            usages.append(state.usage.copy())
        out = self._output(torch.stack(log_probs, dim=1), numpy.stack(actions, 1), numpy.stack(cells, 1),
                           self._tensor(numpy.stack(usages, 1)).to(g.dtype), n_spans, active_mask,
                           torch.stack(gold_steps, dim=1) if gold_steps else None, n_supervised)
        out.decision_scores = numpy.stack(decision_scores, 1) if decision_scores else None
        out.entities = numpy.stack(entities, 1)
        if carried is not None:
            out.final_states = [export_row(state, memory[b].detach().cpu().numpy(), b) for b in range(B)]
        return out

    def configure_book_settings(self, state: CellState) -> None:
        """Give a fresh ``CellState`` this memory's book-length settings (an archive per document if
        ``archive_size`` > 0)."""
        state.protected_cells = self.protected_cells
        state.names_from_name_heads = self.names_from_name_heads
        state.name_ties_to_most_mentioned = self.name_ties_to_most_mentioned
        state.eviction_weights = self.eviction_weights
        if self.archive_size:
            state.archives = [EntityArchive(self.archive_size) for _ in state.archives]

    def log_evictions(self, state: CellState, decision: Decision, active_t: numpy.ndarray, t: int) -> None:
        """Append (document, step, cell features, cell entities) to ``eviction_log`` for each document whose
        new entity evicts one (all cells in use): what ``training.eviction`` learns from."""
        evicting = active_t & (decision.action == OVERWRITE) & state.used.all(axis=1)
        if evicting.any():
            features = state.eviction_features()
            for b in numpy.flatnonzero(evicting).tolist():
                self.eviction_log.append((b, t, features[b].copy(), state.entity[b].copy()))

    def archive_and_restore(self, state: CellState, decision: Decision, memory: torch.Tensor,
                            memory_part: torch.Tensor, attrs_t: numpy.ndarray,
                            active_t: numpy.ndarray) -> Tuple[torch.Tensor, torch.Tensor]:
        """Before a step's decision is applied: each entity a new one evicts goes to its document's archive; a
        name that would begin a new entity (or join a cell whose names lack its own) and whose name words an
        archived entity holds (``archived_match``) brings that entity back into the cell the new one would
        take, and joins it: ``decision`` becomes COREF there (in place), and the cell its vector."""
        acting = active_t & (decision.action != IGNORE)
        if not acting.any():
            return memory, memory_part
        names = attrs_t[:, NAME_WORDS]
        rows = numpy.arange(len(acting))
        evicting = acting & (decision.action == OVERWRITE) & (state.entity[rows, decision.cell] >= 0)
        asking = acting & is_name(attrs_t)  # (only a name looks its entity up)
        restored_rows, vectors = [], []
        cell_vectors = None  # (the memory as a numpy array, made once a step if an entity is archived)
        for b in numpy.flatnonzero(evicting | asking).tolist():
            archive = state.archives[b]
            if archive is None:
                continue
            words = {word for word in names[b].tolist() if word >= 0} if asking[b] else set()
            cell = int(decision.cell[b])
            if decision.action[b] == COREF and not (words and state.names[b][cell] and not words <= state.names[b][cell]):
                continue  # (a join: only one into a cell that holds other names asks the archive)
            match = archive.lookup(words, lambda archived: archived_match(archived, attrs_t[b])) if words else None
            if decision.action[b] == COREF:
                if match is None:
                    continue
                cell = int(state.least_used()[b])
            if state.entity[b, cell] >= 0 and state.names[b][cell]:  # (the archive keeps only named entities)
                if cell_vectors is None:
                    cell_vectors = memory.detach().cpu().numpy()
                archive.store(archive_cell(state, b, cell, cell_vectors[b, cell]))
            if match is not None:
                restore_cell(state, b, cell, archive.take(match.entity))
                decision.action[b], decision.cell[b] = COREF, cell
                restored_rows.append((b, cell))
                vectors.append(match.vector)
        if not restored_rows:
            return memory, memory_part
        rows_cells = tuple(self._tensor(numpy.array(index)) for index in zip(*restored_rows))
        restored = torch.from_numpy(numpy.stack(vectors)).to(memory)
        memory = put(memory, rows_cells, restored)
        return memory, put(memory_part, rows_cells, self.similarity_mlp.memory_projs[0](restored))

    def _start_from(self, carried: List[Optional[CarriedMemory]], state: CellState,
                    memory: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """The documents' memories set to the ``carried`` ones (None: left empty): their ``CellState`` rows, cell
        vectors, and those vectors' share of the similarity MLP's first layer."""
        if len(carried) != len(memory):
            raise ValueError(f"[spacy-entmem] {len(carried)} carried memories for a batch of {len(memory)} documents")
        for b, start in enumerate(carried):
            if start is None:
                continue
            if start.vectors.shape != tuple(memory.shape[1:]):
                raise ValueError(f"[spacy-entmem] the memory state holds {start.vectors.shape[0]} cells of width "
                                 f"{start.vectors.shape[1]}; this memory has {memory.shape[1]} of width "
                                 f"{memory.shape[2]}: it was written by another model")
            import_row(state, b, start)
            memory[b] = torch.from_numpy(start.vectors).to(memory)  # a fresh tensor of this call: set in place
        return memory, self.similarity_mlp.memory_projs[0](memory)

    def _greedy(self, log_p: torch.Tensor, state: CellState, disagree: Optional[numpy.ndarray] = None,
                forced: Optional[numpy.ndarray] = None, holder: Optional[numpy.ndarray] = None) -> Decision:
        """The argmax action after the inference offsets (ties go to the lowest index), or the ``forced``
        action index (B,) where it is ≥ 0. Cells in ``disagree`` (B, N) cannot be joined: their scores are
        −inf; a candidate with a ``holder`` cell (B,) ≥ 0 that is a mention joins it (``decision_scores``); the
        decision changes, the logged probabilities do not."""
        return choose(self.decision_scores(log_p, disagree, holder=holder), state, forced)

    @staticmethod
    def follows_at(leaders: numpy.ndarray, followers: Optional[numpy.ndarray], t: int) -> bool:
        """Whether a candidate at step ``t`` has a leader or an earlier follower (``follower_steps``)."""
        return bool((leaders[:, t] >= 0).any() or (followers is not None and (followers[:, t] >= 0).any()))

    def leader_cells(self, state: CellState, leader_t: numpy.ndarray, t: int, step_entity: numpy.ndarray,
                     attrs: numpy.ndarray, spans: numpy.ndarray, disagree: Optional[numpy.ndarray],
                     docs: Optional[numpy.ndarray] = None,
                     follower_t: Optional[numpy.ndarray] = None) -> numpy.ndarray:
        """(R,) the cell the candidate at step ``t`` joins by following its leader's step ``leader_t`` (R,)
        (``leader_steps``: a quoted I's speaker, an apposed name's nominal), else -1, for R readings (the
        documents' own, or a beam's: ``docs`` (R,) the document of each reading, whose rows of ``attrs`` /
        ``spans`` it reads; ``step_entity`` (R, M) is the readings' own). A leader read before: the cell that
        still holds the entity that candidate joined (-1 if it was ignored or its entity evicted); read later
        ("…," said Harry): the one cell that holds the speaker's name (``CellState.name_holder``), a new entity
        (``NEW_ENTITY_CELL``) for a new name, none for a pronoun. A candidate with a follower (``follower_t``
        (R,), the step of an earlier I whose speaker it is) and no leader's cell joins the cell that holds the
        entity that I began, if it began one. Cells in ``disagree`` are never joined."""
        readings = numpy.arange(len(leader_t))
        docs = readings if docs is None else docs
        steps = numpy.clip(leader_t, 0, None)
        entity = numpy.where((leader_t >= 0) & (leader_t < t), step_entity[readings, steps], -1)
        holds = (state.entity == entity[:, None]) & (entity[:, None] >= 0)
        cells = numpy.where(holds.any(axis=1), holds.argmax(axis=1), -1)
        later = leader_t > t
        if later.any():
            named = state.name_holder(attrs[docs, steps], spans[docs, steps, 0], later)
            cells = numpy.where(later, named, cells)
            if switches.active().later_leaders:  # a new name speaks: its I begins the entity the name then joins
                cells = numpy.where(later & (named < 0) & state.unseen_name(attrs[docs, steps]), NEW_ENTITY_CELL,
                                    cells)
        if follower_t is not None and (follower_t >= 0).any():
            steps = numpy.clip(follower_t, 0, None)
            first = step_entity[readings, steps]
            # only an entity the I began (an I that joined an earlier cell may have joined the wrong one)
            before = numpy.arange(step_entity.shape[1]) < steps[:, None]
            began = ~((step_entity == first[:, None]) & before).any(axis=1)
            entity = numpy.where((follower_t >= 0) & began, first, -1)
            holds = (state.entity == entity[:, None]) & (entity[:, None] >= 0)
            cells = numpy.where(cells >= 0, cells, numpy.where(holds.any(axis=1), holds.argmax(axis=1), -1))
        return joinable(cells, disagree)

    def leader_steps(self, spans: numpy.ndarray, attrs: numpy.ndarray) -> Optional[numpy.ndarray]:
        """(B, M) the step of the candidate each candidate follows: with ``speaker_continuity`` a quoted I's
        speaker (``speaker_steps``), with ``apposition_continuity`` an apposed name's nominal; -1 elsewhere.
        None where no candidate has one (no bookkeeping at every step then)."""
        steps = numpy.full(spans.shape[:2], -1)
        if self.speaker_continuity:
            steps = speaker_steps(spans, attrs)
        if self.apposition_continuity:
            apposed = span_steps(spans, attrs, apposed_names(attrs), APPOSED)
            steps = numpy.where(apposed >= 0, apposed, steps)
        return steps if (steps >= 0).any() else None

    def name_holders(self, state: CellState, attrs_t: numpy.ndarray, starts_t: numpy.ndarray,
                     active_t: numpy.ndarray, disagree: Optional[numpy.ndarray]) -> Optional[numpy.ndarray]:
        """With ``name_continuity``, (B,) the cell each candidate's name belongs to (``CellState.name_holder``)
        where that cell may be joined, else -1; None without it."""
        if not self.name_continuity or self.training:
            return None
        return joinable(state.name_holder(attrs_t, starts_t, active_t), disagree)

    def binder_holders(self, state: CellState, attrs_t: numpy.ndarray, active_t: numpy.ndarray,
                       disagree: Optional[numpy.ndarray], holder: Optional[numpy.ndarray]) -> Optional[numpy.ndarray]:
        """With ``syntactic_binding``, ``holder`` (B,) (or -1s) with each reflexive's binder cell where it may
        be joined (``CellState.binder_cell``); ``holder`` unchanged without it."""
        if not self.syntactic_binding or self.training or not (attrs_t[:, BINDER] >= 0).any():
            return holder
        binder = joinable(state.binder_cell(attrs_t, active_t), disagree)
        return binder if holder is None else numpy.where(binder >= 0, binder, holder)

    def singular_they_holders(self, state: CellState, attrs_t: numpy.ndarray, starts_t: numpy.ndarray,
                              active_t: numpy.ndarray, disagree: Optional[numpy.ndarray],
                              holder: Optional[numpy.ndarray]) -> Optional[numpy.ndarray]:
        """With ``singular_they`` (and the ``they_joins`` switch), ``holder`` (B,) (or -1s) with, for each "they"
        that has exactly one cell of one person it may join (``singular_they_pairs``), that cell where it may be
        joined; ``holder`` unchanged elsewhere, and where it already names a cell."""
        if not (self.singular_they and switches.active().they_joins) or self.training \
                or not (attrs_t[active_t, PRONOUN] == THEY).any():
            return holder
        rows, cells = numpy.nonzero(state.used & active_t[:, None])
        allowed = self.singular_they_pairs(state, attrs_t, starts_t, rows, cells)
        one = numpy.bincount(rows[allowed], minlength=len(active_t)) == 1
        found = numpy.full(len(active_t), -1)
        found[rows[allowed]] = cells[allowed]
        found = joinable(numpy.where(one, found, -1), disagree)
        return found if holder is None else numpy.where(holder >= 0, holder, found)

    def plural_they_holders(self, state: CellState, attrs_t: numpy.ndarray, starts_t: numpy.ndarray,
                            active_t: numpy.ndarray, disagree: Optional[numpy.ndarray],
                            holder: Optional[numpy.ndarray], log_p: torch.Tensor) -> Optional[numpy.ndarray]:
        """With the ``plural_they`` switch (at inference), ``holder`` (B,) (or -1s) with, for each "they" whose best
        action but IGNORE is a new entity, the best-scoring cell it may join that holds people of plural number (a
        plural noun for people or a plural pronoun joined it, and a noun for people: "the volunteers") and was last
        mentioned within ``PLURAL_THEY_WINDOW`` tokens; ``holder`` unchanged elsewhere, and where it already names a
        cell."""
        asks = active_t & (attrs_t[:, PRONOUN] == THEY)
        if not switches.active().plural_they or self.training or not asks.any():
            return holder
        scores = self.decision_scores(log_p, disagree)
        asks &= scores[:, 1:].argmax(axis=1) == 0  # the model's best mention action: a new entity
        if holder is not None:
            asks &= holder < 0
        if not asks.any():
            return holder
        people = state.plural() & state.person_noun
        near = people & state.recently_mentioned(starts_t, PLURAL_THEY_WINDOW) & asks[:, None]
        coref = numpy.where(near, scores[:, 2:], -numpy.inf)
        found = numpy.where(numpy.isfinite(coref.max(axis=1)), coref.argmax(axis=1), -1)
        return found if holder is None else numpy.where(holder >= 0, holder, found)

    def decision_scores(self, log_p: torch.Tensor, disagree: Optional[numpy.ndarray] = None,
                        dtype: Optional[str] = None, holder: Optional[numpy.ndarray] = None) -> numpy.ndarray:
        """(B, N + 2) what the decision maximises: log p plus the inference offsets on IGNORE and OVERWRITE,
        −inf on the cells in ``disagree`` (B, N); where ``holder`` (B,) names a cell, that cell takes the best
        score of any action but IGNORE and those actions −inf (a mention joins it; IGNORE is decided as
        before). A new array, of ``dtype`` if given (else log p's)."""
        scores = numpy.array(log_p.detach().cpu().numpy(), dtype=dtype, copy=True)
        scores[:, IGNORE] += scores.dtype.type(self.ignore_bias)
        scores[:, OVERWRITE] += scores.dtype.type(self.new_entity_bias)
        if disagree is not None:
            scores[:, 2:][disagree] = -numpy.inf
        if holder is not None:
            rows = numpy.flatnonzero(holder >= 0)
            if len(rows):
                best = scores[rows, 1:].max(axis=1)
                scores[rows, 1:] = -numpy.inf
                scores[rows, 2 + holder[rows]] = best
        return scores

    def projected_feature_table(self) -> torch.Tensor:
        """(Σ sizes, mlp_width): each feature category's embedding times its block of the similarity MLP's
        first layer, so that block's product with the concatenated embeddings is a sum of table rows."""
        weight = self.similarity_mlp.memory_projs[2].weight  # (mlp_width, features × feature_width)
        width = self.pair_embeddings[0].embedding_dim
        return torch.cat([emb.weight @ weight[:, k * width:(k + 1) * width].T
                          for k, emb in enumerate(self.pair_embeddings)], dim=0)

    def _cell_scores(self, g_t: torch.Tensor, sim_t: torch.Tensor, memory: torch.Tensor, memory_part: torch.Tensor,
                     state: CellState, attrs_t: numpy.ndarray, starts_t: numpy.ndarray, active_t: numpy.ndarray,
                     feature_table: torch.Tensor) -> Tuple[torch.Tensor, Optional[numpy.ndarray]]:
        """(B, N) COREF scores of one step: the similarity MLP on the used cells of the documents still
        reading (the others keep UNUSED_CELL_SCORE; they are masked anyway, so skipping them is exact); and,
        with ``agreement_constraints``, (B, N) the cells a pronoun candidate disagrees with (else None)."""
        B, N = state.entity.shape
        scores = memory.new_full((B, N), UNUSED_CELL_SCORE)
        rows, cells = numpy.nonzero(state.used & active_t[:, None])
        if not len(rows):
            return scores, None
        features = state.pair_features(attrs_t, starts_t, rows, cells)
        known_clashes = {}  # clashes computed for the features already, reused by the decision rules below
        if self.parse_features:
            known_clashes["syntax_clash"] = state.syntax_clash(attrs_t, rows, cells)
            parse = state.parse_pair_features(attrs_t, rows, cells, known_clashes["syntax_clash"])
            features = numpy.concatenate([features, parse], axis=1)
        if self.disabled_pair_features:
            features[:, list(self.disabled_pair_features)] = 0
        rows_t, pairs_t = self._tensor(rows), self._tensor(rows * N + cells)  # pairs: rows of the (B·N) cells
        # the features' share of the MLP's first layer: one lookup-and-sum in the projected table
        feature_part = F.embedding_bag(self._tensor(features + self.feature_offsets), feature_table, mode="sum")
        cell_memory = memory.reshape(B * N, -1).index_select(0, pairs_t)  # index_select: ~10x cheaper than [rows, cells]
        mlp = self.similarity_mlp  # its first layer on [g; m; g⊙m; φ], the m block precomputed per cell
        pre = (sim_t.index_select(0, rows_t) + feature_part + memory_part.reshape(B * N, -1).index_select(0, pairs_t)
               + mlp.memory_projs[1](g_t.index_select(0, rows_t) * cell_memory))
        raw = mlp.rest(pre).squeeze(-1)
        disagree = None
        clashes = [(clash, getattr(state, clash)) for rule, clash in CELL_CLASH_RULES if getattr(self, rule)]
        if (self.agreement_constraints or self.name_agreement or self.animacy_agreement or clashes) \
                and not self.training:
            disagree = numpy.zeros((B, N), dtype=bool)
            pronoun = attrs_t[rows, PRONOUN] > 0
            singular = self.singular_they_pairs(state, attrs_t, starts_t, rows, cells)
            if self.agreement_constraints:
                constraints = [k for k in self.agreement_constraints if k != NUMBER_AGREEMENT]
                number = NUMBER_AGREEMENT in self.agreement_constraints
                disagree[rows, cells] = pronoun & (
                    (features[:, constraints] == 2).any(axis=1)
                    | (number & (features[:, NUMBER_AGREEMENT] == 2) & ~singular))
            if self.name_agreement:
                disagree[rows, cells] |= (features[:, GENDER_AGREEMENT] == 2) & ~pronoun
            if self.animacy_agreement:
                personal = pronoun & IS_PERSONAL_GENDER[attrs_t[rows, GENDER]]
                disagree[rows, cells] |= personal & state.thing_only()[rows, cells]
                disagree[rows, cells] |= pronoun & state.time_only()[rows, cells]
                timed = attrs_t[rows, INANIMATE] == TIME_EXPRESSION
                if switches.active().times_are_nobody and timed.any():  # and a time expression never joins a person
                    disagree[rows, cells] |= timed & state.holds_person()[rows, cells]
            for name, clash in clashes:
                found = known_clashes[name] if name in known_clashes else clash(attrs_t, rows, cells)
                disagree[rows, cells] |= found & ~singular if name in NUMBER_RULES else found
        return scores.reshape(-1).index_put((pairs_t,), raw).view(B, N), disagree

    def singular_they_pairs(self, state: CellState, attrs_t: numpy.ndarray, starts_t: numpy.ndarray,
                            rows: numpy.ndarray, cells: numpy.ndarray) -> numpy.ndarray:
        """(P,) with ``singular_they``, the (candidate, cell) pairs where a "they" far from any plural entity
        meets a cell of one person (``CellState.single_person``) and either that person is the only one near ("A
        pilot called this morning. They wanted …") or the "they" is the subject of a clause that person reports
        ("The gardener said that they would come", ``REPORTER``): number agreement does not apply to them; all
        false without the rule."""
        they = attrs_t[:, PRONOUN] == THEY
        if not self.singular_they or not they[rows].any():  # most steps: no "they" to read the cells for
            return numpy.zeros(len(rows), dtype=bool)
        single = state.single_person()
        they = they & ~state.plural_near(starts_t)
        if switches.active().they_among_all_people:
            alone = state.people_near(starts_t) == 1
        else:
            alone = (single & state.recently_mentioned(starts_t)).sum(axis=1) == 1
        pairs = they[rows] & single[rows, cells]
        allowed = pairs & alone[rows]
        if switches.active().reported_they:
            for k in numpy.flatnonzero(pairs & ~allowed & (attrs_t[rows, REPORTER] >= 0)).tolist():
                allowed[k] = int(attrs_t[rows[k], REPORTER]) in state.roots[rows[k]][cells[k]]
        return allowed

    def _update(self, memory: torch.Tensor, memory_part: torch.Tensor, g_t: torch.Tensor, decision: Decision,
                active: numpy.ndarray) -> Tuple[torch.Tensor, torch.Tensor]:
        """OVERWRITE m_j ← g; COREF m_i ← β m_i + (1 − β) g, β = σ(w·[m_i; g]); only the cells acted on, and
        their share of the similarity MLP's first layer with them."""
        rows = numpy.flatnonzero(active & (decision.action != IGNORE))
        if not len(rows):
            return memory, memory_part
        B, N, H = memory.shape
        rows_t, pairs_t = self._tensor(rows), self._tensor(rows * N + decision.cell[rows])
        old, new = memory.reshape(B * N, H).index_select(0, pairs_t), g_t.index_select(0, rows_t)
        keep = torch.sigmoid(self.update_gate(torch.cat([old, new], dim=-1)))
        coref = self._tensor(decision.action[rows] == COREF)[:, None]
        updated = torch.where(coref, keep * old + (1 - keep) * new, new)
        part = self.similarity_mlp.memory_projs[0](updated)
        return (put(memory.reshape(B * N, H), (pairs_t,), updated).view(B, N, H),
                put(memory_part.reshape(B * N, -1), (pairs_t,), part).view(B, N, -1))

    def _output(self, log_p, actions, cells, usage, n_spans, active_mask, gold_logprob=None,
                n_supervised: int = 0) -> MemoryOutput:
        """The memory log's tensors: entity = 1 − p(IGNORE); overwrite = p(OVERWRITE) on the cell taken by
        a new entity at that step; coref = p(COREF i); plus the hard decisions and, in training, log p of
        the gold action at each step."""
        B, M, _ = log_p.shape
        N = self.n_cells
        probs = log_p.exp()
        mask = active_mask.to(device=probs.device, dtype=probs.dtype)
        cell_tensor = self._tensor(numpy.maximum(cells, 0))
        taken = F.one_hot(cell_tensor, N).to(probs.dtype) * self._tensor(actions == OVERWRITE)[..., None]
        out = MemoryOutput(
            entity=(1 - probs[..., IGNORE]) * mask,
            overwrite=probs[..., OVERWRITE, None] * taken * mask[..., None],
            coref=probs[..., 2:] * mask[..., None],
            usage=usage * mask[..., None],
            lengths=n_spans,
        )
        out.actions = torch.from_numpy(actions * active_mask.cpu().numpy())
        out.cells = torch.from_numpy(numpy.where(active_mask.cpu().numpy(), cells, -1))
        out.gold_logprob, out.supervised_steps = gold_logprob, n_supervised
        return out

    def _empty(self, X: torch.Tensor, n_spans: torch.Tensor) -> MemoryOutput:
        B, N = X.shape[0], self.n_cells
        empty = X.new_zeros(B, 0, N)
        out = MemoryOutput(X.new_zeros(B, 0), empty, empty.clone(), empty.clone(), n_spans)
        out.actions = torch.zeros(B, 0, dtype=torch.int64)
        out.cells = torch.zeros(B, 0, dtype=torch.int64)
        out.entities = numpy.zeros((B, 0), dtype="int64")
        if self.carried is not None and not self.training:  # nothing read: each memory stays as it was
            empty_memory = numpy.zeros((N, self.hidden_width), dtype="float32")
            out.final_states = [start if start is not None else export_row(CellState(1, N), empty_memory, 0)
                                for start in self.carried]
        return out


def with_new_features(checkpoint: Dict[str, torch.Tensor], own: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """``checkpoint`` completed with the pair-feature embeddings it lacks and ``own`` has (``own``'s values), the
    similarity MLP's first-layer columns of those features zero; ``checkpoint`` unchanged if it lacks nothing
    else (what it does lack then fails the load as usual)."""
    missing = [key for key in own if key not in checkpoint]
    if not missing or any(not key.startswith("pair_embeddings.") for key in missing) \
            or FEATURE_WEIGHT not in checkpoint:
        return checkpoint
    widened = zero_padded_columns(checkpoint[FEATURE_WEIGHT], own[FEATURE_WEIGHT])
    if widened is None:
        return checkpoint
    return {**checkpoint, **{key: own[key] for key in missing}, FEATURE_WEIGHT: widened}


def zero_padded_columns(weight: torch.Tensor, like: torch.Tensor) -> Optional[torch.Tensor]:
    """``weight`` in ``like``'s shape, its extra input columns (on the right) zero; None where ``weight`` has other
    rows or more columns. A layer whose input gained columns then computes what it did."""
    if weight.shape[0] != like.shape[0] or weight.shape[1] > like.shape[1]:
        return None
    padded = torch.zeros_like(like)
    padded[:, :weight.shape[1]] = weight
    return padded


def archive_cell(state: CellState, row: int, cell: int, vector: numpy.ndarray) -> ArchivedEntity:
    """What cell ``cell`` of document ``row`` knows of its entity, with its vector, as an ``ArchivedEntity``."""
    arrays = {name: getattr(state, name)[row, cell].item() for name in CELL_ARRAYS}
    sets = {name: set(getattr(state, name)[row][cell]) for name in CELL_SETS}
    return ArchivedEntity(int(state.entity[row, cell]), numpy.array(vector, dtype="float32"), arrays, sets)


def restore_cell(state: CellState, row: int, cell: int, archived: ArchivedEntity) -> None:
    """Put an archived entity back into cell ``cell`` of document ``row`` (its string index updated)."""
    index = state.cells_with[row]
    for key in state.strings[row][cell]:
        index[key].discard(cell)
    for name in CELL_ARRAYS:
        getattr(state, name)[row, cell] = archived.arrays[name]
    for name in CELL_SETS:
        getattr(state, name)[row][cell] = set(archived.sets[name])
    for key in state.strings[row][cell]:
        index.setdefault(key, set()).add(cell)
    state.derive_person_flags(row)


def archived_match(archived: ArchivedEntity, attrs: numpy.ndarray) -> bool:
    """Whether a name with attributes ``attrs`` (A,) may be an archived entity that holds its name words: no
    masculine / feminine clash, no clash of titles (``CellState.title_clash``) nor of "of" complements
    (``complements_clash``, with the ``of_names_apart`` switch)."""
    gender, held = int(attrs[GENDER]), int(archived.arrays["gender"])
    if IS_PERSONAL_GENDER[gender] and IS_PERSONAL_GENDER[held] and gender != held:
        return False
    # (the archived strings are read only for a name that has a complement)
    if switches.active().of_names_apart and (attrs[OF_WORDS] >= 0).any() \
            and complements_clash(attrs, archived.sets["strings"]):
        return False
    return not titles_clash(attrs, archived.sets["titles"], archived.names)


def loop_steps(pruned: numpy.ndarray, n_spans: torch.Tensor) -> numpy.ndarray:
    """(B, M) each candidate's step in the loop over the candidates that are not ``pruned`` (-1: pruned or
    padding)."""
    read = ~pruned & token_mask(n_spans, pruned.shape[1]).numpy()
    return numpy.where(read, numpy.cumsum(read, axis=1) - 1, -1)


def expand_steps(out: MemoryOutput, source: numpy.ndarray, pruned: numpy.ndarray,
                 n_spans: torch.Tensor) -> MemoryOutput:
    """``out`` of the loop over the unpruned candidates (``source``: each candidate's step in it, see
    ``loop_steps``), spread back over all (B, M) candidate steps: a pruned step is IGNORE (cell -1) with
    entity, overwrite and coref 0, and the usage the memory had after the last step read before it."""
    B, M = pruned.shape
    last_read = numpy.maximum.accumulate(source, axis=1)  # the last step read at or before each step

    def spread(values: torch.Tensor, index: numpy.ndarray) -> torch.Tensor:
        index_t = torch.from_numpy(numpy.maximum(index, 0)).to(values.device)
        gathered = values.gather(1, index_t.view(B, M, *([1] * (values.dim() - 2))).expand(B, M, *values.shape[2:]))
        present = torch.from_numpy(index >= 0).to(values.device)
        return gathered * present.view(B, M, *([1] * (values.dim() - 2))).to(values.dtype)

    actions = numpy.zeros((B, M), dtype="int64")  # IGNORE
    cells = numpy.full((B, M), -1, dtype="int64")
    entities = numpy.full((B, M), -1, dtype="int64")
    rows, steps = numpy.nonzero(source >= 0)
    actions[rows, steps] = out.actions.numpy()[rows, source[rows, steps]]
    cells[rows, steps] = out.cells.numpy()[rows, source[rows, steps]]
    entities[rows, steps] = out.entities[rows, source[rows, steps]]
    expanded = MemoryOutput(spread(out.entity, source), spread(out.overwrite, source), spread(out.coref, source),
                            spread(out.usage, last_read), n_spans)
    expanded.actions, expanded.cells = torch.from_numpy(actions), torch.from_numpy(cells)
    expanded.pruned, expanded.entities, expanded.final_states = pruned, entities, out.final_states
    return expanded


def action_loss(out: MemoryOutput) -> torch.Tensor:
    """Mean negative log-likelihood of the actions the gold allows, over the batch's supervised steps."""
    if out.gold_logprob is None or not out.supervised_steps:
        return out.entity.sum() * 0.0
    return -out.gold_logprob.sum() / out.supervised_steps


def validate_mention_memory_config(n_cells: int, hidden_width: int, mlp_width: int, usage_decay: float,
                                   dropout: float, max_span_width: int, width_embedding: int,
                                   feature_width: int) -> List[str]:
    """What is out of range, as messages naming each setting (empty when all is well)."""
    problems = memory_config_problems(n_cells, hidden_width, mlp_width, usage_decay, dropout)
    for name, value in (("max_span_width", max_span_width), ("width_embedding", width_embedding),
                        ("feature_width", feature_width)):
        if value < 1:
            problems.append(f"{name} must be at least 1, got {value}")
    return problems
