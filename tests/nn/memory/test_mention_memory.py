"""The teacher-forced mention memory: gold actions in training, greedy decisions fed back at inference,
bounded cells with least-recently-used eviction, symbolic pair features."""
import numpy
import pytest
import torch

from spacy_entmem.linguistics import cell_rules
from spacy_entmem.linguistics import columns as attribute_columns
from spacy_entmem.linguistics.cell_rules import THEY
from spacy_entmem.linguistics.columns import ATTRIBUTE_FIELDS, PADDING_ATTRIBUTES
from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.linguistics.values import PERSON_NOUN
from spacy_entmem.nn.memory import mention_memory
from spacy_entmem.nn.memory.mention_memory import COREF, CellState, IGNORE, MentionMemory, OVERWRITE, action_loss
from spacy_entmem.pipeline.memory_log import step_entities


def _padded(rows):
    """(M, len(ATTRIBUTE_FIELDS)) from per-candidate (norm, head, pronoun, gender, number, quoted, proper,
    inanimate[, noun number, titled, name words]): missing columns as padding has them (no name words)."""
    return numpy.array([tuple(row) + PADDING_ATTRIBUTES[len(row):] for row in rows], dtype="int64")


def _attributes(rows):
    """(1, M, len(ATTRIBUTE_FIELDS)) from per-candidate rows as ``_padded`` reads them."""
    return torch.from_numpy(_padded(rows))[None]


def _plain(m):
    return _attributes([(-1, -1, 0, 0, 0, 0, 0, 0)] * m)


@pytest.fixture
def memory():
    torch.manual_seed(0)
    return MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4)


def _inputs(m=6, t=12):
    spans = torch.tensor([[[i * 2, i * 2 + 1] for i in range(m)]])
    return torch.randn(1, t, 6), torch.tensor([t]), spans, torch.tensor([m])


def test_training_follows_the_gold_actions_and_evicts_the_least_recently_used_cell(memory):
    X, lengths, spans, n = _inputs()
    #          A   -   B   C (evicts A: LRU)  B   A (forgotten: a new entity)
    clusters = torch.tensor([[0, -1, 1, 2, 1, 0]])
    out = memory.train()(X, lengths, spans, n, _plain(6), clusters)
    assert out.actions.tolist() == [[OVERWRITE, IGNORE, OVERWRITE, OVERWRITE, COREF, OVERWRITE]]
    assert out.cells.tolist() == [[0, -1, 1, 0, 1, 0]]
    assert out.gold_logprob.shape == (1, 6) and torch.all(out.gold_logprob <= 0)
    loss = action_loss(out)
    assert float(loss.detach()) == pytest.approx(float(-out.gold_logprob.detach().mean()), rel=1e-6)


def test_the_loss_trains_every_parameter(memory):
    X, lengths, spans, n = _inputs()
    attrs = _attributes([(0, 0, 0, 0, 0, 0, 1, 0), (-1, -1, 4, 2, 1, 1, 0, 0), (1, 1, 0, 1, 0, 0, 1, 0),
                         (0, 0, 0, 0, 0, 0, 1, 0), (-1, -1, 4, 2, 1, 0, 0, 0), (2, 2, 0, 0, 0, 0, 0, 0)])
    out = memory.train()(X, lengths, spans, n, attrs, torch.tensor([[0, 0, 1, 0, -1, 2]]))
    action_loss(out).backward()
    for name, parameter in memory.named_parameters():
        assert parameter.grad is not None and torch.any(parameter.grad != 0), name


def test_inference_decisions_are_the_memory_contents_step_by_step(memory):
    X, lengths, spans, n = _inputs(m=8, t=16)
    memory.eval()
    memory.ignore_bias, memory.new_entity_bias = -50.0, 0.0  # every candidate is a mention
    with torch.no_grad():
        out = memory(X, lengths, spans, n, _plain(8))
    actions, cells = out.actions[0].numpy(), out.cells[0].numpy()
    assert set(actions.tolist()) <= {OVERWRITE, COREF} and actions[0] == OVERWRITE
    # replay the decisions on a fresh cell state: a COREF step always names a cell holding an entity, and the
    # entity decoded for each step is the one the cell holds at that moment
    state = CellState(1, 2)
    entities = step_entities(actions, cells)
    for t, (action, cell) in enumerate(zip(actions, cells)):
        if action == COREF:
            assert state.entity[0, cell] >= 0
            assert entities[t] == entities[max(s for s in range(t) if cells[s] == cell)]
        state.apply(numpy.array([action]), numpy.array([cell]), numpy.full((1, len(ATTRIBUTE_FIELDS)), -1), numpy.array([t]), 0.98,
                    numpy.array([True]))
        assert state.entity[0, cell] >= 0


def test_decision_offsets_move_the_argmax(memory):
    X, lengths, spans, n = _inputs()
    memory.eval()
    with torch.no_grad():
        memory.ignore_bias, memory.new_entity_bias = 50.0, 0.0
        assert memory(X, lengths, spans, n, _plain(6)).actions.tolist() == [[IGNORE] * 6]
        memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0
        out = memory(X, lengths, spans, n, _plain(6))
    assert out.actions.tolist() == [[OVERWRITE] * 6]
    assert out.cells.tolist() == [[0, 1, 0, 1, 0, 1]]  # empty cells first, then least recently used


def test_padding_and_later_candidates_change_nothing_before_them(memory):
    memory.eval()
    X, lengths, spans, n = _inputs(m=6, t=12)
    with torch.no_grad():
        alone = memory(X[:, :8], torch.tensor([8]), spans[:, :4], torch.tensor([4]), _plain(4))
        longer = torch.cat([X, torch.randn(1, 12, 6)], dim=1)
        batch = memory(torch.cat([torch.nn.functional.pad(X[:, :8], (0, 0, 0, 16)), longer]),
                       torch.tensor([8, 24]), torch.cat([torch.cat([spans[:, :4], spans[:, 3:4].repeat(1, 2, 1)], 1),
                                                         spans]), torch.tensor([4, 6]),
                       torch.cat([_plain(6), _plain(6)]))
        later = memory(X, lengths, spans, n, _plain(6))
    assert torch.allclose(alone.coref[0], batch.coref[0, :4], atol=1e-6)
    assert alone.actions[0].tolist() == batch.actions[0, :4].tolist() == later.actions[0, :4].tolist()
    assert torch.allclose(alone.entity[0], later.entity[0, :4], atol=1e-6)


def test_pair_features_see_string_matches_and_agreement():
    state = CellState(1, 3)
    # cell 0: "Mr. Darcy" (norm 5, head 6, masculine, proper); cell 1: "she" (feminine pronoun)
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[5, 6, 0, 1, 0, 0, 1, 0]]), numpy.array([2]),
                0.98, numpy.array([True]))
    state.apply(numpy.array([OVERWRITE]), numpy.array([1]), _padded([[-1, -1, 5, 2, 1, 0, 0, 0]]), numpy.array([4]),
                0.98, numpy.array([True]))
    every_cell = (numpy.zeros(3, dtype="int64"), numpy.arange(3))
    darcy = state.pair_features(numpy.array([[5, 6, 0, 0, 0, 0, 1, 0]]), numpy.array([10]), *every_cell)
    assert darcy[0, 0] == 2 and darcy[1, 0] == 1 and darcy[2, 0] == 0  # match; no match; empty cell: n/a
    assert darcy[0, 1] == 2
    he = state.pair_features(numpy.array([[-1, -1, 4, 1, 1, 0, 0, 0]]), numpy.array([10]), *every_cell)
    assert he[0, 2] == 1 and he[1, 2] == 2  # gender agrees with Darcy, not with "she"
    assert he[1, 4] == 2 and he[0, 4] == 3  # another pronoun class than "she"; Darcy's last mention is no pronoun
    assert he[1, 7] == 0 and he[0, 7] == 1  # recency rank: "she" is the most recent


