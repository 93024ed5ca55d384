import pytest
import torch

from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.nn.lm.corelm import (EntityGatedLM, EntityGating, EntityStore, block_windows, read_entities_of,
                                       running_sums)

TEXT = ("Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie. They married in 1895 "
        "and worked together on radioactivity. Their daughter Irene won a prize too.")


def make(tiny_lm_dir, **kwargs) -> EntityGatedLM:
    base, tokenizer = load_base_lm(tiny_lm_dir)
    torch.manual_seed(0)
    return EntityGatedLM(base, tokenizer.bos_token_id, **{"n_heads": 4, "dropout": 0.0, **kwargs}).eval()


def pieces(tiny_lm_dir) -> torch.Tensor:
    _, tokenizer = load_base_lm(tiny_lm_dir)
    return torch.tensor(tokenizer(TEXT, add_special_tokens=False)["input_ids"])


def base_log_probs(lm: EntityGatedLM, ids: torch.Tensor) -> torch.Tensor:
    """log p of each piece from the base LM reading <bos> and the whole text at once."""
    inputs = torch.cat([torch.tensor([lm.bos_id]), ids[:-1]]).unsqueeze(0)
    with torch.no_grad():
        logits = lm.base(input_ids=inputs).logits[0]
    return torch.log_softmax(logits, -1).gather(1, ids.unsqueeze(1))[:, 0]


def trained_like(lm: EntityGatedLM) -> EntityGatedLM:
    """Give the zero-initialised norms of the gating layer weights, as training would."""
    with torch.no_grad():
        for norm in (lm.gating.attention_norm, lm.gating.ffn_norm):
            norm.weight.normal_()
    return lm


def test_an_untrained_gating_layer_leaves_the_base_lm_unchanged(tiny_lm_dir):
    lm = make(tiny_lm_dir, window=512, stride=512)
    ids = pieces(tiny_lm_dir)
    entities = torch.randint(0, 3, (len(ids),))
    with torch.no_grad():
        assert torch.allclose(lm.read_document(ids, entities), base_log_probs(lm, ids), atol=1e-5)


def test_strided_windows_score_each_piece_with_its_window_as_context(tiny_lm_dir):
    lm = make(tiny_lm_dir, window=12, stride=5, gated=False)
    ids = pieces(tiny_lm_dir)
    assert len(ids) > 30
    with torch.no_grad():
        logp = lm.read_document(ids, torch.zeros_like(ids))
    assert logp.shape == ids.shape and (logp < 0).all()
    for start, first, end in block_windows(len(ids), 12, 5):
        assert end - start <= 12 and end - first <= 5
        expected = base_log_probs(lm, ids[start:end])  # <bos> + the window, read at once
        assert torch.allclose(logp[first:end], expected[first - start:], atol=1e-5)


def test_block_windows_cover_every_position_once():
    blocks = list(block_windows(23, 8, 5))
    assert [(first, end) for _, first, end in blocks] == [(0, 5), (5, 10), (10, 15), (15, 20), (20, 23)]
    assert [start for start, _, _ in blocks] == [0, 2, 7, 12, 15]


def test_a_piece_never_depends_on_later_pieces_or_their_entities(tiny_lm_dir):
    lm = trained_like(make(tiny_lm_dir, window=16, stride=8))
    ids = pieces(tiny_lm_dir)
    entities = torch.zeros_like(ids)
    entities[3:6] = 1
    entities[20:24] = 1
    changed_ids, changed_entities = ids.clone(), entities.clone()
    changed_ids[25] = (ids[25] + 7) % 300
    changed_entities[26:30] = 2
    with torch.no_grad():
        reference = lm.read_document(ids, read_entities_of(entities))
        assert torch.allclose(lm.read_document(changed_ids, read_entities_of(changed_entities))[:25], reference[:25], atol=1e-6)


def test_the_entity_store_carries_an_entity_across_windows(tiny_lm_dir):
    lm = trained_like(make(tiny_lm_dir, window=8, stride=6))
    ids = pieces(tiny_lm_dir)
    entities = torch.zeros_like(ids)
    entities[1:3] = 1  # an early mention, windows before the later one
    entities[30:32] = 1
    without_early = entities.clone()
    without_early[1:3] = 0
    with torch.no_grad():
        with_memory = lm.read_document(ids, read_entities_of(entities))
        forgotten = lm.read_document(ids, read_entities_of(without_early))
    # the base's window (8 pieces) no longer sees pieces 1-2 at piece 31; only the entity store does
    assert not torch.allclose(with_memory[31:33], forgotten[31:33], atol=1e-6)
    assert torch.allclose(with_memory[20:30], forgotten[20:30], atol=1e-6)  # no entity read there


