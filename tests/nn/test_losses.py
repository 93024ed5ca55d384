"""Every loss term is a mean (per pair, step or mention), so their scales do not depend on how long the
documents are or how many pairs they carry."""
import pytest
import torch

from spacy_entmem.training.targets import DocSupervision, SpanPair
from spacy_entmem.nn.losses import entity_loss, link_loss, new_entity_loss
from spacy_entmem.nn.memory.petra import PetraMemory


@pytest.fixture(scope="module")
def outputs():
    torch.manual_seed(0)
    module = PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8).eval()
    with torch.no_grad():
        return module(torch.randn(1, 12, 6), torch.tensor([12]))


def _full(n_pairs: int, n_new: int) -> DocSupervision:
    pairs = [SpanPair((0, 1), (t, t + 1), float(t % 2), 1.0) for t in range(1, n_pairs + 1)]
    return DocSupervision(12, pairs, entity_targets=[float(t % 3 == 0) for t in range(12)],
                          new_entity=[(t, float(t % 2)) for t in range(n_new)])


def test_loss_terms_do_not_grow_with_the_number_of_pairs_or_mentions(outputs):
    few, many = _full(2, 2), _full(2, 2)
    many.pairs, many.new_entity = few.pairs * 5, few.new_entity * 5  # the same targets, repeated
    assert float(link_loss(outputs, [many])) == pytest.approx(float(link_loss(outputs, [few])), rel=1e-5)
    assert float(new_entity_loss(outputs, [many])) == pytest.approx(float(new_entity_loss(outputs, [few])), rel=1e-5)


def test_terms_have_comparable_scales_on_one_document(outputs):
    sup = _full(10, 8)
    terms = [float(link_loss(outputs, [sup])), float(entity_loss(outputs, [sup], 0.1)),
             float(new_entity_loss(outputs, [sup]))]
    assert all(0.0 < t < 5.0 for t in terms), terms  # per-document sums gave ~10x the entity term


def test_entity_loss_is_the_mean_over_all_supervised_steps_of_the_batch(outputs):
    sup = DocSupervision(12, entity_targets=[1.0] * 12)
    half = DocSupervision(6, entity_targets=[1.0] * 6)
    e = outputs.entity[0].clamp(1e-6, 1 - 1e-6)
    both = torch.stack([outputs.entity[0], outputs.entity[0]])
    batch = type(outputs)(both, outputs.overwrite.repeat(2, 1, 1), outputs.coref.repeat(2, 1, 1),
                          outputs.usage.repeat(2, 1, 1), torch.tensor([12, 6]))
    expected = torch.cat([-torch.log(e), -torch.log(e[:6])]).mean()
    assert float(entity_loss(batch, [sup, half], 0.1)) == pytest.approx(float(expected), rel=1e-5)
