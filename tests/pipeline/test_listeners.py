"""Which token vectors a memory reads: weight digests, the stamp the package's tok2vec leaves on each doc."""
import spacy

import spacy_entmem
from spacy_entmem.pipeline.listeners import VECTORS_STAMP, listened_upstreams, model_digest, vectors_digest


def test_the_digest_follows_the_weights_and_ignores_copies():
    nlp = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    tok2vec = nlp.get_pipe("tok2vec").model
    digest = model_digest(tok2vec)
    assert model_digest(tok2vec.copy()) == digest
    node = next(n for n in tok2vec.walk() if "W" in n.param_names and n.has_param("W"))
    weights = node.get_param("W").copy()
    weights[(0,) * weights.ndim] += 1.0
    node.set_param("W", weights)
    assert model_digest(tok2vec) != digest


def test_the_shipped_tok2vec_stamps_each_doc_and_the_memory_reads_it():
    nlp = spacy_entmem.load_default()
    memory = nlp.get_pipe("entity_memory")
    assert listened_upstreams(memory) == ["tok2vec"] and listened_upstreams(nlp.get_pipe("pronoun_resolver")) == []
    doc = nlp("Anna called Ben.")
    assert doc.user_data[VECTORS_STAMP] == memory.cfg["tok2vec_digest"] == vectors_digest(nlp, memory)


def test_a_memory_with_its_own_tok2vec_reads_the_shipped_weights():
    shipped = spacy.load(spacy_entmem.DEFAULT_PIPELINE)
    expected = shipped.get_pipe("entity_memory").cfg["tok2vec_digest"]
    shipped.replace_listeners("tok2vec", "entity_memory", ["model.tok2vec"])
    memory = shipped.get_pipe("entity_memory")
    assert listened_upstreams(memory) == [] and vectors_digest(shipped, memory) == expected
    assert len(expected) == 16
