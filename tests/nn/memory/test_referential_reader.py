import pytest
import torch

from spacy_entmem.training.targets import DocSupervision, SpanPair
from spacy_entmem.nn.losses import memory_loss
from spacy_entmem.nn.memory.referential_reader import ReferentialReaderMemory, validate_reader_config


@pytest.fixture
def reader():
    torch.manual_seed(0)
    return ReferentialReaderMemory(input_width=6, hidden_width=8, n_cells=3, key_width=4).eval()


def run(reader, T=7, B=2, lengths=None):
    X = torch.randn(B, T, 6)
    lengths = torch.tensor(lengths or [T] * B)
    with torch.no_grad():
        return reader(X, lengths)


def test_shapes_and_padding_mask(reader):
    out = run(reader, T=5, lengths=[5, 3])
    assert out.entity.shape == (2, 5)
    assert out.overwrite.shape == out.coref.shape == out.usage.shape == (2, 5, 3)
    assert torch.all(out.entity[1, 3:] == 0) and torch.all(out.coref[1, 3:] == 0)
    assert out.next_logprob is None


def test_update_and_overwrite_share_the_entity_gate(reader):
    out = run(reader)
    # u_i = min(α_i, 2 s_i) with Σ α = e r ≤ e, and the rest of e_t overwrites one cell
    total = out.coref.sum(-1) + out.overwrite.sum(-1)
    assert torch.allclose(total, out.entity, atol=1e-6)
    assert torch.all((out.overwrite > 0).sum(-1) <= 1)


def test_updates_are_bounded_by_twice_the_previous_salience(reader):
    out = run(reader, T=9)
    previous = torch.cat([torch.zeros_like(out.usage[:, :1]), out.usage[:, :-1]], dim=1)
    assert torch.all(out.coref <= 2 * previous + 1e-6)
    # nothing is salient before the first token: it can only start a new entity, in cell 0
    assert torch.all(out.coref[:, 0] == 0)
    assert torch.all(out.overwrite[:, 0, 1:] == 0)


def test_salience_decays_with_the_entity_and_token_half_lives(reader):
    out = run(reader, T=9)
    e, u, o, s = out.entity, out.coref, out.overwrite, out.usage
    decay = e * 0.5 ** (1 / 4) + (1 - e) * 0.5 ** (1 / 30)
    expected = u[:, 1:] + o[:, 1:] + (1 - u[:, 1:] - o[:, 1:]) * decay[:, 1:, None] * s[:, :-1]
    assert torch.allclose(s[:, 1:], expected, atol=1e-6)


def test_inference_overwrites_the_least_salient_cell(reader):
    out = run(reader, T=12)
    previous = torch.cat([torch.zeros_like(out.usage[:, :1]), out.usage[:, :-1]], dim=1)
    for b, t in (out.overwrite.sum(-1) > 0).nonzero().tolist():
        assert int(out.overwrite[b, t].argmax()) == int(previous[b, t].argmin())


def test_padding_does_not_change_a_document(reader):
    X = torch.randn(1, 4, 6)
    with torch.no_grad():
        alone = reader(X, torch.tensor([4]))
        batched = reader(torch.cat([torch.cat([X, torch.randn(1, 3, 6)], 1), torch.randn(1, 7, 6)]),
                         torch.tensor([4, 7]))
    assert torch.allclose(alone.coref[0], batched.coref[0, :4], atol=1e-6)
    assert torch.allclose(alone.usage[0], batched.usage[0, :4], atol=1e-6)


def test_the_memory_feeds_back_into_the_recurrent_state(reader):
    """Same inputs, different memory: zeroing the value GRU's effect changes later gates."""
    X = torch.randn(1, 8, 6)
    with torch.no_grad():
        before = reader(X, torch.tensor([8])).entity
        reader.value_cell.weight_ih.mul_(3.0)
        after = reader(X, torch.tensor([8])).entity
    assert torch.allclose(before[0, :1], after[0, :1])  # the first step reads an empty memory
    assert not torch.allclose(before, after)


def test_inference_is_deterministic_and_training_is_stochastic(reader):
    X = torch.randn(1, 6, 6)
    with torch.no_grad():
        assert torch.equal(reader(X, torch.tensor([6])).overwrite, reader(X, torch.tensor([6])).overwrite)
        reader.train()
        assert not torch.equal(reader(X, torch.tensor([6])).overwrite, reader(X, torch.tensor([6])).overwrite)


def test_empty_batch():
    reader = ReferentialReaderMemory(input_width=6, hidden_width=8, n_cells=2, key_width=4)
    out = reader(torch.zeros(2, 0, 6), torch.tensor([0, 0]))
    assert out.entity.shape == (2, 0) and out.coref.shape == (2, 0, 2)


def test_the_loss_trains_every_memory_parameter(reader):
    reader.train()
    out = reader(torch.randn(1, 6, 6), torch.tensor([6]))
    leaves = [t.detach().requires_grad_(True) for t in out.tensors()]
    sups = [DocSupervision(6, [SpanPair((0, 1), (4, 5), 1.0, 5.0), SpanPair((1, 2), (4, 5), 0.0, 50.0)],
                           None, [2, 3])]
    _, grads = memory_loss(out.with_tensors(leaves), sups, 0.1)
    used = [(t, g) for t, g in zip(out.tensors(), grads) if g is not None]
    torch.autograd.backward([t for t, _ in used], [g for _, g in used])
    for name, parameter in reader.named_parameters():
        assert parameter.grad is not None and torch.any(parameter.grad != 0), name


def test_half_lives_are_the_papers():
    reader = ReferentialReaderMemory(input_width=2)
    assert reader.entity_decay ** 4 == pytest.approx(0.5)
    assert reader.token_decay ** 30 == pytest.approx(0.5)
    assert reader.n_cells == 2 and reader.key_width == 16 and reader.hidden_width == 300


@pytest.mark.parametrize("kwargs, message", [
    ({"n_cells": 0}, "n_cells must be at least 1"),
    ({"key_width": 0}, "key_width must be at least 1"),
    ({"entity_half_life": 0.0}, "entity_half_life must be > 0"),
    ({"dropout": 1.0}, "dropout must be in [0, 1)"),
    ({"lm_vocab_size": 2}, "lm_vocab_size must be 0"),
])
def test_invalid_settings_are_named(kwargs, message):
    settings = dict(n_cells=2, hidden_width=8, key_width=4, entity_half_life=4.0, token_half_life=30.0,
                    dropout=0.0, lm_vocab_size=0)
    settings.update(kwargs)
    with pytest.raises(ValueError, match=r"Referential Reader config: .*" + message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        validate_reader_config(**settings)

