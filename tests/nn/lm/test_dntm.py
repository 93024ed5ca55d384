from dataclasses import replace

import pytest
import torch

from spacy_entmem.models.entity_lm import pad_documents
from spacy_entmem.nn.lm.dntm import BOS, DYNAMIC, ENTITY, EOS, MERGES, DynamicEntityLM, lm_loss
from spacy_entmem.pipeline.lm_inputs import LMDocument

import numpy

VOCAB = 40
E = ENTITY


def document(sentences):
    """sentences: lists of word ids or ("e", slot) entity tokens, without BOS / EOS."""
    doc = LMDocument()
    for sentence in sentences:
        words = [BOS] + [E if isinstance(w, tuple) else w for w in sentence] + [EOS]
        slots = [-1] + [w[1] if isinstance(w, tuple) else -1 for w in sentence] + [-1]
        doc.words.append(numpy.asarray(words, dtype="int64"))
        doc.slots.append(numpy.asarray(slots, dtype="int64"))
        doc.tokens.append(numpy.arange(len(words), dtype="int64"))
    return doc


DOCS = [
    document([[5, ("e", 0), 6, 7], [8, ("e", 1), 9], [("e", 0), 10, 11, ("e", 1)]]),
    document([[12, 13, ("e", 0)], [14, ("e", 0), 15, 16, 17, 18]]),
]


def model(dynamic="both", merge="gru_relu", seed=0):
    torch.manual_seed(seed)
    lm = DynamicEntityLM(VOCAB, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dynamic=dynamic,
                         merge=merge, dropout=0.0, cutoffs=(20,))
    return lm.eval()


@pytest.mark.parametrize("dynamic", DYNAMIC)
@pytest.mark.parametrize("merge", MERGES)
def test_every_variant_scores_every_predicted_token_and_trains(dynamic, merge):
    lm = model(dynamic, merge).train()
    batch = pad_documents(DOCS)
    logp = lm(batch)
    assert logp.shape == batch.words.shape
    predicted = batch.mask.bool() & (batch.words != BOS)
    assert (logp[predicted] < 0).all() and (logp[~predicted] == 0).all()
    loss, n = lm_loss(logp, batch)
    assert n == sum(d.n_predicted for d in DOCS) == int(predicted.sum())
    loss.backward()
    assert lm.lstm.weight_ih_l0.grad.abs().sum() > 0
    if dynamic != "none":
        assert lm.context_forward.weight_ih_l0.grad.abs().sum() > 0


def test_a_token_never_depends_on_later_tokens():
    lm = model()
    batch = pad_documents(DOCS)
    position = 10  # sentence 1 of document 0
    words = batch.words.clone()
    words[0, position] = 30
    changed = (lm(batch) - lm(replace(batch, words=words))).abs()[0]
    assert changed[:position].max() == 0
    assert changed[position + 1:].max() > 0


def test_entity_states_start_at_zero_and_only_read_earlier_sentences():
    lm = model()
    batch = pad_documents(DOCS)
    states = lm.entity_states(batch)  # (B, S + 1, K, D)
    assert states.shape == (2, 4, 3, 6)
    assert states[:, 0].abs().max() == 0
    assert states[0, 1, 1].abs().max() == 0  # entity 1 first appears in sentence 1
    assert states[0, 1, 0].abs().max() > 0 and states[0, 2, 1].abs().max() > 0
    assert states[:, :, 2].abs().max() == 0  # slot 2 is never used
    words = batch.words.clone()
    words[0, 7] = 31  # the word before entity 1 in sentence 1
    other = lm.entity_states(replace(batch, words=words))
    assert torch.equal(states[0, :2], other[0, :2]) and not torch.equal(states[0, 2], other[0, 2])


def test_entity_slot_probabilities_share_the_entity_class_mass():
    """Σ_k p([k] | h) = p(ENTITY | h): the entity slots are one class of the word softmax."""
    lm = model()
    totals = []
    for slot in range(3):
        doc = document([[5, ("e", 0), 6], [7, ("e", slot)]])
        logp = lm(pad_documents([doc]))
        totals.append(float(logp[0, 7].exp()))
    h = lm.lstm(lm.embed_inputs(pad_documents([doc]), lm.entity_states(pad_documents([doc]))))[0]
    entity_class = float(lm.words.log_prob(h[0, 6:7])[0, ENTITY].exp())
    assert sum(totals) == pytest.approx(entity_class, rel=1e-5)