def test_an_overwritten_cell_forgets_its_strings_and_a_head_match_is_not_an_exact_one():
    state = CellState(2, 2)
    both = numpy.array([True, True])
    # doc 0: cell 0 holds "the old house" (norm 7, head 8); doc 1: cell 0 holds "house" (norm 8, head 8)
    state.apply(numpy.array([OVERWRITE, OVERWRITE]), numpy.array([0, 0]),
                _padded([[7, 8, 0, 0, 0, 0, 0, 0], [8, 8, 0, 0, 0, 0, 0, 0]]), numpy.array([3, 1]), 0.98, both)
    house = _padded([[8, 8, 0, 0, 0, 0, 0, 0], [8, 8, 0, 0, 0, 0, 0, 0]])
    pairs = (numpy.array([0, 1]), numpy.array([0, 0]))
    features = state.pair_features(house, numpy.array([5, 5]), *pairs)
    assert features[0, :2].tolist() == [1, 2] and features[1, :2].tolist() == [2, 2]
    # doc 0's cell 0 now holds a new entity "Anna" (norm 9): "house" matches nothing there any more
    state.apply(numpy.array([OVERWRITE, IGNORE]), numpy.array([0, 0]),
                _padded([[9, 9, 0, 0, 0, 0, 1, 0], [8, 8, 0, 0, 0, 0, 0, 0]]), numpy.array([6, 6]), 0.98, both)
    features = state.pair_features(house, numpy.array([7, 7]), *pairs)
    assert features[0, :2].tolist() == [1, 1] and features[1, :2].tolist() == [2, 2]


def test_partial_annotation_constrains_only_the_annotated_mentions():
    from spacy_entmem.nn.memory.mention_memory import SOME_OTHER_ENTITY, UNKNOWN, allowed_actions

    state = CellState(1, 4)
    cell_cluster = numpy.full((1, 4), -1)
    # cell 0: an unannotated entity; cell 1: annotated cluster 0 (A); cell 2: annotated cluster 1 (B)
    for cell, code in ((0, -1), (1, 0), (2, 1)):
        state.apply(numpy.array([OVERWRITE]), numpy.array([cell]), numpy.full((1, len(ATTRIBUTE_FIELDS)), -1), numpy.array([cell]),
                    0.98, numpy.array([True]))
        cell_cluster[0, cell] = code
    partial = numpy.array([True])

    def allowed(code):
        mask, supervised = allowed_actions(state, numpy.array([code]), cell_cluster, partial)
        return mask[0].tolist(), bool(supervised[0])

    # the pronoun of A joins A's cell, nothing else
    assert allowed(0) == ([False, False, False, True, False, False], True)
    # a pronoun that is neither A's nor B's: a new entity or the unannotated entity, never A or B
    assert allowed(SOME_OTHER_ENTITY) == ([False, True, True, False, False, False], True)
    # an unannotated candidate: anything, no loss
    assert allowed(UNKNOWN) == ([True] * 6, False)
    # a known cluster seen for the first time (an earlier mention may have gone unannotated)
    assert allowed(5) == ([False, True, True, False, False, False], True)
    # in a fully annotated document the same cluster has exactly one gold action
    full, _ = allowed_actions(state, numpy.array([5]), cell_cluster, numpy.array([False]))
    assert full[0].tolist() == [False, True, False, False, False, False]


def test_partial_documents_train_on_the_pronoun_decision(memory):
    from spacy_entmem.nn.memory.mention_memory import UNKNOWN

    X, lengths, spans, n = _inputs()
    # pronoun (step 0) before A (step 2): cataphora; B at step 3; the others unannotated
    codes = torch.tensor([[0, UNKNOWN, 0, 1, UNKNOWN, UNKNOWN]])
    out = memory.train()(X, lengths, spans, n, _plain(6), codes, torch.tensor([True]))
    assert out.supervised_steps == 3
    assert out.actions[0, 2] == COREF and out.cells[0, 2] == out.cells[0, 0]  # A joins its pronoun's entity
    assert out.cells[0, 3] != out.cells[0, 0]  # B never joins A's entity
    action_loss(out).backward()
    assert torch.isfinite(memory.mention_mlp[0].weight.grad).all()


def test_disabled_pair_features_no_longer_reach_the_scores(memory):
    from spacy_entmem.linguistics.cell_rules import PAIR_FEATURE_NAMES

    X, lengths, spans, n = _inputs(m=3, t=6)
    same = _attributes([(0, 0, 0, 0, 0, 0, 1, 0)] * 3)  # the same name three times: exact and head match
    other = _attributes([(0, 0, 0, 0, 0, 0, 1, 0), (1, 1, 0, 0, 0, 0, 1, 0), (2, 2, 0, 0, 0, 0, 1, 0)])
    memory.eval()
    memory.ignore_bias = -50.0  # every candidate is a mention, so later ones are compared with cells
    with torch.no_grad():
        assert not torch.allclose(memory(X, lengths, spans, n, same).coref, memory(X, lengths, spans, n, other).coref)
        memory.disabled_pair_features = tuple(range(len(PAIR_FEATURE_NAMES)))
        assert torch.allclose(memory(X, lengths, spans, n, same).coref, memory(X, lengths, spans, n, other).coref)


def _record_disagreements(memory) -> list:
    """Wrap the memory's greedy step (an instance attribute; ``del memory._greedy`` undoes it) so that the
    ``disagree`` mask it receives at each candidate is appended to the returned list."""
    seen, greedy = [], memory._greedy
    memory._greedy = lambda log_p, state, disagree=None, *rest: seen.append(disagree) or greedy(log_p, state, disagree, *rest)
    return seen


def test_agreement_constraints_keep_a_pronoun_out_of_a_disagreeing_cell_at_inference(memory):
    X, lengths, spans, n = _inputs(m=3, t=6)
    #                     Anna (feminine, singular)     Bob (masculine, singular)     "he" (masculine)
    attrs = _attributes([(0, 0, 0, 2, 1, 0, 1, 0), (1, 1, 0, 1, 1, 0, 1, 0), (-1, -1, 4, 1, 1, 0, 0, 0)])
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # Anna and Bob each take a cell
    memory.eval()
    seen = _record_disagreements(memory)
    with torch.no_grad():
        free = memory(X, lengths, spans, n, attrs)
        assert seen[-1] is None
        memory.agreement_constraints = (2,)  # gender agreement
        constrained = memory(X, lengths, spans, n, attrs)
    # the step of "he" marks Anna's cell; the names are not pronouns; the logged probabilities stay the model's
    assert seen[-1].tolist() == [[True, False]] and not seen[-2].any()
    assert torch.allclose(free.coref, constrained.coref) and free.actions.tolist() == constrained.actions.tolist()
    calls = len(seen)
    memory.train()
    memory(X, lengths, spans, n, attrs, torch.tensor([[0, 1, 0]]))  # training follows the gold: no greedy step
    assert len(seen) == calls


def _disagreements(memory, attrs):
    """The ``disagree`` mask the memory hands to its greedy step at each candidate."""
    X, lengths, spans, n = _inputs(m=attrs.shape[1], t=max(6, 2 * attrs.shape[1]))
    seen = _record_disagreements(memory)
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # every candidate takes a cell of its own
    memory.eval()
    with torch.no_grad():
        memory(X, lengths, spans, n, attrs)
    del memory._greedy
    return [None if mask is None else mask.tolist() for mask in seen]


def test_name_agreement_keeps_a_gendered_name_out_of_a_cell_of_the_other_gender(memory):
    #                     Jane (feminine name)       the park (no gender)       Mr. Darcy (masculine name)
    attrs = _attributes([(0, 0, 0, 2, 0, 0, 1, 0), (1, 1, 0, 0, 0, 0, 0, 0), (2, 2, 0, 1, 0, 0, 1, 0)])
    assert _disagreements(memory, attrs)[-1] is None
    memory.name_agreement = True
    assert _disagreements(memory, attrs)[-1] == [[True, False]]
    memory.agreement_constraints = (2,)  # pronoun agreement alone leaves names free
    memory.name_agreement = False
    assert _disagreements(memory, attrs)[-1] == [[False, False]]


def test_titled_name_agreement_keeps_a_titled_name_out_of_cells_whose_names_it_does_not_share():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    # each candidate takes a cell of its own (``_disagreements``); name word ids: 10 elizabeth, 11 bennet, 12 jane, 13 bingley
    attrs = _attributes([
        (0, 0, 0, 2, 0, 0, 1, 0, 0, -1, 0, 10, 11, -1),  # Elizabeth Bennet
        (-1, -1, 5, 2, 1, 0, 0, 0),                  # she (a new entity, say: a cell with no name words)
        (1, 1, 0, 2, 0, 0, 1, 0, 0, -1, 0, 12, -1, -1),   # Jane
        (2, 2, 0, 2, 0, 0, 1, 0, 0, -1, 1, 13, -1, -1),   # Miss Bingley
        (3, 3, 0, 2, 0, 0, 1, 0, 0, -1, 1, 10, -1, -1),   # Miss Elizabeth
    ])
    assert _disagreements(memory, attrs)[3] is None
    memory.titled_name_agreement = True
    masks = _disagreements(memory, attrs)
    assert masks[2] == [[False, False, False, False]]  # "Jane" is no titled name
    # Bingley is neither Elizabeth Bennet nor Jane; the cell of "she" has no name words to compare
    assert masks[3] == [[True, False, True, False]]
    assert masks[4] == [[False, False, True, True]]  # Miss Elizabeth may join Elizabeth Bennet


