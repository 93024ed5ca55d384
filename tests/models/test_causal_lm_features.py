"""spacy_entmem.CausalLMFeatures.v1: a frozen causal LM's states as token vectors, cached per document."""
import numpy
import pytest
import spacy
from spacy.training import Example

from spacy_entmem.models.memory import MEMORY_LAYER, find_layer
from spacy_entmem.models.causal_lm_features import StateCache, build_causal_lm_features
from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.nn.lm.layer_states import token_states

from ..conftest import TINY_TOK2VEC, train_pipeline

TEXTS = ["Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie.",
         "Alan Turing worked at Bletchley Park. Joan Clarke worked with him; she was a cryptanalyst."]


def tiny_lm_config(tiny_lm_dir) -> dict:
    """The layer's config over the tiny test LM, with a cache."""
    return {"@architectures": "spacy_entmem.CausalLMFeatures.v1", "base": tiny_lm_dir, "gguf_file": "", "layer": 1,
            "cache_tokens": 100000}


def _features(tiny_lm_dir, **settings):
    model = build_causal_lm_features(base=tiny_lm_dir, gguf_file="", **{"layer": 1, **settings})
    return model.initialize()


def test_states_per_token_for_each_doc_and_nothing_to_backpropagate(tiny_lm_dir):
    model = _features(tiny_lm_dir)
    assert model.get_dim("nO") == 24
    nlp = spacy.blank("en")
    docs = [nlp(TEXTS[0]), nlp(""), nlp(TEXTS[1])]
    outputs, backprop = model(docs, is_train=True)
    assert [o.shape for o in outputs] == [(len(docs[0]), 24), (0, 24), (len(docs[2]), 24)]
    base, tokenizer = load_base_lm(tiny_lm_dir)
    expected = token_states(base, tokenizer, docs[2].text, [(t.idx, t.idx + len(t)) for t in docs[2]], 1, 512, 384)
    numpy.testing.assert_allclose(outputs[2], expected.astype("float16").astype("float32"))
    assert backprop([numpy.ones_like(o) for o in outputs]) == []


def test_the_cache_returns_what_a_fresh_read_gives(tiny_lm_dir):
    nlp = spacy.blank("en")
    cached = _features(tiny_lm_dir, cache_tokens=1000)
    first, _ = cached([nlp(TEXTS[0])], is_train=False)
    again, _ = cached([nlp(TEXTS[0])], is_train=False)  # a new Doc with the same text and tokens
    fresh, _ = _features(tiny_lm_dir)([nlp(TEXTS[0])], is_train=False)
    numpy.testing.assert_array_equal(first[0], again[0])
    numpy.testing.assert_array_equal(first[0], fresh[0])


def test_a_lead_is_read_before_each_doc_and_keeps_its_own_cache(tiny_lm_dir):
    nlp = spacy.blank("en")
    doc = nlp(TEXTS[1])
    plain, _ = _features(tiny_lm_dir, cache_tokens=1000)([doc], is_train=False)
    led, _ = _features(tiny_lm_dir, cache_tokens=1000, lead="\n")([doc], is_train=False)
    base, tokenizer = load_base_lm(tiny_lm_dir)
    # the LM reads "\n" + text: each token's state is that of its own piece one character further on
    expected = token_states(base, tokenizer, "\n" + doc.text, [(t.idx + 1, t.idx + 1 + len(t)) for t in doc], 1,
                            512, 384)
    assert led[0].shape == plain[0].shape == (len(doc), 24)
    numpy.testing.assert_allclose(led[0], expected.astype("float16").astype("float32"))
    numpy.testing.assert_allclose(led[0], token_states(base, tokenizer, doc.text, [(t.idx, t.idx + len(t))
                                                                                   for t in doc], 1, 512, 384,
                                                       lead="\n").astype("float16").astype("float32"))
    # the first word is read after the lead, not right after <bos>: its state changes (a cache shared with the
    # plain layer would have returned the plain states)
    assert not numpy.allclose(led[0][0], plain[0][0])


def test_the_cache_drops_the_least_recently_used_documents_beyond_its_token_budget():
    cache = StateCache()
    for key, n in [("a", 4), ("b", 3), ("c", 2)]:
        cache.put(key, numpy.zeros((n, 2)), max_tokens=9)
    assert cache.get("a") is not None  # "a" is now the most recent
    cache.put("d", numpy.zeros((3, 2)), max_tokens=9)
    assert list(cache.entries) == ["c", "a", "d"] and cache.n_tokens == 9
    cache.put("huge", numpy.zeros((10, 2)), max_tokens=9)
    assert "huge" not in cache.entries


@pytest.mark.parametrize("settings, message", [
    ({"layer": -1}, "layer must be ≥ 0, got -1"),
    ({"window": 8, "stride": 8}, "need 0 < stride < window, got stride 8, window 8"),
    ({"cache_tokens": -5}, "cache_tokens must be ≥ 0, got -5"),
])
def test_invalid_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        build_causal_lm_features(**settings)


def test_a_memory_reading_tok2vec_and_lm_states_trains_and_round_trips(tiny_lm_dir, gap_validation_docs, tmp_path):
    lm = tiny_lm_config(tiny_lm_dir)
    tok2vec = {"@layers": "concatenate.v1",
               "*": {"sm": {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"}, "lm": lm}}
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config=TINY_TOK2VEC)
    nlp.add_pipe("entity_memory", config={"model": {"@architectures": "spacy_entmem.PeTra.v1", "tok2vec": tok2vec,
                                                    "hidden_width": 16, "n_cells": 4, "mlp_width": 16}})
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in gap_validation_docs[:4]]
    losses = train_pipeline(nlp, examples, steps=3, learn_rate=0.01)
    assert all(numpy.isfinite(losses))
    assert find_layer(nlp.get_pipe("entity_memory").model, MEMORY_LAYER).get_dim("nI") == 32 + 24
    doc = nlp(gap_validation_docs[0].text)
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    again = loaded(gap_validation_docs[0].text)
    assert len(doc._.entity_memory_log["coref"]) == len(doc)
    numpy.testing.assert_allclose(again._.entity_memory_log["coref"], doc._.entity_memory_log["coref"])


def test_settings_come_from_the_config_when_a_saved_pipeline_loads(tiny_lm_dir, tmp_path):
    """A config override at load (here: the cache turned off) reaches the layer; nothing of it is in the
    model's serialized attrs."""
    from spacy_entmem.models.causal_lm_features import _CACHES

    lm = tiny_lm_config(tiny_lm_dir)
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": lm})
    nlp.initialize()
    nlp.to_disk(tmp_path / "nlp")
    _CACHES.clear()
    text = "A text that no other test reads, about Ada Lovelace and her notes."
    spacy.load(tmp_path / "nlp", config={"components.tok2vec.model.cache_tokens": 0})(text)
    assert sum(cache.n_tokens for cache in _CACHES.values()) == 0
    doc = spacy.load(tmp_path / "nlp")(text)
    assert sum(cache.n_tokens for cache in _CACHES.values()) == len(doc)
