import numpy

from spacy_entmem.pipeline.memory_log import COREF, IGNORE, OVERWRITE, decode_actions, decode_mentions, group_clusters


def make_log(entity, overwrite, coref):
    return {"entity": numpy.array(entity, dtype="f"), "overwrite": numpy.array(overwrite, dtype="f"),
            "coref": numpy.array(coref, dtype="f")}


def test_decode_actions_thresholds_and_ties():
    log = make_log(
        [0.2, 0.9, 0.9, 0.9],
        [[0.5, 0], [0.6, 0], [0, 0.4], [0, 0.3]],
        [[0.0, 0], [0.1, 0], [0.4, 0], [0.1, 0.5]],
    )
    actions, cells = decode_actions(log)
    assert actions.tolist() == [IGNORE, OVERWRITE, COREF, COREF]  # a tie goes to COREF
    assert cells.tolist() == [-1, 0, 0, 1]


def test_mentions_and_clusters():
    # t0 new entity in cell 0, t1 continues it (one mention), t2 ignored, t3 new entity in cell 1,
    # t4 refers to cell 0, t5 overwrites cell 0 (a new entity), t6 refers to cell 0 (the new one)
    actions = numpy.array([OVERWRITE, COREF, IGNORE, OVERWRITE, COREF, OVERWRITE, COREF])
    cells = numpy.array([0, 0, -1, 1, 0, 0, 0])
    mentions = decode_mentions(actions, cells)
    assert mentions == [(0, 2, 0), (3, 4, 1), (4, 5, 0), (5, 7, 2)]
    assert group_clusters(mentions) == [[(0, 2), (4, 5)], [(3, 4)], [(5, 7)]]


def test_coref_into_an_unused_cell_starts_an_entity():
    mentions = decode_mentions(numpy.array([COREF]), numpy.array([2]))
    assert mentions == [(0, 1, 0)]


def test_empty_log():
    actions, cells = decode_actions(make_log(numpy.zeros(0), numpy.zeros((0, 3)), numpy.zeros((0, 3))))
    assert actions.shape == cells.shape == (0,)
    assert decode_mentions(actions, cells) == []


def test_new_entity_bias_turns_close_coref_decisions_into_new_entities():
    import numpy

    log = {"entity": numpy.array([0.9, 0.9]), "overwrite": numpy.array([[0.9, 0.0], [0.3, 0.0]]),
           "coref": numpy.array([[0.0, 0.0], [0.0, 0.6]])}
    assert decode_actions(log)[0].tolist() == [OVERWRITE, COREF]
    assert decode_actions(log, new_entity_bias=4.0)[0].tolist() == [OVERWRITE, OVERWRITE]


def test_steps_matching_prefers_exact_then_inner_then_shortest_containing():
    import numpy

    from spacy_entmem.pipeline.memory_log import steps_matching

    log = {"spans": numpy.array([[0, 2], [1, 2], [0, 6], [4, 5], [3, 6]])}
    assert steps_matching(log, (0, 2)) == [0]
    assert steps_matching(log, (1, 3)) == [1]  # the inner candidate, not [0, 6]
    assert steps_matching(log, (5, 6)) == [4]  # shortest containing: [3, 6] rather than [0, 6]
    assert steps_matching(log, (7, 8)) == []


def test_held_link_probability_reads_the_cell_that_holds_the_entity():
    import pytest

    from spacy_entmem.pipeline.memory_log import held_link_probability

    # steps: A -> cell 0 (new), B -> cell 1 (new), x ignored, pronoun COREF cell 0; then cell 0 overwritten
    log = {
        "action": numpy.array([OVERWRITE, OVERWRITE, IGNORE, COREF, OVERWRITE, COREF], dtype=numpy.int8),
        "cell": numpy.array([0, 1, -1, 0, 0, 1], dtype=numpy.int16),
        "coref": numpy.array([[0, 0], [0, 0], [0, 0], [0.7, 0.2], [0, 0], [0.6, 0.3]], dtype=numpy.float32),
    }
    assert held_link_probability(log, [0], [3]) == pytest.approx(0.7)  # A's entity is in cell 0
    assert held_link_probability(log, [1], [3]) == pytest.approx(0.2)  # B's is in cell 1
    assert held_link_probability(log, [0], [5]) == 0.0  # A's entity was forgotten when cell 0 was overwritten
    assert held_link_probability(log, [1], [5]) == pytest.approx(0.3)
    assert held_link_probability(log, [2], [3]) == 0.0  # an ignored step belongs to no entity