def test_binding_agreement_keeps_an_object_pronoun_out_of_the_cell_of_its_clause_subject():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, dropout=0.0, feature_width=4)
    # candidate k spans tokens [2k, 2k + 1) (``_inputs``); "her" is bound to the subject ending at token 3
    attrs = _attributes([(0, 0, 0, 2, 0, 0, 1, 0), (1, 1, 0, 2, 0, 0, 1, 0), (-1, -1, 5, 2, 1, 0, 0, 0, 0, 3)])
    assert _disagreements(memory, attrs)[2] is None
    memory.binding_agreement = True
    assert _disagreements(memory, attrs)[2] == [[False, True, False]]
    unbound = _attributes([(0, 0, 0, 2, 0, 0, 1, 0), (1, 1, 0, 2, 0, 0, 1, 0), (-1, -1, 5, 2, 1, 0, 0, 0, 0, -1)])
    assert _disagreements(memory, unbound)[2] == [[False, False, False]]


def _thompson_attrs():
    """Jennifer Thompson, she, Thompson, the Thompson report (head "report"), Jennifer: name word ids 10 jennifer,
    11 thompson, 12 report; a name's head id is its head's name word id."""
    return _attributes([
        (0, 11, 0, 2, 0, 0, 1, 0, 0, -1, 0, 10, 11, -1),  # Jennifer Thompson
        (-1, -1, 5, 2, 1, 0, 0, 0),                      # she
        (1, 11, 0, 0, 0, 0, 1, 0, 0, -1, 0, 11, -1, -1),  # Thompson
        (2, 12, 0, 0, 0, 0, 1, 0, 0, -1, 0, 11, -1, -1),  # the Thompson report: not a name
        (3, 10, 0, 2, 0, 0, 1, 0, 0, -1, 0, 10, -1, -1),  # Jennifer
    ])


def test_name_holder_finds_the_one_earlier_cell_holding_all_of_a_names_words():
    state = CellState(1, 3)
    one = numpy.array([True])
    attrs = _thompson_attrs()[0].numpy()
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), attrs[:1], numpy.array([2]), 0.98, one)
    starts = numpy.array([5])
    holder = [int(state.name_holder(attrs[k:k + 1], starts, one)[0]) for k in range(5)]
    assert holder == [0, -1, 0, -1, 0]  # the name, a pronoun, its surname, a nominal with it, its given name
    assert state.name_holder(attrs[2:3], numpy.array([1]), one).tolist() == [-1]  # nested in "Jennifer Thompson"
    assert state.name_holder(attrs[2:3], starts, numpy.array([False])).tolist() == [-1]
    state.apply(numpy.array([OVERWRITE]), numpy.array([1]), attrs[2:3], numpy.array([4]), 0.98, one)
    assert state.name_holder(attrs[2:3], starts, one).tolist() == [-1]  # two cells hold "Thompson"
    assert state.name_holder(attrs[4:5], starts, one).tolist() == [0]


def test_a_held_name_that_is_a_mention_joins_its_cell_and_ignore_is_decided_as_before(memory):
    state = CellState(1, 2)
    state.entity[:] = [[0, 1]]
    holder = numpy.array([1])
    for probs, action in (([0.1, 0.6, 0.2, 0.1], COREF), ([0.1, 0.2, 0.6, 0.1], COREF), ([0.5, 0.3, 0.1, 0.1], IGNORE)):
        log_p = torch.log(torch.tensor([probs]))
        decision = memory._greedy(log_p, state, holder=holder)
        assert decision.action.tolist() == [action] and decision.cell.tolist() == ([1] if action == COREF else [0])
        scores = memory.decision_scores(log_p, holder=holder)
        assert scores[0, 3] == pytest.approx(numpy.log(max(probs[1:]))) and numpy.isneginf(scores[0, 1:3]).all()
    free = memory._greedy(torch.log(torch.tensor([[0.1, 0.6, 0.2, 0.1]])), state, holder=numpy.array([-1]))
    assert free.action.tolist() == [OVERWRITE]


@pytest.mark.parametrize("beam_width", [1, 3])
def test_name_continuity_joins_a_surname_to_the_full_name_in_greedy_and_beam_reading(beam_width):
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=5, mlp_width=8, dropout=0.0, feature_width=4)
    X, lengths, spans, n = _inputs(m=5, t=10)
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # every candidate would start an entity
    memory.beam_width = beam_width
    memory.eval()
    with torch.no_grad():
        assert memory(X, lengths, spans, n, _thompson_attrs()).actions.tolist() == [[OVERWRITE] * 5]
        memory.name_continuity = True
        out = memory(X, lengths, spans, n, _thompson_attrs())
    assert out.actions.tolist() == [[OVERWRITE, OVERWRITE, COREF, OVERWRITE, COREF]]
    assert out.cells.tolist()[0][2] == out.cells.tolist()[0][4] == out.cells.tolist()[0][0]


def test_a_cells_name_words_are_forgotten_when_a_new_entity_takes_it_and_copied_by_select():
    state = CellState(1, 2)
    one = numpy.array([True])
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[0, 0, 0, 2, 0, 0, 1, 0, 0, -1, 0, 12, -1, -1]]),
                numpy.array([1]), 0.98, one)
    miss_bingley = _padded([[2, 2, 0, 2, 0, 0, 1, 0, 0, -1, 1, 13, -1, -1]])
    rows, cells = numpy.array([0]), numpy.array([0])
    assert state.name_clash(miss_bingley, rows, cells).tolist() == [True]
    copies = state.select(numpy.array([0, 0]))
    copies.apply(numpy.array([COREF, IGNORE]), numpy.array([0, 0]), numpy.repeat(miss_bingley, 2, axis=0),
                 numpy.array([3, 3]), 0.98, numpy.array([True, True]))
    assert copies.names[0][0] == {12, 13} and copies.names[1][0] == {12}  # each reading has its own sets
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[-1, -1, 5, 2, 1, 0, 0, 0]]),
                numpy.array([5]), 0.98, one)  # "she" starts a new entity in the cell: Jane is forgotten
    assert state.name_clash(miss_bingley, rows, cells).tolist() == [False]


def test_greedy_never_joins_a_disagreeing_cell(memory):
    state = CellState(1, 2)
    state.entity[:] = [[0, 1]]
    log_p = torch.log(torch.tensor([[0.05, 0.05, 0.6, 0.3]]))
    assert (memory._greedy(log_p, state).action.tolist(), memory._greedy(log_p, state).cell.tolist()) == ([COREF], [0])
    decision = memory._greedy(log_p, state, numpy.array([[True, False]]))
    assert (decision.action.tolist(), decision.cell.tolist()) == ([COREF], [1])
    decision = memory._greedy(log_p, state, numpy.array([[True, True]]))
    assert decision.action.tolist() in ([IGNORE], [OVERWRITE])


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
def test_the_memory_runs_on_its_parameters_device_from_cpu_inputs(memory, device):
    """Inputs arrive as CPU tensors (thinc's glue); the module moves them to its device, keeps its
    bookkeeping in numpy, and gives the same decisions on every device."""
    X, lengths, spans, n = _inputs(m=8, t=16)
    attrs = _plain(8)
    reference = memory.eval()(X, lengths, spans, n, attrs)
    moved = memory.to(torch.device(device))
    assert moved.device.type == device
    out = moved(X, lengths, spans, n, attrs)
    assert out.entity.device.type == device and out.actions.device.type == "cpu"
    assert out.actions.tolist() == reference.actions.tolist() and out.cells.tolist() == reference.cells.tolist()
    assert torch.allclose(out.coref.cpu(), reference.coref, atol=1e-5)
    train = moved.train()(X, lengths, spans, n, attrs, torch.tensor([[0, -1, 1, 0, 2, 1, -1, 0]]))
    action_loss(train).backward()


