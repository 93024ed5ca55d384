import numpy
import pytest
import torch

from spacy_entmem.pipeline.memory_log import span_link_probability
from spacy_entmem.nn.losses import memory_loss
from spacy_entmem.training.targets import DocSupervision, SpanPair
from spacy_entmem.nn.memory.petra import PetraMemory, log_link_probability


@pytest.fixture
def module():
    torch.manual_seed(0)
    m = PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8)
    return m.eval()


def test_output_shapes_and_masks(module):
    X = torch.randn(2, 5, 6)
    lengths = torch.tensor([5, 3])
    with torch.no_grad():
        out = module(X, lengths)
    assert out.entity.shape == (2, 5)
    assert out.overwrite.shape == out.coref.shape == out.usage.shape == (2, 5, 3)
    assert torch.all(out.entity[1, 3:] == 0) and torch.all(out.overwrite[1, 3:] == 0)
    # c_i and the new-entity mass share e_t; overwrite puts all of n_t on one cell at inference
    total = out.coref.sum(-1) + out.overwrite.sum(-1)
    assert torch.allclose(total, out.entity, atol=1e-6)
    assert torch.all((out.overwrite > 0).sum(-1) <= 1)


def test_padding_does_not_change_a_document(module):
    X = torch.randn(1, 4, 6)
    padded = torch.cat([X, torch.randn(1, 3, 6)], dim=1)
    with torch.no_grad():
        alone = module(X, torch.tensor([4]))
        batched = module(torch.cat([padded, torch.randn(1, 7, 6)]), torch.tensor([4, 7]))
    assert torch.allclose(alone.coref[0], batched.coref[0, :4], atol=1e-6)
    assert torch.allclose(alone.overwrite[0], batched.overwrite[0, :4], atol=1e-6)


def test_first_entity_overwrites_an_empty_cell_and_ties_go_to_lowest_index(module):
    X = torch.randn(1, 1, 6)
    with torch.no_grad():
        out = module(X, torch.tensor([1]))
    # nothing is in memory: no coreference mass, and the overwrite goes to cell 0 (all usages tie at 0)
    assert torch.all(out.coref == 0)
    assert out.overwrite[0, 0, 0] > 0 and torch.all(out.overwrite[0, 0, 1:] == 0)


def test_inference_is_deterministic_and_training_is_stochastic(module):
    X = torch.randn(1, 6, 6)
    with torch.no_grad():
        a, b = module(X, torch.tensor([6])), module(X, torch.tensor([6]))
        assert torch.equal(a.overwrite, b.overwrite)
        module.train()
        c, d = module(X, torch.tensor([6])), module(X, torch.tensor([6]))
        assert not torch.equal(c.overwrite, d.overwrite)  # Gumbel noise in training


def brute_force_link(o, c, t1, t2):
    total = 0.0
    for i in range(o.shape[1]):
        keep = numpy.prod([1 - o[j, i] for j in range(t1 + 1, t2 + 1)])
        total += (o[t1, i] + c[t1, i]) * keep * c[t2, i]
    return total


def test_link_probability_matches_the_formula(module):
    with torch.no_grad():
        out = module(torch.randn(1, 7, 6), torch.tensor([7]))
    o, c = out.overwrite[0].numpy(), out.coref[0].numpy()
    pairs = [(0, 3), (1, 6), (2, 3), (4, 5)]
    log_p = log_link_probability(
        out, torch.zeros(len(pairs), dtype=torch.long), torch.tensor([p[0] for p in pairs]),
        torch.tensor([p[1] for p in pairs]),
    )
    log = {"overwrite": o, "coref": c}
    for (t1, t2), value in zip(pairs, log_p.exp().tolist()):
        expected = brute_force_link(o.astype("float64"), c.astype("float64"), t1, t2)
        assert value == pytest.approx(max(expected, 1e-12), rel=1e-4, abs=1e-9)
        assert span_link_probability(log, (t1, t1 + 1), (t2, t2 + 1)) == pytest.approx(expected, rel=1e-5, abs=1e-9)


def test_span_link_probability_is_the_max_over_token_pairs(module):
    with torch.no_grad():
        out = module(torch.randn(1, 6, 6), torch.tensor([6]))
    log = {"overwrite": out.overwrite[0].numpy(), "coref": out.coref[0].numpy()}
    singles = [span_link_probability(log, (a, a + 1), (5, 6)) for a in (0, 1, 2)]
    assert span_link_probability(log, (0, 3), (5, 6)) == pytest.approx(max(singles))


def test_loss_gradients_reach_every_output_used(module):
    module.train()
    out = module(torch.randn(2, 5, 6), torch.tensor([5, 4]))
    leaves = [t.detach().requires_grad_(True) for t in out.tensors()]
    from spacy_entmem.nn.memory.petra import MemoryOutput

    detached = MemoryOutput(*leaves, lengths=out.lengths)
    sups = [
        DocSupervision(5, [SpanPair((0, 2), (4, 5), 1.0, 5.0), SpanPair((0, 1), (1, 2), 1.0, 1.0)], None, [2, 3]),
        DocSupervision(4, [SpanPair((0, 1), (3, 4), 0.0, 50.0)], [1.0, 0.0, 0.0, 1.0], None),
    ]
    loss, grads = memory_loss(detached, sups, sparsity_weight=0.1)
    assert loss > 0
    entity_grad, overwrite_grad, coref_grad, usage_grad = grads
    assert entity_grad is not None and torch.any(entity_grad != 0)
    assert coref_grad is not None and torch.any(coref_grad != 0)
    assert usage_grad is None  # usage is logged, not trained on
