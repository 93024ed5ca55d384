import pytest
import torch

from spacy_entmem.nn.memory.mention_memory import MentionMemory
from spacy_entmem.training.widening import WIDENED_WEIGHT, widen_memory, widen_state


def _memory(width: int, hidden: int = 8) -> MentionMemory:
    torch.manual_seed(width)
    return MentionMemory(width, hidden_width=hidden, n_cells=3, mlp_width=8, dropout=0.0)


def test_widened_memory_keeps_every_weight_and_zeroes_the_new_input_columns():
    trained, wide = _memory(4), _memory(7)
    widen_memory(wide, trained)
    old, new = trained.state_dict(), wide.state_dict()
    for key, value in old.items():
        if key == WIDENED_WEIGHT:
            assert new[key].shape == (value.shape[0], 7)
            assert torch.equal(new[key][:, :4], value)
            assert torch.count_nonzero(new[key][:, 4:]) == 0
        else:
            assert torch.equal(new[key], value), key


def test_widened_encoder_reads_the_old_columns_exactly_as_before():
    trained, wide = _memory(4), _memory(7)
    widen_memory(wide, trained)
    X = torch.randn(2, 5, 4)
    extra = torch.randn(2, 5, 3) * 10.0  # whatever the new features are, they do not count yet
    with torch.no_grad():
        before, _ = trained.encoder(X)
        after, _ = wide.encoder(torch.cat([X, extra], dim=-1))
    torch.testing.assert_close(after, before, rtol=0.0, atol=1e-6)


def test_widened_columns_are_trainable():
    trained, wide = _memory(4), _memory(7)
    widen_memory(wide, trained)
    out, _ = wide.encoder(torch.randn(1, 3, 7))
    out.sum().backward()
    assert torch.count_nonzero(wide.encoder.weight_ih_l0.grad[:, 4:]) > 0


def test_narrower_or_reshaped_memories_are_refused_with_the_weight_named():
    with pytest.raises(ValueError, match="encoder.weight_ih_l0"):
        widen_memory(_memory(4), _memory(7))
    with pytest.raises(ValueError, match=r"'encoder.weight_ih_l0' is \(18, 4\) in the trained memory and \(24, 7\)"):
        widen_memory(_memory(7, hidden=8), _memory(4, hidden=6))
    state = _memory(4).state_dict()
    del state["update_gate.bias"]
    with pytest.raises(ValueError, match="update_gate.bias"):
        widen_state(state, _memory(7).state_dict())


def test_only_the_parse_features_train_after_train_new_features_only():
    from spacy_entmem.linguistics.cell_rules import PAIR_FEATURE_SIZES
    from spacy_entmem.training.widening import train_new_features_only

    torch.manual_seed(0)
    memory = MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8, dropout=0.0, feature_width=4,
                           parse_features=True)
    train_new_features_only(memory)
    trainable = {name for name, p in memory.named_parameters() if p.requires_grad}
    n_old = len(PAIR_FEATURE_SIZES)
    assert trainable == {f"pair_embeddings.{k}.weight" for k in range(n_old, len(memory.pair_embeddings))} | {
        "similarity_mlp.memory_projs.2.weight"}
    weight = memory.similarity_mlp.memory_projs[2].weight
    (weight.sum() * 1.0).backward()
    assert (weight.grad[:, : n_old * 4] == 0).all() and (weight.grad[:, n_old * 4:] == 1).all()
    with pytest.raises(ValueError, match="has no parse features"):
        train_new_features_only(MentionMemory(input_width=6, hidden_width=8, n_cells=2, mlp_width=8))