def test_animacy_agreement_keeps_he_and_she_out_of_a_cell_of_things():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, dropout=0.0, feature_width=4)
    #                  the park (inanimate)         Anna (feminine name)        "he"                      "it"
    attrs = _attributes([(0, 0, 0, 0, 0, 0, 0, 1), (1, 1, 0, 2, 0, 0, 1, 0), (-1, -1, 4, 1, 1, 0, 0, 0),
                         (-1, -1, 6, 3, 1, 0, 0, 0)])
    assert _disagreements(memory, attrs)[2] is None
    memory.animacy_agreement = True
    masks = _disagreements(memory, attrs)
    assert masks[2] == [[True, False, False]]   # "he" may not join the park; Anna is left to gender agreement
    assert masks[3] == [[False, False, False]]  # "it" is no he / she pronoun


def test_a_cell_of_things_stops_being_one_once_a_gendered_mention_joins():
    state = CellState(1, 2)
    one = numpy.array([True])
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[0, 0, 0, 0, 0, 0, 0, 1]]), numpy.array([2]),
                0.98, one)
    assert state.thing_only().tolist() == [[True, False]]
    state.apply(numpy.array([COREF]), numpy.array([0]), _padded([[-1, -1, 5, 2, 1, 0, 0, 0]]), numpy.array([4]),
                0.98, one)  # "she" joined (a ship, say): the cell is feminine now
    assert state.thing_only().tolist() == [[False, False]]
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[3, 3, 0, 0, 0, 0, 0, 1]]), numpy.array([6]),
                0.98, one)  # a new entity takes the cell: its gender is forgotten
    assert state.thing_only().tolist() == [[True, False]]


def test_put_writes_in_place_only_where_autograd_records_nothing():
    from spacy_entmem.nn.memory.mention_memory import put

    index = (torch.tensor([0]), torch.tensor([1]))
    memory = torch.zeros(1, 2, 3)
    with torch.no_grad():
        assert put(memory, index, torch.ones(1, 3)) is memory and memory[0, 1].tolist() == [1.0, 1.0, 1.0]
    values = torch.full((1, 3), 2.0, requires_grad=True)
    kept = torch.zeros(1, 2, 3)
    updated = put(kept, index, values)
    assert updated is not kept and kept.abs().sum() == 0  # training keeps the old memory for backprop
    updated.sum().backward()
    assert values.grad.tolist() == [[1.0, 1.0, 1.0]]


def _scores_and_output(memory, *inputs):
    """The inference output and the (mention, new-entity) scores its loop read."""
    seen = {}
    read_memory = memory.read_memory

    def spy(g, sim_token, mention_score, new_score, *rest, **kwargs):
        seen.setdefault("scores", (mention_score.clone(), new_score.clone()))
        return read_memory(g, sim_token, mention_score, new_score, *rest, **kwargs)

    memory.read_memory = spy
    try:
        with torch.no_grad():
            out = memory(*inputs)
    finally:
        del memory.read_memory
    return out, seen["scores"]


def test_pruned_candidates_are_skipped_and_every_other_decision_stays_the_same():
    torch.manual_seed(3)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, dropout=0.0, feature_width=4).eval()
    X, lengths, spans, n = _inputs(m=10, t=20)
    inputs = (X.repeat(2, 1, 1), torch.tensor([20, 14]), spans.repeat(2, 1, 1), torch.tensor([10, 7]),
              _plain(10).repeat(2, 1, 1))
    memory.new_entity_bias = 0.0
    full, (mention, new) = _scores_and_output(memory, *inputs)
    # the largest COREF score the unpruned loop saw, from its log: log p(COREF i) - log p(IGNORE) - s_m
    coref_scores = (full.coref.log() - (1 - full.entity).log()[..., None]) - mention[..., None]
    bound = float(coref_scores[torch.isfinite(coref_scores)].max()) + 0.01
    best = mention + torch.clamp(new, min=bound)
    memory.ignore_bias = float(best[0, :10].median())  # IGNORE beats both for about half the candidates
    full, _ = _scores_and_output(memory, *inputs)
    memory.pruning_bound = bound
    pruned_out, _ = _scores_and_output(memory, *inputs)

    pruned = pruned_out.pruned
    expected = (best < memory.ignore_bias).numpy() & (numpy.arange(10)[None, :] < numpy.array([[10], [7]]))
    assert numpy.array_equal(pruned, expected) and 0 < pruned.sum() < 17
    assert numpy.all(full.actions.numpy()[pruned] == IGNORE)  # the unpruned loop ignored them too
    assert torch.equal(pruned_out.actions, full.actions) and torch.equal(pruned_out.cells, full.cells)
    kept = torch.from_numpy(~pruned)
    assert torch.allclose(pruned_out.coref[kept], full.coref[kept], atol=1e-6)
    assert torch.all(pruned_out.entity[torch.from_numpy(pruned)] == 0)
    assert pruned_out.entity.shape == full.entity.shape and pruned_out.usage.shape == full.usage.shape


def test_pruning_is_off_in_training_and_for_forced_actions(memory):
    X, lengths, spans, n = _inputs()
    memory.pruning_bound, memory.ignore_bias = -100.0, 100.0  # would prune every candidate
    memory.eval()
    memory.forced_actions = numpy.full((1, 6), -1)
    with torch.no_grad():
        assert memory(X, lengths, spans, n, _plain(6)).pruned is None
    memory.forced_actions = None
    with torch.no_grad():
        assert memory(X, lengths, spans, n, _plain(6)).pruned.all()
    out = memory.train()(X, lengths, spans, n, _plain(6), torch.tensor([[0, -1, 1, 2, 1, 0]]))
    assert out.pruned is None and out.actions.tolist()[0][0] == OVERWRITE


def _row(pronoun_class=0, quoted=0, norm=0):
    """One candidate's attributes: a pronoun of ``pronoun_class`` (1: I / me / my) or a nominal with ``norm``."""
    row = (-1, -1, pronoun_class, 0, 1, quoted, 0, 0, 0) if pronoun_class else (norm, norm, 0, 0, 0, quoted, 0, 0, 0)
    return row + PADDING_ATTRIBUTES[len(row):]


def test_a_cell_is_the_narrators_once_an_unquoted_i_joins_and_forgets_it_when_overwritten():
    state = CellState(1, 3)
    one = numpy.array([True])

    def apply(action, cell, attrs, end):
        state.apply(numpy.array([action]), numpy.array([cell]), numpy.array([attrs]), numpy.array([end]), 0.98, one)

    apply(OVERWRITE, 0, _row(1, quoted=1), 1)  # a quoted "I": a speaker, not the narrator
    apply(OVERWRITE, 1, _row(norm=5), 3)       # "the house"
    assert (state.narrator > 0).tolist() == [[False, False, False]]
    apply(COREF, 1, _row(1), 5)                # an unquoted "my" joined the house's cell
    apply(OVERWRITE, 2, _row(1), 7)            # another unquoted "I" started a cell of its own
    assert (state.narrator > 0).tolist() == [[False, True, True]]
    unquoted_i, quoted_i, he = numpy.array([_row(1)]), numpy.array([_row(1, quoted=1)]), numpy.array([_row(4)])
    assert state.narrator_cell(unquoted_i, one).tolist() == [2]  # the most recently used narrator cell
    assert state.narrator_cell(quoted_i, one).tolist() == [-1]
    assert state.narrator_cell(he, one).tolist() == [-1]
    assert state.narrator_cell(unquoted_i, numpy.array([False])).tolist() == [-1]  # padding
    apply(OVERWRITE, 2, _row(norm=6), 9)       # a new entity takes cell 2: it is no narrator's cell now
    assert (state.narrator > 0).tolist() == [[False, True, False]]
    assert state.narrator_cell(unquoted_i, one).tolist() == [1]


