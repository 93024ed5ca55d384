import pytest
import torch

from spacy_entmem.nn.losses import language_model_loss, memory_loss
from spacy_entmem.nn.memory.outputs import NextTokenHead, choose_lowest
from spacy_entmem.nn.memory.petra import PetraMemory, validate_memory_config
from spacy_entmem.nn.memory.referential_reader import ReferentialReaderMemory


def test_choose_lowest_prefers_low_usage_then_tie_score_then_index():
    usage = torch.tensor([[0.5, 0.0, 0.0, 0.0], [0.2, 0.2, 0.9, 0.3], [0.0, 0.0, 0.1, 0.1]])
    tie = torch.tensor([[9.0, 1.0, 3.0, 2.0], [0.0, 0.0, 5.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
    chosen = choose_lowest(usage, tie, training=False, temperature=1.0, hard=False).argmax(-1)
    assert chosen.tolist() == [2, 0, 0]


def test_training_overwrite_mass_lands_on_the_empty_then_least_used_cell():
    torch.manual_seed(0)
    empty = torch.tensor([[0.9, 0.0, 0.95, 0.8]]).repeat(2000, 1)
    mass = choose_lowest(empty, torch.zeros_like(empty), training=True, temperature=1.0, hard=False).mean(0)
    assert mass[1] > 0.99  # noise on 1 - u would give ~0.3
    full = torch.tensor([[0.9, 0.2, 0.95, 0.99]]).repeat(2000, 1)
    mass = choose_lowest(full, torch.zeros_like(full), training=True, temperature=0.5, hard=False).mean(0)
    assert mass[1] > 0.7 and mass.argmax() == 1  # ~0.4 with noise on 1 - u


def test_next_token_head_returns_the_log_probability_of_the_next_word():
    torch.manual_seed(0)
    head = NextTokenHead(width=5, vocab_size=30).eval()
    states = torch.randn(2, 4, 5)
    ids = torch.randint(0, 30, (2, 4))
    lengths = torch.tensor([4, 2])
    with torch.no_grad():
        out = head(states, ids, lengths)
        full = head.softmax.log_prob(states.reshape(-1, 5)).view(2, 4, 30)
    assert out.shape == (2, 4)
    for b, n in enumerate(lengths.tolist()):
        for t in range(4):
            expected = full[b, t, ids[b, t + 1]] if t < n - 1 else 0.0
            assert float(out[b, t]) == pytest.approx(float(expected), abs=1e-5)
    assert torch.allclose(full.exp().sum(-1), torch.ones(2, 4), atol=1e-4)


@pytest.mark.parametrize("module", [
    PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, lm_vocab_size=20),
    ReferentialReaderMemory(input_width=6, hidden_width=8, n_cells=3, key_width=4, lm_vocab_size=20),
])
def test_language_model_objective_trains_the_encoder(module):
    X = torch.randn(2, 5, 6)
    ids = torch.randint(0, 20, (2, 5))
    lengths = torch.tensor([5, 3])
    out = module(X, lengths, token_ids=ids)
    assert out.next_logprob.shape == (2, 5) and torch.all(out.next_logprob[1, 2:] == 0)
    leaves = [t.detach().requires_grad_(True) for t in out.tensors()]
    detached = out.with_tensors(leaves)
    nll = language_model_loss(detached)
    mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]], dtype=torch.bool)
    assert float(nll.detach()) == pytest.approx(float(-out.next_logprob[mask].mean().detach()), rel=1e-5)
    loss, grads = memory_loss(detached, [], sparsity_weight=0.1, lm_weight=0.5)
    assert loss == pytest.approx(0.5 * float(nll.detach()), rel=1e-5)
    torch.autograd.backward([out.next_logprob], [grads[4]])
    first = next(p for n, p in module.named_parameters() if not n.startswith("lm_head"))
    assert first.grad is not None and torch.any(first.grad != 0)


def test_without_token_ids_there_is_no_language_model_output():
    module = PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, lm_vocab_size=20)
    out = module(torch.randn(1, 4, 6), torch.tensor([4]))
    assert out.next_logprob is None and len(out.tensors()) == 4


def test_learned_initial_memory_lets_similarity_choose_the_first_cell():
    torch.manual_seed(1)
    module = PetraMemory(input_width=6, hidden_width=8, n_cells=4, mlp_width=8, learned_init=True).eval()
    X = torch.randn(3, 1, 6)
    with torch.no_grad():
        out = module(X, torch.tensor([1, 1, 1]))
        h = module.encode(X, torch.tensor([1, 1, 1]))[:, 0]
        memory = module.start_memory(X)
        raw = module.similarity_mlp(module.similarity_mlp.project_tokens(h)[:, None],
                                    [memory, h[:, None] * memory, torch.zeros(3, 4, 1)]).squeeze(-1)
    assert out.overwrite[:, 0].argmax(-1).tolist() == raw.argmax(-1).tolist()


def test_fixed_keys_stay_in_every_cell_and_are_learnt():
    torch.manual_seed(0)
    module = PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, fixed_key_width=3)
    memory = module.with_keys(torch.randn(2, 3, 8))
    assert torch.equal(memory[:, :, :3], module.keys.detach().expand(2, 3, 3))
    out = module(torch.randn(1, 5, 6), torch.tensor([5]))
    (out.coref.sum() + out.overwrite.sum()).backward()
    assert module.keys.grad is not None and torch.any(module.keys.grad != 0)


def test_learned_initial_memory_is_learnt():
    module = PetraMemory(input_width=6, hidden_width=8, n_cells=3, mlp_width=8, learned_init=True)
    out = module(torch.randn(1, 5, 6), torch.tensor([5]))
    out.coref.sum().backward()
    assert module.initial_memory.grad is not None and torch.any(module.initial_memory.grad != 0)


@pytest.mark.parametrize("kwargs, message", [
    ({"fixed_key_width": 8}, "fixed_key_width must be in [0, hidden_width=8)"),
    ({"lm_vocab_size": 1}, "lm_vocab_size must be 0 (no language-model head) or at least 3"),
])
def test_invalid_variant_settings_are_named(kwargs, message):
    settings = dict(n_cells=2, hidden_width=8, mlp_width=8, usage_decay=0.98, dropout=0.0)
    with pytest.raises(ValueError) as error:
        validate_memory_config(**settings, **kwargs)
    assert message in str(error.value)
