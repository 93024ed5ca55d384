import pytest
import torch

from spacy_entmem.models.entity_lm import pad_documents
from spacy_entmem.nn.lm.context_cloze import (ENCODER_PARTS, ContextCloze, cloze_positions, load_context_encoder,
                                              negative_sampler, save_context_encoder)
from spacy_entmem.nn.lm.dntm import BOS, ENTITY, EOS, N_SPECIAL, UNKNOWN, DynamicEntityLM

from .test_dntm import DOCS, VOCAB

SOURCE_WORDS = [f"w{i}" for i in range(VOCAB - N_SPECIAL)]


def cloze(seed=0):
    torch.manual_seed(seed)
    return ContextCloze(VOCAB, embed_width=8, context_width=6, dropout=0.0)


def sentences():
    words = torch.tensor([[BOS, 5, ENTITY, UNKNOWN, 6, EOS], [BOS, 7, 8, EOS, 0, 0]])
    return words, torch.tensor([6, 4])


def test_the_cloze_predicts_real_words_and_entity_tokens_only():
    words, lengths = sentences()
    n, l = cloze_positions(words, lengths)
    assert list(zip(n.tolist(), l.tolist())) == [(0, 1), (0, 2), (0, 4), (1, 1), (1, 2)]


def test_training_the_cloze_lowers_its_loss_and_moves_only_the_encoder_and_w_c():
    model = cloze()
    words, lengths = sentences()
    weights = negative_sampler([0] * N_SPECIAL + [1] * (VOCAB - N_SPECIAL))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    generator = torch.Generator().manual_seed(0)
    negatives = torch.multinomial(weights, 5 * 3, replacement=True, generator=generator).view(5, 3)
    first = float(model.loss(words, lengths, negatives).detach())
    for _ in range(30):
        optimizer.zero_grad()
        model.loss(words, lengths, negatives).backward()
        optimizer.step()
    assert float(model.loss(words, lengths, negatives).detach()) < first / 2
    state = model.encoder_state()
    assert {key.split(".")[0] for key in state} == set(ENCODER_PARTS)  # W_c is not the LM's


def test_negative_sampling_never_draws_special_tokens_and_refuses_an_empty_corpus():
    weights = negative_sampler([0] * N_SPECIAL + [16, 1])
    assert weights[:N_SPECIAL].sum() == 0 and weights[N_SPECIAL] / weights[N_SPECIAL + 1] == pytest.approx(8.0)
    with pytest.raises(ValueError, match="cloze corpus is empty"):
        negative_sampler([0] * N_SPECIAL)


def lm(dynamic="both", **options):
    torch.manual_seed(1)
    return DynamicEntityLM(VOCAB, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dynamic=dynamic,
                           dropout=0.0, cutoffs=(20,), **options)


def test_a_pretrained_encoder_loads_word_by_word_into_the_lm(tmp_path):
    source = cloze()
    save_context_encoder(source, SOURCE_WORDS, tmp_path / "encoder.pt", epochs=1)
    saved = load_context_encoder(tmp_path / "encoder.pt")
    assert saved["info"] == {"epochs": 1}
    # the LM's vocabulary: w3 first, then a word the pre-trained vocabulary lacks, then the rest
    target = ["w3", "new"] + SOURCE_WORDS[:3] + SOURCE_WORDS[4:VOCAB - N_SPECIAL - 1]
    model = lm()
    assert model.load_pretrained(saved["state"], SOURCE_WORDS, target) == len(target) - 1
    table = source.context_embedding.weight
    for model_table in (model.embedding.weight, model.context_embedding.weight):
        assert torch.equal(model_table[:N_SPECIAL], table[:N_SPECIAL])
        assert torch.equal(model_table[N_SPECIAL], table[N_SPECIAL + 3])  # "w3"
        assert torch.equal(model_table[N_SPECIAL + 1], table[UNKNOWN])  # "new": the unknown word
    assert torch.equal(model.static_input.weight[2], table[ENTITY])  # slots start as the anonymised token
    for part in ("context_forward", "context_backward", "context_projection"):
        for name, value in getattr(model, part).state_dict().items():
            assert torch.equal(value, getattr(source, part).state_dict()[name])
    # the encoder reads a sentence in the LM's ids as the cloze model read it in its own ids
    in_lm = torch.tensor([[BOS, N_SPECIAL, ENTITY, N_SPECIAL + 2, EOS]])  # "w3" [k] "w0"
    in_source = torch.tensor([[BOS, N_SPECIAL + 3, ENTITY, N_SPECIAL, EOS]])
    length, positions = torch.tensor([5]), (torch.tensor([0, 0, 0]), torch.tensor([1, 2, 3]))
    assert torch.allclose(model.encode_contexts(in_lm, length, *positions),
                          source.encode_contexts(in_source, length, *positions))


def test_the_baseline_takes_the_pretrained_word_embeddings_only(tmp_path):
    source = cloze()
    baseline = lm("none")
    baseline.load_pretrained(source.encoder_state(), SOURCE_WORDS, SOURCE_WORDS)
    assert torch.equal(baseline.embedding.weight, source.context_embedding.weight)
    assert not hasattr(baseline, "context_forward")


def test_slots_can_keep_their_random_start():
    model = lm()
    before = model.static_input.weight.detach().clone()
    model.load_pretrained(cloze().encoder_state(), SOURCE_WORDS, SOURCE_WORDS, slots_as_anonymised=False)
    assert torch.equal(model.static_input.weight, before) and len(set(map(tuple, before.tolist()))) == 3


def test_a_frozen_encoder_gets_no_gradient_while_the_lm_trains():
    model = lm(freeze_context=True).train()
    logp = model(pad_documents(DOCS))
    logp.sum().backward()
    for part in model.context_encoder_parts():
        assert all(not p.requires_grad and p.grad is None for p in part.parameters())
    assert model.to_output.weight.grad.abs().sum() > 0 and model.merge_cell.weight_ih.grad.abs().sum() > 0
    assert model.embedding.weight.grad is not None


def test_clear_errors_for_mismatched_or_foreign_pretrained_files(tmp_path):
    with pytest.raises(ValueError, match="freeze_context cannot go with share_embeddings"):
        lm(freeze_context=True, share_embeddings=True)
    wide = ContextCloze(VOCAB, embed_width=10, context_width=6)
    with pytest.raises(ValueError, match="10 wide, this model's embed_width is 8"):
        lm().load_pretrained(wide.encoder_state(), SOURCE_WORDS, SOURCE_WORDS)
    narrow = ContextCloze(VOCAB, embed_width=8, context_width=4)
    with pytest.raises(ValueError, match="4 wide, this model's context_width is 6"):
        lm().load_pretrained(narrow.encoder_state(), SOURCE_WORDS, SOURCE_WORDS)
    with pytest.raises(ValueError, match="do not make this model's vocabulary of 40"):
        lm().load_pretrained(cloze().encoder_state(), SOURCE_WORDS, SOURCE_WORDS[:5])
    with pytest.raises(ValueError, match="no such file"):
        load_context_encoder(tmp_path / "missing.pt")
    (tmp_path / "text.pt").write_text("not torch")
    with pytest.raises(ValueError, match="not a torch file"):
        load_context_encoder(tmp_path / "text.pt")
    torch.save({"state": {}, "words": []}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not written by `entmem dntm-pretrain-context`"):
        load_context_encoder(tmp_path / "other.pt")