def test_running_sums_are_per_group_cumulative_sums():
    values = torch.arange(12, dtype=torch.float).view(6, 2)
    groups = torch.tensor([2, 0, 2, 1, 0, 2])
    expected = torch.zeros_like(values)
    for i in range(6):
        for j in range(i + 1):
            if groups[j] == groups[i]:
                expected[i] += values[j]
    assert torch.equal(running_sums(values, groups, 3), expected)


def test_the_entity_vector_starts_at_ones_and_is_updated_by_its_mentions():
    gating = EntityGating(8, n_heads=2, dropout=0.0)
    store = EntityStore.empty(8)
    _, store = gating(torch.randn(4, 8), torch.tensor([0, 1, 1, 2]), store)
    assert store.counts.tolist() == [0.0, 2.0, 1.0]
    assert torch.equal(store.sums[0], torch.zeros(8))


def test_only_the_gating_layer_trains_and_a_frozen_base_is_not_saved(tiny_lm_dir):
    lm = make(tiny_lm_dir, window=16, stride=8).train()
    ids = pieces(tiny_lm_dir)
    base_before = {k: v.clone() for k, v in lm.base.state_dict().items()}
    optimizer = torch.optim.Adam([p for p in lm.parameters() if p.requires_grad], lr=1e-2)
    entities = torch.zeros_like(ids)
    entities[::3] = 1
    for _ in range(3):
        optimizer.zero_grad()
        (-lm([(ids, read_entities_of(entities))])[0].mean()).backward()
        optimizer.step()
    assert all(torch.equal(v, lm.base.state_dict()[k]) for k, v in base_before.items())
    assert lm.gating.attention_norm.weight.abs().sum() > 0
    saved = lm.state_dict()
    assert saved and not any(k.startswith("base.") for k in saved)
    fresh = make(tiny_lm_dir, window=16, stride=8)
    fresh.load_state_dict(saved)
    with torch.no_grad():
        assert torch.allclose(fresh.read_document(ids, entities), lm.eval().read_document(ids, entities))


@pytest.mark.parametrize("kwargs, message", [
    ({"delta": 1.5}, "delta must be in [0, 1]"),
    ({"window": 8, "stride": 9}, "stride must be in [1, window = 8]"),
    ({"n_heads": 5}, "not divisible by n_heads 5"),
])
def test_invalid_settings_are_named(tiny_lm_dir, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        make(tiny_lm_dir, **kwargs)


def test_an_unknown_base_lm_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="cannot load the base LM"):
        load_base_lm(str(tmp_path))


def test_a_batch_is_padded_after_each_document(tiny_lm_dir):
    lm = make(tiny_lm_dir, window=16, stride=8)
    ids = pieces(tiny_lm_dir)
    with torch.no_grad():
        batch = lm([(ids, torch.zeros_like(ids)), (ids[:10], torch.zeros(10, dtype=torch.long))])
    assert batch.shape == (2, len(ids))
    assert torch.allclose(batch[1, :10], batch[0, :10]) and (batch[1, 10:] == 0).all()


def test_an_unfrozen_base_trains_and_is_saved(tiny_lm_dir):
    import copy

    base, tokenizer = load_base_lm(tiny_lm_dir)
    lm = EntityGatedLM(copy.deepcopy(base), tokenizer.bos_token_id, n_heads=4, dropout=0.0, window=16, stride=8,
                       freeze_base=False).train()
    ids = pieces(tiny_lm_dir)
    before = lm.base.get_input_embeddings().weight.detach().clone()
    optimizer = torch.optim.Adam(lm.parameters(), lr=1e-2)
    (-lm([(ids, torch.zeros_like(ids))])[0].mean()).backward()
    optimizer.step()
    assert not torch.equal(before, lm.base.get_input_embeddings().weight)
    assert any(k.startswith("base.") for k in lm.state_dict())