def test_narrator_continuity_joins_every_unquoted_i_to_the_narrators_cell_and_leaves_quoted_ones_alone():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4).eval()
    X, lengths, spans, n = _inputs(m=6, t=12)
    # "I" ... "the door" ... "my" ... "I" (quoted) ... "me" ... "I"
    attrs = _attributes([_row(1), _row(norm=3), _row(1), _row(1, quoted=1), _row(1), _row(1)])
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # every candidate a mention, and a new entity
    with torch.no_grad():
        free = memory(X, lengths, spans, n, attrs)
    assert free.actions.tolist() == [[OVERWRITE] * 6]
    memory.narrator_continuity = True
    with torch.no_grad():
        ruled = memory(X, lengths, spans, n, attrs)
    assert ruled.actions.tolist() == [[OVERWRITE, OVERWRITE, COREF, OVERWRITE, COREF, COREF]]
    assert ruled.cells.tolist() == [[0, 1, 0, 2, 0, 0]]
    # the rule yields to a k-best list's forced action
    memory.forced_actions = numpy.array([[-1, -1, -1, -1, 1, -1]])
    with torch.no_grad():
        forced = memory(X, lengths, spans, n, attrs)
    assert forced.actions.tolist()[0][4] == OVERWRITE and forced.actions.tolist()[0][5] == COREF
    assert forced.cells.tolist()[0][5] == forced.cells.tolist()[0][4]  # the newest narrator cell


@pytest.mark.parametrize("rule, first, second, kept", [
    ("narrator_continuity", _row(1), _row(norm=3), [False, True, True, False, True, False]),  # unquoted I's
    ("speaker_continuity", _row(norm=3), (-1, -1, 1, 0, 1, 1, 0, 0, 0, -1, 0, -1, -1, -1, 0, 1),
     [True, False, True, True, True, True]),  # the quoted I with a speaker
    ("apposition_continuity", _row(norm=3), (5, 5, 0, 0, 0, 0, 1, 0, 0, -1, 0, 5, -1, -1, -1, -1, 0, 1),
     [True, False, True, True, True, True]),  # the name apposed to candidate 0
])
def test_pruning_never_skips_the_pronouns_a_continuity_rule_may_join(memory, rule, first, second, kept):
    X, lengths, spans, n = _inputs()
    attrs = _attributes([first, second, _row(1, quoted=1), _row(1), _row(4), _row(1)])
    memory.eval()
    memory.pruning_bound, memory.ignore_bias = -100.0, 100.0  # would prune every candidate
    setattr(memory, rule, True)
    with torch.no_grad():
        out = memory(X, lengths, spans, n, attrs)
    assert out.pruned.tolist() == [kept]
    assert out.actions.tolist() == [[IGNORE] * 6]  # no narrator cell yet; the speaker (candidate 0) was pruned


def test_a_cell_keeps_the_numbers_of_its_nouns_until_it_is_overwritten():
    state = CellState(1, 2)
    one = numpy.array([True])
    #                   magnetism (singular noun)          the experiments (plural noun)
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([(0, 0, 0, 0, 0, 0, 0, 0, 1)]), numpy.array([2]),
                0.98, one)
    state.apply(numpy.array([COREF]), numpy.array([0]), _padded([(1, 1, 0, 0, 0, 0, 0, 0, 2)]), numpy.array([4]),
                0.98, one)
    assert state.noun_numbers.tolist() == [[3, 0]]  # bits: 1 singular, 2 plural
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([(2, 2, 0, 0, 0, 0, 0, 0, 2)]), numpy.array([6]),
                0.98, one)
    assert state.noun_numbers.tolist() == [[2, 0]]


def test_noun_number_agreement_keeps_they_out_of_a_cell_of_singular_nouns_until_a_pronoun_sets_its_number():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    #                   magnetism (singular)         the experiments (plural)       "they"
    attrs = _attributes([(0, 0, 0, 0, 0, 0, 0, 0, 1), (1, 1, 0, 0, 0, 0, 0, 0, 2), (-1, -1, 7, 0, 2, 0, 0, 0),
                         (-1, -1, 6, 3, 1, 0, 0, 0), (-1, -1, 1, 0, 1, 0, 0, 0)])
    #                    "it" (singular, 3rd person)   "I" (singular, 1st person)
    assert _disagreements(memory, attrs)[2] is None
    memory.noun_number_agreement = True
    masks = _disagreements(memory, attrs)
    assert masks[2] == [[True, False, False, False]]  # "they": not magnetism; the experiments are plural
    # "it": not the experiments; "they" set its own cell's number, so the nouns no longer decide there
    assert masks[3] == [[False, True, False, False]]
    assert masks[4] == [[False, False, False, False]]  # first and second person are not constrained


def test_plural_noun_agreement_keeps_a_plural_common_noun_out_of_cells_only_singular_mentions_joined():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=6, mlp_width=8, dropout=0.0, feature_width=4)
    attrs = _attributes([(0, 0, 0, 0, 0, 0, 0, 0, 1),  # the mayor (singular noun)
                         (1, 1, 0, 0, 0, 0, 0, 0, 2),  # the students (plural noun)
                         (-1, -1, 5, 2, 1, 0, 0, 0),  # "her" (singular pronoun)
                         (2, 2, 0, 0, 0, 0, 1, 0, 2),  # the United States (a name tagged plural)
                         (3, 3, 0, 0, 0, 0, 0, 0, 2),  # Critics (plural noun)
                         (4, 4, 0, 0, 0, 0, 0, 0, 1)])  # the plan (singular noun)
    assert _disagreements(memory, attrs)[4] is None
    memory.plural_noun_agreement = True
    masks = _disagreements(memory, attrs)
    assert masks[1] == [[True, False, False, False, False, False]]  # not the mayor
    assert masks[3] == [[False] * 6]  # names are left alone
    assert masks[4] == [[True, False, True, False, False, False]]  # not the mayor, not "her"; the students may
    assert masks[5] == [[False] * 6]  # a singular noun is left alone ("the family" may join "they")


def test_plural_noun_agreement_keeps_a_singular_name_out_of_cells_only_plural_mentions_joined():
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=6, mlp_width=8, dropout=0.0, feature_width=4)
    they, he = (-1, -1, 7, 0, 2, 0, 0, 0), (-1, -1, 4, 1, 1, 0, 0, 0)  # plural and masculine pronouns
    attrs = _attributes([they,  # "they" (the Darlings)
                         (0, 0, 0, 0, 0, 0, 0, 0, 2),  # the children (plural noun)
                         he,  # "he" (a masculine pronoun: a person's cell)
                         (1, 1, 0, 0, 0, 0, 0, 0, 1),  # the family (singular noun)
                         (2, 5, 0, 1, 0, 0, 1, 0, 1, -1, 1, 5, -1, -1),  # Mr. Darling (a singular name)
                         (3, 3, 0, 0, 0, 0, 1, 0, 1, -1, 0, -1, -1, -1)])  # Greek civilization (no name head)
    memory.plural_noun_agreement = True
    with switched_off("names_not_plural"):
        assert _disagreements(memory, attrs)[4] == [[False] * 6]
    masks = _disagreements(memory, attrs)
    assert masks[4] == [[True, True, False, False, False, False]]  # not "they", not "the children"
    assert masks[5] == [[False] * 6]  # a capitalised phrase whose head is no name word is left alone


def _rule_memory(n_cells, beam_width):
    """A small memory in eval mode that, left to itself, takes every candidate for a new entity's mention (so
    only a continuity rule can make it join a cell)."""
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=n_cells, mlp_width=8, dropout=0.0,
                           feature_width=4).eval()
    memory.beam_width = beam_width
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0
    return memory


def _quoted(pronoun_class, span):
    """A quoted pronoun (class 1: I, 3: you) whose quotation's speaker (for I) or addressee (for you) is the
    candidate span ``span``."""
    return (-1, -1, pronoun_class, 0, int(pronoun_class == 1), 1, 0, 0, 0, -1, 0, -1, -1, -1) + tuple(span)


def _speaking_i(speaker):
    return _quoted(1, speaker)


def _name(norm, word):
    """A one-word name: its norm, head and first name word ``word``."""
    return (norm, word, 0, 0, 0, 0, 1, 0, 0, -1, 0, word, -1, -1)


@pytest.mark.parametrize("beam_width", [1, 3])  # greedy reading and beam search
def test_speaker_continuity_joins_a_quoted_i_to_its_speaker_read_before_or_named_after(beam_width):
    memory = _rule_memory(5, beam_width)
    X, lengths, spans, n = _inputs(m=6, t=24)  # candidate k spans [2k, 2k + 1)
    harry, ron = _name(0, 10), _name(1, 11)
    # Harry, Ron, "I" (… said Harry: candidate 4), "me" (Ron said, …: candidate 1), Harry, "I" (speaker no candidate)
    attrs = _attributes([harry, ron, _speaking_i((8, 9)), _speaking_i((2, 3)), harry, _speaking_i((20, 21))])
    with torch.no_grad():
        assert memory(X, lengths, spans, n, attrs).actions.tolist() == [[OVERWRITE] * 6]
        memory.speaker_continuity = True
        ruled = memory(X, lengths, spans, n, attrs)
    assert ruled.actions.tolist() == [[OVERWRITE, OVERWRITE, COREF, COREF, OVERWRITE, OVERWRITE]]
    cells = ruled.cells.tolist()[0]
    assert cells[2] == cells[0] and cells[3] == cells[1]  # Harry's cell by his name, Ron's by his step


