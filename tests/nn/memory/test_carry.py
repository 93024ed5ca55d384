"""A memory carried from one document to the next: the cells, their symbolic state and the entity counter
carry over; positions move past the text left behind; the state round-trips through plain data."""
import numpy
import pytest
import torch

from spacy_entmem.nn.memory.carry import PAST_TURN, CarriedMemory, export_row
from spacy_entmem.nn.memory.mention_memory import COREF, CellState, MentionMemory, OVERWRITE
from spacy_entmem.linguistics.columns import PADDING_ATTRIBUTES


def _attributes(rows):
    return torch.from_numpy(numpy.array([tuple(r) + PADDING_ATTRIBUTES[len(r):] for r in rows], dtype="int64"))[None]


@pytest.fixture
def memory():
    torch.manual_seed(0)
    module = MentionMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, dropout=0.0, feature_width=4)
    module.eval()
    module.ignore_bias, module.new_entity_bias = -50.0, 50.0  # every candidate a mention and a new entity
    module.name_continuity = True  # a repeated name joins the cell that holds it
    return module


def _read(memory, names, carried=None):
    m = len(names)
    spans = torch.tensor([[[2 * i, 2 * i + 1] for i in range(m)]])
    attrs = _attributes([(name, name, 0, 0, 0, 0, 1, 0, 0, -1, 0, name) for name in names])
    memory.carried = [carried]
    try:
        with torch.no_grad():
            return memory(torch.randn(1, 2 * m, 6), torch.tensor([2 * m]), spans, torch.tensor([m]), attrs)
    finally:
        memory.carried = None


def test_a_carried_memory_lets_a_later_document_join_an_earlier_entity_and_counts_ids_on(memory):
    first = _read(memory, [7, 8])  # two names: entities 0 and 1
    assert first.entities.tolist() == [[0, 1]] and len(first.final_states) == 1
    state = first.final_states[0].after_text(4)
    second = _read(memory, [8, 9], state)  # name 8 again: entity 1; name 9: a new entity, 2
    assert second.entities.tolist() == [[1, 2]]
    assert second.actions.tolist()[0][0] == COREF and second.actions.tolist()[0][1] == OVERWRITE
    fresh = _read(memory, [8, 9])  # the same document without the carried memory: ids from 0, no join
    assert fresh.entities.tolist() == [[0, 1]]


def test_the_cells_vectors_are_carried(memory):
    first = _read(memory, [7])
    carried = first.final_states[0]
    assert carried.vectors.shape == (3, 8) and numpy.abs(carried.vectors[0]).sum() > 0
    assert numpy.abs(carried.vectors[1:]).sum() == 0  # unused cells


def test_after_text_moves_positions_past_the_text_and_cuts_parse_and_turns_loose():
    state = CellState(1, 2)
    state.last_end[0] = [5, 9]
    state.roots[0][0].add(3)
    state.persons[0][1].add((4, 1))
    state.last_sentence[0] = [0, 2]
    carried = export_row(state, numpy.zeros((2, 4)), 0).after_text(10)
    assert carried.arrays["last_end"].tolist() == [-5, -1]
    assert carried.arrays["last_sentence"].tolist() == [-1, -1]  # sentence distances are unknown across texts
    assert carried.sets["roots"] == [set(), set()] and carried.sets["persons"][1] == {(PAST_TURN, 1)}
    assert (carried.texts_read, carried.tokens_read) == (1, 10)
    assert state.last_end[0].tolist() == [5, 9]  # the state itself is untouched


def test_a_carried_memory_round_trips_through_plain_data():
    state = CellState(1, 2)
    state.entity[0] = [0, 1]
    state.strings[0][0].add(("n", 42))
    state.strings[0][0].add(("o", 7, 21))  # a name's "of" complement ("the Witch of the North"): three fields
    state.persons[0][1].add((PAST_TURN, 3))
    state.next_entity[0] = 2
    carried = export_row(state, numpy.arange(8, dtype="float32").reshape(2, 4), 0)
    again = CarriedMemory.from_dict(carried.to_dict())
    assert again.sets == carried.sets and again.next_entity == 2
    assert numpy.array_equal(again.vectors, carried.vectors)
    assert all(numpy.array_equal(again.arrays[k], carried.arrays[k]) and again.arrays[k].dtype == carried.arrays[k].dtype
               for k in carried.arrays)
    broken = carried.to_dict()
    del broken["arrays"]["usage"]
    with pytest.raises(ValueError, match="lacks the fields \\['usage'\\]"):
        CarriedMemory.from_dict(broken)


def test_a_carried_memory_of_another_size_and_beam_search_are_refused(memory):
    carried = _read(memory, [7]).final_states[0]
    carried.vectors = numpy.zeros((5, 8), dtype="float32")
    with pytest.raises(ValueError, match="5 cells of width 8"):
        _read(memory, [7], carried)
    memory.beam_width = 2
    with pytest.raises(ValueError, match="beam_width = 1"):
        _read(memory, [7], export_row(CellState(1, 3), numpy.zeros((3, 8)), 0))


def test_an_empty_document_passes_the_carried_memory_on(memory):
    carried = _read(memory, [7]).final_states[0]
    memory.carried = [carried]
    try:
        with torch.no_grad():
            out = memory(torch.zeros(1, 0, 6), torch.tensor([0]), torch.zeros(1, 0, 2, dtype=torch.int64),
                         torch.tensor([0]), _attributes([])[:, :0])
    finally:
        memory.carried = None
    assert out.final_states == [carried] and out.entities.shape == (1, 0)


def test_a_resumed_state_knows_which_cells_hold_an_i_a_you_or_the_readers_you():
    from spacy_entmem.nn.memory.carry import import_row
    from spacy_entmem.linguistics.values import READER, SECOND

    state = CellState(1, 4)
    state.entity[0] = [0, 1, 2, 3]
    state.persons[0][0].add((0, 1))  # an I
    state.persons[0][1].add((0, SECOND))  # a you with an addressee
    state.persons[0][2].add((0, READER))  # the reader's you
    state.persons[0][3].add((0, 3))  # a he
    carried = export_row(state, numpy.zeros((4, 2)), 0).after_text(5)
    resumed = CellState(1, 4)
    import_row(resumed, 0, CarriedMemory.from_dict(carried.to_dict()))
    assert resumed.spoken[0].tolist() == [True, True, True, False]
    assert resumed.reader[0].tolist() == [False, False, True, False]
