"""Beam search over the mention memory's decisions: the best reading it returns, the order of the kept
readings, the state each reading carries, the constraints it keeps."""
import itertools

import numpy
import pytest
import torch

from spacy_entmem.nn.memory.beam import best_children
from spacy_entmem.nn.memory.mention_memory import COREF, IGNORE, OVERWRITE, CellState, MentionMemory, action_index

from .test_mention_memory import _attributes, _inputs, _plain


def _memory(n_cells: int = 2) -> MentionMemory:
    torch.manual_seed(1)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=n_cells, mlp_width=8, dropout=0.0, feature_width=4)
    memory.eval()
    memory.ignore_bias, memory.new_entity_bias = -1.0, -0.5  # ignoring, new entities and joins all compete
    return memory


def _reading_scores(memory, inputs, forced: numpy.ndarray) -> numpy.ndarray:
    """(B,) the score of the readings ``forced`` (B, M) action indices impose: the sum of their decisions'
    scores (log p plus the decision offsets), −inf where a reading joins an empty cell."""
    memory.forced_actions, memory.record_decision_scores = forced, True
    try:
        with torch.no_grad():
            out = memory(*inputs)
    finally:
        memory.forced_actions, memory.record_decision_scores = None, False
    scores = numpy.take_along_axis(out.decision_scores.astype("float64"), forced[..., None], axis=2)[..., 0]
    n_spans = inputs[3].numpy()
    scores[numpy.arange(forced.shape[1])[None, :] >= n_spans[:, None]] = 0.0  # padding
    return numpy.where((scores < -1000).any(axis=1), -numpy.inf, scores.sum(axis=1))


def test_a_wide_enough_beam_returns_the_best_reading_of_all():
    memory = _memory()
    X, lengths, spans, n = _inputs(m=4, t=8)
    inputs = (X.repeat(2, 1, 1), torch.tensor([8, 6]), spans.repeat(2, 1, 1), torch.tensor([4, 3]),
              _plain(4).repeat(2, 1, 1))
    sequences = numpy.array(list(itertools.product(range(4), repeat=4)))  # every action at every step
    scores = numpy.stack([_reading_scores(memory, inputs, numpy.stack([seq, seq])) for seq in sequences])
    with torch.no_grad():
        greedy = memory(*inputs)
        memory.beam_width = 4 ** 4  # keeps every reading: exhaustive
        beam = memory(*inputs)
    for b, steps in enumerate((4, 3)):
        best = sequences[numpy.argmax(scores[:, b]), :steps]
        found = action_index(beam.actions[b].numpy(), beam.cells[b].numpy())[:steps]
        assert found.tolist() == best.tolist()
        assert beam.actions[b, steps:].tolist() == [IGNORE] * (4 - steps)  # padding stays padding
    greedy_paths = action_index(greedy.actions.numpy(), greedy.cells.numpy())
    greedy_scores = _reading_scores(memory, inputs, greedy_paths)
    assert numpy.all(scores.max(axis=0) >= greedy_scores - 1e-4)
    # the log is the chosen reading's: its probabilities sum to one over the actions at every step
    total = beam.entity.new_ones(beam.entity.shape) - beam.entity + beam.overwrite.sum(-1) + beam.coref.sum(-1)
    assert beam.entity.shape == greedy.entity.shape and beam.usage.shape == greedy.usage.shape
    assert torch.all(total[0] <= 1 + 1e-5)


def test_width_one_is_the_greedy_loop_and_a_beam_is_off_in_training():
    memory = _memory(n_cells=3)
    X, lengths, spans, n = _inputs(m=8, t=16)
    with torch.no_grad():
        greedy = memory(X, lengths, spans, n, _plain(8))
        memory.beam_width = 1
        assert torch.equal(memory(X, lengths, spans, n, _plain(8)).actions, greedy.actions)
    memory.beam_width = 3
    memory.train()
    gold = torch.tensor([[0, -1, 1, 0, 2, -1, 1, 0]])
    out = memory(X, lengths, spans, n, _plain(8), gold)  # teacher forcing follows the gold, not the beam
    assert out.actions.tolist() == [[OVERWRITE, IGNORE, OVERWRITE, COREF, OVERWRITE, IGNORE, COREF, COREF]]


def test_kept_readings_are_the_best_children_ties_going_to_the_earlier_reading_and_lower_action():
    beam = numpy.array([[0.0, -1.0, -numpy.inf]])
    scores = numpy.array([[-2.0, -0.5, -0.5],   # reading 0: actions 1 and 2 tie
                          [0.5, -3.0, -numpy.inf],   # reading 1: -0.5 ties with reading 0's best
                          [0.0, 0.0, 0.0]])  # a dead reading's children stay dead
    parents, actions, totals = best_children(beam, scores)
    assert parents.tolist() == [[0, 0, 1]] and actions.tolist() == [[1, 2, 0]]
    assert totals.tolist() == [[-0.5, -0.5, -0.5]]
    nan = best_children(numpy.array([[-numpy.inf, 0.0]]), numpy.array([[numpy.inf, 0.0], [1.0, 0.0]]))
    assert nan[0].tolist() == [[1, 1]] and nan[2].tolist() == [[1.0, 0.0]]  # -inf + inf is no reading