@pytest.mark.parametrize("beam_width", [1, 3])  # greedy reading and beam search
def test_a_speaker_named_after_the_quotation_joins_the_entity_its_i_began_and_you_joins_the_addressee(beam_width):
    memory = _rule_memory(5, beam_width)
    X, lengths, spans, n = _inputs(m=4, t=16)  # candidate k spans [2k, 2k + 1)
    # “I …,” Robert told Sarah. “You …,” (Sarah replied): the I's speaker is Robert, named after it; the you's
    # addressee is Robert
    attrs = _attributes([_speaking_i((2, 3)), _name(0, 10), _name(1, 11), _quoted(3, (2, 3))])
    memory.speaker_continuity = True
    with torch.no_grad():
        ruled = memory(X, lengths, spans, n, attrs)
        with switched_off("later_leaders"):
            unfollowed = memory(X, lengths, spans, n, attrs)
    assert ruled.actions.tolist() == [[OVERWRITE, COREF, OVERWRITE, COREF]]
    cells = ruled.cells.tolist()[0]
    assert cells[1] == cells[0] == cells[3] != cells[2]  # I, Robert and you one entity; Sarah another
    assert unfollowed.actions.tolist()[0][1] == OVERWRITE  # without the rule Robert is a new entity


def _apposed_name(norm, nominal, gender=0):
    """A name (norm and name word ``norm``) in apposition with the candidate span ``nominal``."""
    return (norm, norm, 0, gender, 0, 0, 1, 0, 0, -1, 0, norm, -1, -1, -1, -1) + tuple(nominal)


@pytest.mark.parametrize("beam_width", [1, 3])  # greedy reading and beam search
def test_apposition_continuity_joins_a_name_to_the_nominal_right_before_it(beam_width):
    memory = _rule_memory(5, beam_width)
    X, lengths, spans, n = _inputs(m=5, t=20)  # candidate k spans [2k, 2k + 1)
    sister, brother = (1, 1, 0, 2, 0, 0, 0, 0, 1), (2, 2, 0, 1, 0, 0, 0, 0, 1)  # feminine and masculine nominals
    # her sister, Jane (apposed to her sister), the door, his brother, Jane (a feminine name apposed to his brother)
    attrs = _attributes([sister, _apposed_name(10, (0, 1)), (3, 3, 0, 0, 0, 0, 0, 0, 1), brother,
                         _apposed_name(11, (6, 7), gender=2)])
    with torch.no_grad():
        assert memory(X, lengths, spans, n, attrs).actions.tolist() == [[OVERWRITE] * 5]
        memory.apposition_continuity = True
        ruled = memory(X, lengths, spans, n, attrs)
        memory.name_agreement = True  # a feminine name does not join "his brother"
        agreeing = memory(X, lengths, spans, n, attrs)
    assert ruled.actions.tolist() == [[OVERWRITE, COREF, OVERWRITE, OVERWRITE, COREF]]
    assert ruled.cells.tolist()[0][1] == ruled.cells.tolist()[0][0]
    assert ruled.cells.tolist()[0][4] == ruled.cells.tolist()[0][3]
    assert agreeing.actions.tolist() == [[OVERWRITE, COREF, OVERWRITE, OVERWRITE, OVERWRITE]]


@pytest.mark.parametrize("beam_width", [1, 2])
def test_speaker_continuity_follows_the_speakers_entity_not_its_evicted_cell(beam_width):
    memory = _rule_memory(1, beam_width)
    X, lengths, spans, n = _inputs(m=3, t=8)
    ron, door = (1, 11, 0, 0, 0, 0, 1, 0, 0, -1, 0, 11, -1, -1), (2, 2, 0, 0, 0, 0, 0, 0)
    attrs = _attributes([ron, door, _speaking_i((0, 1))])  # the door evicts Ron from the only cell
    memory.speaker_continuity = True
    with torch.no_grad():
        out = memory(X, lengths, spans, n, attrs)
    assert out.actions.tolist() == [[OVERWRITE, OVERWRITE, OVERWRITE]]  # not the door's cell



def _columns(**columns):
    """One candidate's attributes (padding elsewhere) with the named columns set."""
    row = numpy.array(PADDING_ATTRIBUTES, dtype="int64")
    for name, value in columns.items():
        target = getattr(attribute_columns, name.upper())
        row[target] = value
    return row[None]


def _state_with(*rows):
    """A one-document state where candidate k (attributes rows[k]) began an entity in cell k."""
    state = CellState(1, len(rows))
    for k, attrs in enumerate(rows):
        state.apply(numpy.array([OVERWRITE]), numpy.array([k]), attrs, numpy.array([k + 1]), 0.98, numpy.array([True]))
    return state


def test_a_candidate_never_joins_a_cell_holding_a_noun_phrase_the_parse_rules_out():
    state = _state_with(_columns(root=1), _columns(root=4))  # "The pilot" (root 1), "the mechanic" (root 4)
    him = _columns(pronoun=5, root=7, forbidden=[1, -1, -1, -1])
    clash = state.syntax_clash(him, numpy.array([0, 0]), numpy.array([0, 1]))
    assert clash.tolist() == [True, False]


def test_a_reflexive_joins_its_binders_cell():
    state = _state_with(_columns(root=0), _columns(root=3))
    himself = _columns(pronoun=5, root=5, binder=3)
    assert state.binder_cell(himself, numpy.array([True])).tolist() == [1]
    assert state.binder_cell(_columns(pronoun=5, root=5), numpy.array([True])).tolist() == [-1]


def test_persons_of_one_turn_never_share_a_cell():
    state = _state_with(_columns(person=1, turn=4), _columns(person=0, turn=4))  # "I", "Dana" in Lee's turn
    she = _columns(pronoun=5, person=3, turn=4)  # pronoun class 5: she / her
    assert state.person_clash(she, numpy.array([0, 0]), numpy.array([0, 1])).tolist() == [True, False]
    later = _columns(pronoun=5, person=3, turn=5)  # another turn: no constraint
    assert state.person_clash(later, numpy.array([0]), numpy.array([0])).tolist() == [False]


def test_a_you_with_no_addressee_and_a_third_person_never_share_a_cell():
    from spacy_entmem.linguistics.values import READER

    state = _state_with(_columns(pronoun=3, person=READER, turn=0), _columns(person=0, turn=1))  # "you", "Tom"
    he = _columns(pronoun=4, person=3, turn=2)  # another turn: still no one "you" stands for
    assert state.person_clash(he, numpy.array([0, 0]), numpy.array([0, 1])).tolist() == [True, False]
    you = _columns(pronoun=3, person=READER, turn=3)
    assert state.person_clash(you, numpy.array([0, 0]), numpy.array([0, 1])).tolist() == [False, True]
    addressed = _columns(pronoun=3, person=2, turn=3)  # a you with an addressee: the memory decides
    assert state.person_clash(addressed, numpy.array([0, 0]), numpy.array([0, 1])).tolist() == [False, False]


def test_a_cell_of_time_expressions_only():
    from spacy_entmem.linguistics.cell_rules import TIME_EXPRESSION

    state = _state_with(_columns(inanimate=TIME_EXPRESSION), _columns(inanimate=1))
    assert state.time_only().tolist() == [[True, False]]


def test_a_time_expression_never_joins_a_cell_holding_a_person(monkeypatch):
    from spacy_entmem.linguistics.cell_rules import TIME_EXPRESSION
    from spacy_entmem.linguistics.values import FIRST_SINGULAR

    #                   "me" (an I)                                      "the gardener"           "the bank"
    rows = [_named_row(pronoun=FIRST_SINGULAR, person=1, root=1), GARDENER, SWAMP,
            _named_row(norm=7, head=7, inanimate=TIME_EXPRESSION, root=9)]  # "yesterday"
    assert _state_with(*[numpy.array(row)[None] for row in rows[:3]]).holds_person().tolist() == [[True, True, False]]
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    memory.animacy_agreement = True
    assert _disagreements(memory, _attributes(rows))[-1][0][:3] == [True, True, False]
    with switched_off("times_are_nobody"):  # the ablation's switch
        assert _disagreements(memory, _attributes(rows))[-1][0][:3] == [False, False, False]