def test_the_baseline_has_no_context_encoder_and_ignores_entity_history():
    lm = model("none")
    assert not hasattr(lm, "context_forward")
    with pytest.raises(ValueError, match="dynamic must be one of"):
        DynamicEntityLM(VOCAB, dynamic="sometimes")
    with pytest.raises(ValueError, match="merge must be one of"):
        DynamicEntityLM(VOCAB, merge="sum")


def test_a_batch_of_one_token_documents_scores_nothing():
    lm = model()
    batch = pad_documents([LMDocument()])
    assert lm(batch).shape == (1, 0)


@pytest.mark.parametrize("dynamic", DYNAMIC)
def test_scoring_alternative_next_sentences_matches_scoring_whole_documents(dynamic):
    from spacy_entmem.nn.lm.dntm import score_continuations

    lm = model(dynamic)
    full = DOCS[0]
    prefix = LMDocument(full.words[:2], full.slots[:2], full.tokens[:2])
    last_words, last_slots = full.words[2], full.slots[2].copy()
    alternatives = numpy.stack([last_slots, last_slots])
    alternatives[1, 1] = 1  # the second alternative fills the first mention with entity 1
    scores = score_continuations(lm, pad_documents([prefix]), torch.from_numpy(numpy.stack([last_words] * 2)),
                                 torch.from_numpy(alternatives))
    for row in range(2):
        whole = LMDocument(full.words[:2] + [last_words], full.slots[:2] + [alternatives[row]], full.tokens)
        logp = lm(pad_documents([whole]))[0]
        assert float(scores[row]) == pytest.approx(float(logp[-len(last_words):].sum()), abs=1e-4)
    assert float(scores[0]) != pytest.approx(float(scores[1]))


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
def test_the_language_model_runs_on_its_parameters_device_from_cpu_batches(device):
    from spacy_entmem.nn.lm.dntm import score_continuations

    lm = model()
    batch = pad_documents(DOCS)
    reference = lm(batch)
    moved = lm.to(torch.device(device))
    logp = moved(batch)  # a CPU batch
    assert logp.device.type == device
    # cuDNN's LSTMs compute in TF32 on Ampere and later: ~1e-4 off float32 (measured on an H100)
    assert torch.allclose(logp.cpu(), reference, atol=1e-5 if device == "cpu" else 1e-3)
    prefix = LMDocument(DOCS[0].words[:2], DOCS[0].slots[:2], DOCS[0].tokens[:2])
    words = torch.from_numpy(numpy.stack([DOCS[0].words[2]] * 2))
    slots = torch.from_numpy(numpy.stack([DOCS[0].slots[2]] * 2))
    assert score_continuations(moved, pad_documents([prefix]), words, slots).device.type == device


def test_state_dropout_acts_in_training_only():
    plain = model()
    torch.manual_seed(0)
    dropped = DynamicEntityLM(VOCAB, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dropout=0.0,
                              cutoffs=(20,), state_dropout=0.9)
    dropped.load_state_dict(plain.state_dict())
    batch = pad_documents(DOCS)
    assert torch.allclose(dropped.eval()(batch), plain(batch))
    torch.manual_seed(1)
    trained = dropped.train()(batch)
    # the first sentence reads no entity state yet; a later entity token does
    assert torch.allclose(trained[0, :6], plain(batch)[0, :6])
    assert not torch.allclose(trained[0, 6:], plain(batch)[0, 6:])


def test_shared_embeddings_are_one_table_that_both_encoders_train():
    torch.manual_seed(0)
    shared = DynamicEntityLM(VOCAB, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dropout=0.0,
                             cutoffs=(20,), share_embeddings=True)
    own = DynamicEntityLM(VOCAB, n_slots=3, embed_width=8, hidden_width=8, context_width=6, dropout=0.0,
                          cutoffs=(20,))
    assert shared.context_embedding.weight is shared.embedding.weight
    assert sum(p.numel() for p in own.parameters()) - sum(p.numel() for p in shared.parameters()) == VOCAB * 8
    batch = pad_documents(DOCS)
    logp = shared(batch)
    logp.sum().backward()
    # the context encoder's path reaches the shared table: moving it changes the entity states
    assert shared.embedding.weight.grad is not None
    with torch.no_grad():
        before = shared.entity_states(batch).clone()
        shared.embedding.weight.add_(0.5)
        assert not torch.allclose(shared.entity_states(batch), before)
