import numpy
import pytest
import spacy
from thinc.api import Config

import spacy_entmem
from spacy_entmem.batch.outputs import doc_record
from spacy_entmem.pipeline.chunked_tok2vec import receptive_field, use_chunked_tok2vec

from ..test_default_pipeline import SAMPLES


@pytest.fixture(scope="module")
def long_text():
    return " ".join(p.read_text(encoding="utf8") for p in sorted(SAMPLES.glob("*.txt"))) * 8


def test_chunks_with_the_receptive_field_as_margin_give_the_whole_documents_vectors(long_text):
    # equal up to float rounding: the BLAS kernel (OPENBLAS_CORETYPE, the processor) may sum in another order for
    # a chunk than for the whole document, so bit-identity is not guaranteed (about 1e-7 apart on some machines)
    nlp = spacy_entmem.load_default()
    tok2vec = nlp.get_pipe("tok2vec")
    assert tok2vec.margin == 4 and receptive_field(nlp.config["components"]["tok2vec"]["model"]) == 4
    doc = nlp.make_doc(long_text)
    whole = tok2vec.model.predict([doc])[0]
    tok2vec.chunk_size = 97
    assert len(tok2vec.chunks(len(doc))) == -(-len(doc) // 97) > 10
    numpy.testing.assert_allclose(tok2vec.predict([doc])[0], whole, rtol=0, atol=1e-5)
    tok2vec.margin = 3  # too small a margin changes vectors at chunk edges, far beyond rounding
    assert numpy.abs(tok2vec.predict([doc])[0] - whole).max() > 1e-3


def test_the_pipeline_annotates_identically_in_chunks(long_text):
    whole = spacy_entmem.load_default(config={"components": {"tok2vec": {"chunk_size": 100000}}})
    chunked = spacy_entmem.load_default(config={"components": {"tok2vec": {"chunk_size": 64}}})
    docs = [long_text, "Hi", ""]
    assert [doc_record("d", d) for d in chunked.pipe(docs)] == [doc_record("d", d) for d in whole.pipe(docs)]


def test_invalid_settings_and_configs():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="chunk_size must be >= 1, got 0"):
        nlp.add_pipe("entmem_tok2vec", config={"chunk_size": 0})
    with pytest.raises(ValueError, match="margin must be >= 0"):
        nlp.add_pipe("entmem_tok2vec", config={"margin": -1})
    with pytest.raises(ValueError, match="receptive field is unknown"):
        receptive_field({"@architectures": "spacy-transformers.TransformerListener.v1"})
    config = Config({"components": {
        "cnn": {"factory": "tok2vec", "model": {"encode": {"depth": 2, "window_size": 3}}},
        "other": {"factory": "tok2vec", "model": {"@architectures": "something.else"}},
        "ner": {"factory": "ner"}}})
    assert use_chunked_tok2vec(config, chunk_size=500) == ["cnn"]
    assert config["components"]["cnn"] == {"factory": "entmem_tok2vec", "chunk_size": 500, "margin": 6,
                                           "model": {"encode": {"depth": 2, "window_size": 3}}}
    assert config["components"]["other"]["factory"] == "tok2vec"