def test_it_never_joins_a_cell_holding_a_speaker_or_an_addressee():
    state = _state_with(_columns(person=1, turn=0), _columns(person=0, turn=0))  # "I", "the bakery"
    it = _columns(pronoun=6, turn=3)  # another turn: still not the speaker
    assert state.person_clash(it, numpy.array([0, 0]), numpy.array([0, 1])).tolist() == [True, False]


def test_an_unnamed_narrator_is_never_a_name_the_narration_gives_nor_its_first_i_a_third_persons_cell():
    """First-person narration: "Dr. Livesey came" names someone else, never the narrator; the narrator's first
    "I" joins no cell of third persons only; a quoted "Jim" (said to the narrator) may join the narrator."""
    narrator_i = _columns(pronoun=1, person=1, voice=0, turn=0)
    livesey = _columns(norm=5, head=5, name_words=[5, -1, -1], proper=1, voice=0, turn=0)
    jim = _columns(norm=6, head=6, name_words=[6, -1, -1], proper=1, quoted=1, voice=0, turn=1)
    state = _state_with(narrator_i, livesey)
    rows, cells = numpy.array([0, 0]), numpy.array([0, 1])
    assert state.person_clash(livesey, rows, cells).tolist() == [True, False]
    assert state.person_clash(jim, rows, cells).tolist() == [False, False]
    fresh = _state_with(livesey, _columns(norm=7, head=7, voice=0))  # "Dr. Livesey", "the house"
    assert fresh.person_clash(narrator_i, rows, cells).tolist() == [True, True]
    with switched_off("narrator_unnamed"):
        assert state.person_clash(livesey, rows, cells).tolist() == [False, False]
        assert fresh.person_clash(narrator_i, rows, cells).tolist() == [False, False]


def test_the_name_that_signs_a_letter_joins_the_writers_i_and_is_no_name_the_narration_gives():
    """"I read it … Best, Daniel": the signature (a name of the first person outside quotation marks) joins the
    cell of the unnamed narrator's I; a name the narration gives ("Mr. Chen") does not, and is kept out of it."""
    narrator_i = _columns(pronoun=1, person=1, voice=0, turn=0)
    chen = _columns(norm=5, head=5, name_words=[5, -1, -1], proper=1, voice=0, turn=0)
    daniel = _columns(norm=6, head=6, name_words=[6, -1, -1], proper=1, person=1, voice=0, turn=0)
    state = _state_with(chen, narrator_i)
    one = numpy.array([True])
    assert state.narrator_cell(daniel, one).tolist() == [1]
    assert state.narrator_cell(chen, one).tolist() == [-1]
    rows, cells = numpy.array([0, 0]), numpy.array([0, 1])
    assert state.person_clash(daniel, rows, cells).tolist()[1] is False  # the writer's own cell
    assert state.person_clash(chen, rows, cells).tolist() == [False, True]
    assert _state_with(chen, chen).narrator_cell(daniel, one).tolist() == [-1]  # no I yet: no cell to join
    with switched_off("narrator_unnamed"):
        assert state.person_clash(chen, rows, cells).tolist() == [False, False]


@pytest.mark.parametrize("beam_width", [1, 3])  # greedy reading and beam search
def test_a_vocative_joins_its_quotations_addressee(beam_width):
    memory = _rule_memory(5, beam_width)
    X, lengths, spans, n = _inputs(m=3, t=12)  # candidate k spans [2k, 2k + 1)
    # "I" (the narrator, said I, …), the doctor, “Jim,” (addressed to the narrator's I: candidate 0)
    jim = (1, 11, 0, 0, 0, 1, 1, 0, 0, -1, 0, 11, -1, -1, 0, 1)
    attrs = _attributes([_row(1), _row(norm=3), jim])
    memory.speaker_continuity = True
    with torch.no_grad():
        ruled = memory(X, lengths, spans, n, attrs)
        with switched_off("vocatives"):  # (the switch is read off the text: the attributes carry the addressee)
            assert memory(X, lengths, spans, n, attrs).actions.tolist() == ruled.actions.tolist()
        memory.speaker_continuity = False
        free = memory(X, lengths, spans, n, attrs)
    assert free.actions.tolist() == [[OVERWRITE] * 3]
    assert ruled.actions.tolist() == [[OVERWRITE, OVERWRITE, COREF]]
    assert ruled.cells.tolist()[0][2] == ruled.cells.tolist()[0][0]


def _named_row(**columns):
    """One candidate's attributes: padding but the named columns (``ATTRIBUTE_FIELDS`` names)."""
    row = list(PADDING_ATTRIBUTES)
    for name, value in columns.items():
        row[ATTRIBUTE_FIELDS.index(name)] = value
    return tuple(row)


GARDENER = _named_row(norm=1, head=1, inanimate=PERSON_NOUN, noun_number=1, root=3)  # "the gardener"
SWAMP = _named_row(norm=2, head=2, noun_number=1, root=3)  # "the swamp": no noun for people
MARIA = _named_row(norm=3, head=3, gender=2, proper=1, noun_number=1, root=1)  # a feminine name


def _they(reporter=-1):
    return _named_row(pronoun=THEY, number=2, root=9, reporter=reporter)


@pytest.mark.parametrize("rows, allowed, reported_allowed", [
    ([GARDENER, _they()], True, True),  # the one person near: "A gardener called. They …"
    ([SWAMP, _they()], False, False),  # not a person
    ([MARIA, GARDENER, _they()], False, False),  # two people near, and no reported clause
    ([MARIA, GARDENER, _they(reporter=3)], False, True),  # "Maria hired a gardener. The gardener said that they …"
    ([MARIA, SWAMP, _they(reporter=3)], False, False),  # the reporter is no person
    ([MARIA, GARDENER, _they(reporter=7)], False, False),  # reported by someone this cell does not hold
])
def test_singular_they_lifts_number_agreement_for_one_person_or_the_one_it_is_reported_by(
        rows, allowed, reported_allowed):
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    memory.noun_number_agreement = True
    attrs = _attributes(rows)
    person_cell = len(rows) - 2  # the cell the noun before "they" took
    assert _disagreements(memory, attrs)[-1][0][person_cell] is True  # noun number agreement alone: never
    memory.singular_they = True
    with switched_off("reported_they"):
        assert _disagreements(memory, attrs)[-1][0][person_cell] is (not allowed)
    assert _disagreements(memory, attrs)[-1][0][person_cell] is (not reported_allowed)


@pytest.mark.parametrize("rows, joins", [
    ([GARDENER, _they()], True),  # "A gardener called. They …": the one person near
    ([MARIA, GARDENER, _they(reporter=3)], True),  # "… The gardener said that they …"
    ([MARIA, GARDENER, _they()], False),  # two people near: the model decides
    ([SWAMP, _they()], False),  # no person
])
def test_a_singular_they_joins_its_one_person_rather_than_beginning_an_entity(rows, joins):
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    memory.noun_number_agreement = memory.singular_they = True
    attrs = _attributes(rows)
    X, lengths, spans, n = _inputs(m=attrs.shape[1], t=max(6, 2 * attrs.shape[1]))
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # left to the model, every candidate begins an entity
    memory.eval()
    with torch.no_grad():
        out = memory(X, lengths, spans, n, attrs)
        with switched_off("they_joins"):
            free = memory(X, lengths, spans, n, attrs)
    assert int(free.actions[0, -1]) == OVERWRITE
    person_cell = len(rows) - 2
    assert (int(out.actions[0, -1]) == COREF and int(out.cells[0, -1]) == person_cell) is joins
    assert out.actions[0, :-1].tolist() == free.actions[0, :-1].tolist()


VOLUNTEERS = _named_row(norm=4, head=4, inanimate=PERSON_NOUN, noun_number=2, root=3)  # "the volunteers"
BOXES = _named_row(norm=5, head=5, noun_number=2, root=3)  # "the boxes": plural, no people


