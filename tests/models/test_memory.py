import numpy
import pytest
import spacy
from spacy.training import Example

from spacy_entmem.models.memory import TOKEN_IDS_LAYER, count_lm_vocabulary, find_layer, torch_memory
from spacy_entmem.nn.memory.petra import PetraMemory
from spacy_entmem.nn.memory.referential_reader import ReferentialReaderMemory

from ..conftest import TINY_TOK2VEC, train_pipeline

LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"}
READER = {"@architectures": "spacy_entmem.ReferentialReader.v1", "hidden_width": 16, "n_cells": 3,
          "key_width": 4, "tok2vec": LISTENER}
PETRA_V2 = {"@architectures": "spacy_entmem.PeTra.v2", "hidden_width": 16, "mlp_width": 16, "n_cells": 3,
            "learned_init": True, "fixed_key_width": 4, "tok2vec": LISTENER}
# next-token prediction needs token vectors without right context
LOCAL_TOK2VEC = {"model": {**TINY_TOK2VEC["model"], "encode": {**TINY_TOK2VEC["model"]["encode"], "window_size": 0}}}


def pipeline(model, tok2vec=TINY_TOK2VEC, **config):
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config=tok2vec)
    nlp.add_pipe("entity_memory", config={"model": model, **config})
    return nlp


@pytest.mark.parametrize("model, module_type", [(READER, ReferentialReaderMemory), (PETRA_V2, PetraMemory)])
def test_memory_architectures_train_annotate_and_round_trip(model, module_type, gap_validation_docs):
    nlp = pipeline(model)
    examples = [Example(nlp.make_doc(d.text), d) for d in gap_validation_docs[:16]]
    history = train_pipeline(nlp, examples, steps=4, batch_size=8)
    assert history[-1] < history[0]
    assert isinstance(torch_memory(nlp.get_pipe("entity_memory").model), module_type)
    texts = [d.text for d in gap_validation_docs[16:20]]
    docs = list(nlp.pipe(texts))
    assert all(doc._.entity_memory_log["coref"].shape == (len(doc), 3) for doc in docs)
    assert all(isinstance(doc._.entity_count, int) for doc in docs)
    reloaded = pipeline(model)
    reloaded.from_bytes(nlp.to_bytes())
    for doc, again in zip(docs, reloaded.pipe(texts)):
        assert numpy.array_equal(doc._.entity_memory_log["overwrite"], again._.entity_memory_log["overwrite"])
        assert [(s.start, s.end) for s in doc.spans["coref_mentions"]] == [
            (s.start, s.end) for s in again.spans["coref_mentions"]]


def test_language_model_objective_learns_from_raw_text(tmp_path, gap_validation_docs):
    model = {**READER, "lm_vocab_size": 50}
    nlp = pipeline(model, tok2vec=LOCAL_TOK2VEC, lm_weight=1.0)
    raw = [Example(nlp.make_doc(d.text), nlp.make_doc(d.text)) for d in gap_validation_docs[:16]]
    history = train_pipeline(nlp, raw, steps=5, batch_size=8)
    assert history[-1] < 0.95 * history[0]  # unannotated docs give a language-model loss only
    layer = find_layer(nlp.get_pipe("entity_memory").model, TOKEN_IDS_LAYER)
    vocab = layer.attrs["lm_vocab"]
    assert len(vocab) == 49 and sorted(vocab.values()) == list(range(1, 50))
    assert set(vocab) == set(count_lm_vocabulary((eg.predicted for eg in raw), 50))
    nlp.to_disk(tmp_path / "lm")
    loaded = spacy.load(tmp_path / "lm")
    assert find_layer(loaded.get_pipe("entity_memory").model, TOKEN_IDS_LAYER).attrs["lm_vocab"] == vocab


def test_language_model_objective_refuses_token_vectors_that_see_the_future(gap_validation_docs):
    nlp = pipeline({**READER, "lm_vocab_size": 50}, tok2vec=TINY_TOK2VEC, lm_weight=1.0)  # window_size 1
    examples = [Example(nlp.make_doc(d.text), d) for d in gap_validation_docs[:4]]
    with pytest.raises(ValueError, match="depend on later tokens"):
        nlp.initialize(lambda: examples)


def test_language_model_weight_needs_a_head(gap_validation_docs):
    nlp = pipeline(READER, tok2vec=LOCAL_TOK2VEC, lm_weight=1.0)
    examples = [Example(nlp.make_doc(d.text), d) for d in gap_validation_docs[:4]]
    with pytest.raises(ValueError, match="lm_weight > 0 needs a language-model head"):
        nlp.initialize(lambda: examples)


def test_vocabulary_is_the_most_frequent_norms():
    nlp = spacy.blank("en")
    docs = [nlp("the cat saw the dog and the Cat ran")]
    assert count_lm_vocabulary(docs, 3) == ["the", "cat"]
