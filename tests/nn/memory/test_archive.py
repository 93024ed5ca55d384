"""The archive of evicted entities: bounded by entities, looked up by name words, brought back into a cell with
its entity id; and the book-length settings of ``CellState`` (protected cells, titles)."""
import numpy
import pytest
import torch

from spacy_entmem.nn.memory.archive import ArchivedEntity, EntityArchive
from spacy_entmem.nn.memory.carry import CarriedMemory
from spacy_entmem.nn.memory.mention_memory import CellState, MentionMemory, archived_match
from spacy_entmem.linguistics.columns import NAME_WORDS, PADDING_ATTRIBUTES, TITLE
from spacy_entmem.linguistics.values import AUNT_TITLE, ELDER_TITLES, MALE_TITLE, MARRIED_TITLE


def _archived(entity, names, count=1, gender=0, titles=()):
    return ArchivedEntity(entity, numpy.full(4, float(entity), dtype="float32"), {"count": count, "gender": gender},
                          {"names": set(names), "titles": set(titles)})


def test_the_archive_finds_the_most_mentioned_entity_holding_all_the_name_words():
    archive = EntityArchive(10)
    archive.store(_archived(1, {7, 8}, count=3))
    archive.store(_archived(2, {7}, count=9))
    archive.store(_archived(3, set(), count=50))  # no name: nothing could find it, so it is not kept
    assert len(archive) == 2
    assert archive.lookup({7}, lambda a: True).entity == 2
    assert archive.lookup({7, 8}, lambda a: True).entity == 1
    assert archive.lookup({7}, lambda a: a.entity != 2).entity == 1
    assert archive.lookup({9}, lambda a: True) is None and archive.lookup(set(), lambda a: True) is None
    assert archive.take(2).entity == 2 and archive.lookup({7}, lambda a: True).entity == 1
    assert archive.by_name == {7: {1}, 8: {1}}


def test_past_capacity_the_least_mentioned_archived_entity_is_dropped():
    archive = EntityArchive(2)
    for entity, count in ((1, 5), (2, 1), (3, 4)):
        archive.store(_archived(entity, {entity + 10}, count=count))
    assert sorted(archive.entities) == [1, 3]
    restored = EntityArchive.from_list(archive.to_list())
    assert sorted(restored.entities) == [1, 3] and restored.lookup({11}, lambda a: True).count == 5
    copy = archive.copy()
    copy.take(1)
    assert 1 in archive.entities  # a copy changes on its own
    with pytest.raises(ValueError, match="at least one entity"):
        EntityArchive(0)


def _attrs(name, gender=0, title=0, words=None):
    row = list(PADDING_ATTRIBUTES)
    row[0:7] = [name, name, 0, gender, 0, 0, 1]
    words = [name] if words is None else words
    row[NAME_WORDS.start:NAME_WORDS.start + len(words)] = words
    row[TITLE] = title
    return numpy.array(row, dtype="int64")


def test_an_archived_entity_matches_a_name_only_without_a_gender_or_title_clash():
    mrs = _archived(1, {5}, gender=2, titles={MARRIED_TITLE})
    assert archived_match(mrs, _attrs(5, gender=2, title=MARRIED_TITLE))
    assert not archived_match(mrs, _attrs(5, gender=1))  # a masculine name
    assert not archived_match(mrs, _attrs(5, title=MALE_TITLE))  # "Mr. March" is not "Mrs. March"
    meg = _archived(2, {4, 5}, gender=2)  # "Meg March"
    assert not archived_match(meg, _attrs(5, title=MARRIED_TITLE))  # "Mrs. March" is not Meg
    assert not archived_match(meg, _attrs(5, title=AUNT_TITLE))
    assert archived_match(meg, _attrs(4, gender=2))  # "Meg"


def _read(memory, names, carried=None):
    m = len(names)
    spans = torch.tensor([[[2 * i, 2 * i + 1] for i in range(m)]])
    attrs = torch.from_numpy(numpy.stack([_attrs(name) for name in names]))[None]
    memory.carried = [carried]
    try:
        with torch.no_grad():
            return memory(torch.randn(1, 2 * m, 6), torch.tensor([2 * m]), spans, torch.tensor([m]), attrs)
    finally:
        memory.carried = None


@pytest.fixture
def memory():
    torch.manual_seed(0)
    module = MentionMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, dropout=0.0, feature_width=4)
    module.eval()
    module.ignore_bias, module.new_entity_bias = -50.0, 50.0  # every candidate a mention and a new entity
    module.name_continuity = True
    return module


def test_a_name_whose_entity_was_evicted_gets_its_entity_back_with_the_archive(memory):
    names = [7, 8, 9, 10, 7]  # three cells: 10 evicts 7, then 7 returns
    assert _read(memory, names).entities[0].tolist() == [0, 1, 2, 3, 4]  # without: a new entity
    memory.archive_size = 10
    out = _read(memory, names)
    assert out.entities[0].tolist() == [0, 1, 2, 3, 0]
    assert out.actions[0].tolist()[-1] == 2  # logged as a join (COREF)


def test_the_archive_is_carried_from_text_to_text(memory):
    memory.archive_size = 10
    state = _read(memory, [7, 8, 9, 10]).final_states[0]  # (a carried [None]: the end state is exported)
    assert state.archive is not None and set(state.archive.entities) == {0}
    again = CarriedMemory.from_dict(state.after_text(8).to_dict())
    out = _read(memory, [7], carried=again)
    assert out.entities[0].tolist() == [0]


def test_protected_cells_keep_the_most_mentioned_entities_from_eviction():
    state = CellState(1, 4)
    state.entity[0] = [0, 1, 2, 3]
    state.count[0] = [30, 1, 2, 1]
    state.usage[0] = [0.1, 0.5, 0.9, 0.8]
    assert state.least_used().tolist() == [0]  # least recently used
    state.protected_cells = 1
    assert state.least_used().tolist() == [1]  # the most mentioned stays
    state.entity[0, 3] = -1
    assert state.least_used().tolist() == [3]  # an empty cell first


def test_titles_that_name_different_people_clash():
    state = CellState(1, 3)
    state.entity[0] = [0, 1, 2]
    state.titles[0][0] = {MALE_TITLE}  # "Mr. March"
    state.names[0][0] = {5}
    state.names[0][1] = {4, 5}  # "Meg March"
    state.titles[0][2] = {MARRIED_TITLE}  # "Mrs. Hawkins"
    state.names[0][2] = {6}
    rows, cells = numpy.zeros(3, dtype=int), numpy.arange(3)
    mrs_march = numpy.stack([_attrs(5, title=MARRIED_TITLE)])
    assert state.title_clash(mrs_march, rows, cells).tolist() == [True, True, False]
    assert MARRIED_TITLE in ELDER_TITLES