@pytest.mark.parametrize("rows, window, cell", [
    ([VOLUNTEERS, _they()], 15, 0),  # "George met the volunteers. They …"
    ([MARIA, VOLUNTEERS, _they()], 15, 1),  # the plural people, not Maria
    ([BOXES, _they()], 15, -1),  # plural, but no people: the model decides
    ([GARDENER, _they(reporter=5)], 15, -1),  # one person, not plural (a singular they is another rule's)
    ([VOLUNTEERS, _they()], 0, -1),  # mentioned farther back than the window
])
def test_a_they_the_model_would_begin_an_entity_with_joins_the_plural_people_near(rows, window, cell):
    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, dropout=0.0, feature_width=4)
    attrs = _attributes(rows)
    X, lengths, spans, n = _inputs(m=attrs.shape[1], t=max(6, 2 * attrs.shape[1]))
    memory.ignore_bias, memory.new_entity_bias = -50.0, 50.0  # left to the model, every candidate begins an entity
    memory.eval()
    with torch.no_grad(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(mention_memory, "PLURAL_THEY_WINDOW", window)
        out = memory(X, lengths, spans, n, attrs)
        with switched_off("plural_they"):
            free = memory(X, lengths, spans, n, attrs)
    assert int(free.actions[0, -1]) == OVERWRITE
    assert (int(out.cells[0, -1]) if int(out.actions[0, -1]) == COREF else -1) == cell
    assert out.actions[0, :-1].tolist() == free.actions[0, :-1].tolist()


def _with_parse(rows):
    """``_padded`` rows with (root, binder, role, sentence) set per candidate: rows of (base row, root, binder,
    role, sentence)."""
    out = _padded([row for row, *_ in rows])
    for k, (_, root, binder, role, sentence) in enumerate(rows):
        out[k, attribute_columns.ROOT], out[k, attribute_columns.BINDER] = root, binder
        out[k, attribute_columns.ROLE], out[k, attribute_columns.SENTENCE] = role, sentence
    return out


def test_parse_pair_features_give_roles_sentence_distance_and_binding():
    from spacy_entmem.linguistics.syntax import OBJECT, SUBJECT

    state = CellState(1, 2)
    earlier = _with_parse([((0, 0, 0, 0, 0, 0, 1, 0), 0, -1, SUBJECT, 0), ((1, 1, 0, 0, 0, 0, 1, 0), 2, -1, OBJECT, 1)])
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), earlier[:1], numpy.array([1]), 0.98, numpy.array([True]))
    state.apply(numpy.array([OVERWRITE]), numpy.array([1]), earlier[1:], numpy.array([3]), 0.98, numpy.array([True]))
    # "him" (object, sentence 4) whose parse rules out the noun phrase rooted at token 0: far from both cells
    him = _with_parse([((-1, -1, 4, 1, 1, 0, 0, 0), 9, -1, OBJECT, 4)])
    him[0, attribute_columns.FORBIDDEN.start] = 0
    rows, cells = numpy.array([0, 0]), numpy.array([0, 1])
    features = state.parse_pair_features(him, rows, cells, state.syntax_clash(him, rows, cells))
    assert features.tolist() == [[OBJECT, SUBJECT, 4, 1], [OBJECT, OBJECT, 4, 0]]
    # "himself" bound by token 2, in sentence 1: the same sentence as cell 1's mention
    himself = _with_parse([((-1, -1, 4, 1, 1, 0, 0, 0), 5, 2, OBJECT, 1)])
    features = state.parse_pair_features(himself, rows, cells, state.syntax_clash(himself, rows, cells))
    assert features[:, 2:].tolist() == [[2, 0], [1, 2]]
    unknown = _with_parse([((-1, -1, 4, 1, 1, 0, 0, 0), 5, -1, 0, -1)])  # no parse: roles 0, distance unknown
    one = numpy.array([0]), numpy.array([1])
    assert state.parse_pair_features(unknown, *one, state.syntax_clash(unknown, *one)).tolist() == [[0, OBJECT, 0, 0]]


def test_a_memory_without_parse_features_loads_into_one_with_them_and_scores_the_same():
    torch.manual_seed(0)
    plain = MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4)
    parsed = MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4,
                           parse_features=True)
    parsed.load_state_dict(plain.state_dict())
    assert len(parsed.pair_embeddings) == len(plain.pair_embeddings) + len(cell_rules.PARSE_FEATURE_SIZES)
    X, lengths, spans, n = _inputs(m=3, t=6)
    attrs = torch.from_numpy(_with_parse([((0, 0, 0, 0, 0, 0, 1, 0), 0, -1, 1, 0), ((1, 1, 0, 0, 0, 0, 1, 0), 2, -1, 2, 0),
                                          ((-1, -1, 4, 1, 1, 0, 0, 0), 4, -1, 2, 1)]))[None]
    for m in (plain, parsed):
        m.eval()
        m.ignore_bias = -50.0
    with torch.no_grad():
        assert torch.allclose(plain(X, lengths, spans, n, attrs).coref, parsed(X, lengths, spans, n, attrs).coref)
        # once their first-layer columns move, the parse features change the scores
        parsed.similarity_mlp.memory_projs[2].weight.add_(1.0)
        assert not torch.allclose(plain(X, lengths, spans, n, attrs).coref, parsed(X, lengths, spans, n, attrs).coref)


def test_a_checkpoint_missing_other_weights_still_fails_to_load():
    torch.manual_seed(0)
    plain = MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4)
    state = {k: v for k, v in plain.state_dict().items() if not k.startswith("update_gate")}
    with pytest.raises(RuntimeError, match="update_gate"):
        MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4,
                      parse_features=True).load_state_dict(state)


def _complemented(norm, head, *complement):
    """A name's attribute row ("the Witch of the North": head "witch", complement "north") with its "of" words."""
    row = _padded([[norm, head, 0, 0, 0, 0, 1, 0, 1, -1, 0, head, -1, -1]])
    row[0, attribute_columns.OF_WORDS] = list(complement) + [-1] * (attribute_columns.N_OF_WORDS - len(complement))
    return row


def test_names_whose_of_complements_share_no_word_never_join_and_the_archive_keeps_them_apart():
    witch, queen, west, north, field, mice = 7, 8, 20, 21, 22, 23
    state = CellState(1, 2)
    one = numpy.array([True])
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _complemented(1, witch, west), numpy.array([6]), 0.98, one)
    state.apply(numpy.array([OVERWRITE]), numpy.array([1]), _complemented(2, queen, field, mice), numpy.array([9]),
                0.98, one)
    rows, cells = numpy.array([0, 0]), numpy.array([0, 1])
    assert state.name_clash(_complemented(3, witch, north), rows, cells).tolist() == [True, False]
    assert state.name_clash(_complemented(4, queen, mice), rows, cells).tolist() == [False, False]  # a shared word
    assert state.name_clash(_padded([[5, witch, 0, 0, 0, 0, 1, 0, 1, -1, 0, witch, -1, -1]]), rows,
                            cells).tolist() == [False, False]  # the bare "the Witch" may be either
    with switched_off("of_names_apart"):
        assert state.name_clash(_complemented(3, witch, north), rows, cells).tolist() == [False, False]
    archived = mention_memory.archive_cell(state, 0, 0, numpy.zeros(4))
    assert not mention_memory.archived_match(archived, _complemented(3, witch, north)[0])
    assert mention_memory.archived_match(archived, _complemented(3, witch, west)[0])


def test_a_name_of_two_words_never_joins_a_cell_whose_names_share_none_of_them():
    long, john, tom, morgan, silver = 30, 31, 32, 33, 34
    state = CellState(1, 2)
    state.apply(numpy.array([OVERWRITE]), numpy.array([0]), _padded([[1, john, 0, 1, 0, 0, 1, 0, 1, -1, 0, long, john,
                                                                     -1]]), numpy.array([2]), 0.98, numpy.array([True]))
    rows, cells = numpy.array([0, 0]), numpy.array([0, 1])  # cell 1 is empty: it holds no names

    def name(*words):
        return _padded([[2, words[-1], 0, 0, 0, 0, 1, 0, 1, -1, 0] + list(words) + [-1] * (3 - len(words))])

    assert state.name_clash(name(tom, morgan), rows, cells).tolist() == [True, False]  # "Tom Morgan", "Long John"
    assert state.name_clash(name(john, silver), rows, cells).tolist() == [False, False]  # a word shared
    assert state.name_clash(name(morgan), rows, cells).tolist() == [False, False]  # one word may be a nickname
    with switched_off("full_names_apart"):
        assert state.name_clash(name(tom, morgan), rows, cells).tolist() == [False, False]