def test_a_selected_state_copies_its_parents_and_duplicates_own_their_strings():
    state = CellState(2, 2)
    attrs = _attributes([(5, 6, 0, 2, 1, 0, 1, 0), (7, 8, 0, 1, 1, 0, 1, 0)])[0].numpy()
    state.apply(numpy.array([OVERWRITE, OVERWRITE]), numpy.array([0, 1]), attrs, numpy.array([3, 4]), 0.98,
                numpy.array([True, True]))
    picked = state.select(numpy.array([1, 1, 0]))
    assert picked.entity.tolist() == [[-1, 0], [-1, 0], [0, -1]]
    assert picked.gender.tolist() == [[0, 1], [0, 1], [2, 0]] and picked.next_entity.tolist() == [1, 1, 1]
    assert picked.cells_with[0] == picked.cells_with[1] == {("n", 7): {1}, ("h", 8): {1}}
    # the two copies of row 1 change independently
    picked.apply(numpy.array([OVERWRITE, IGNORE, IGNORE]), numpy.array([1, 0, 0]), numpy.stack([attrs[0]] * 3),
                 numpy.array([9, 9, 9]), 0.98, numpy.array([True, True, True]))
    assert picked.cells_with[0][("n", 5)] == {1} and not picked.cells_with[0][("n", 7)]
    assert picked.cells_with[1] == {("n", 7): {1}, ("h", 8): {1}} and picked.strings[1][1] == {("n", 7), ("h", 8)}


def test_a_wide_beam_keeps_the_agreement_constraints_in_every_reading():
    memory = _memory()
    X, lengths, spans, n = _inputs(m=3, t=6)
    #                     Anna (feminine, singular)     Bob (masculine, singular)     "she" (feminine)
    attrs = _attributes([(0, 0, 0, 2, 1, 0, 1, 0), (1, 1, 0, 1, 1, 0, 1, 0), (-1, -1, 5, 2, 1, 0, 0, 0)])
    inputs = (X, lengths, spans, n, attrs)
    sequences = numpy.array(list(itertools.product(range(4), repeat=3)))
    memory.ignore_bias, memory.new_entity_bias = -20.0, -3.0  # Anna and Bob are mentions; "she" joins one
    memory.beam_width = 4 ** 3
    memory.name_agreement = True  # Bob does not join Anna

    def best_and_found():
        scores = numpy.array([_reading_scores(memory, inputs, seq[None])[0] for seq in sequences])
        with torch.no_grad():
            out = memory(*inputs)
        return sequences[numpy.argmax(scores)].tolist(), action_index(out.actions[0].numpy(), out.cells[0].numpy())

    free_best, free_found = best_and_found()
    memory.agreement_constraints = (2,)  # gender agreement
    best, found = best_and_found()
    assert free_found.tolist() == free_best and found.tolist() == best
    # Anna takes cell 0 and Bob cell 1; "she" joins Bob's cell unless the constraint keeps her out of it
    assert free_best == [OVERWRITE, OVERWRITE, COREF + 1] and best == [OVERWRITE, OVERWRITE, COREF + 0]


@pytest.mark.parametrize("width", [0, 2.5, True, "4"])
def test_an_invalid_beam_width_is_refused(width):
    from spacy_entmem.pipeline.entity_memory import check_beam_width

    with pytest.raises(ValueError, match="beam_width must be a whole number >= 1"):
        check_beam_width(width)


def test_a_beam_over_pruned_candidates_gives_each_step_its_entity():
    memory = _memory(n_cells=3)
    X, lengths, spans, n = _inputs(m=6, t=12)
    memory.pruning_bound = -50.0  # a bound every candidate's new-entity score clears: the pruned path, none pruned
    memory.beam_width = 3
    with torch.no_grad():
        out = memory(X, lengths, spans, n, _plain(6))
    actions, cells, entities = out.actions[0].numpy(), out.cells[0].numpy(), out.entities[0]
    assert ((entities >= 0) == (actions != IGNORE)).all()
    began = entities[actions == OVERWRITE].tolist()
    assert began == list(range(len(began)))  # each new entity takes the next id
    for t in numpy.flatnonzero(actions == COREF).tolist():  # a join takes the id its cell's last entity had
        before = [k for k in range(t) if cells[k] == cells[t] and actions[k] != IGNORE]
        assert before and entities[t] == entities[before[-1]]
