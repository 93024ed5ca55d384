import numpy
import pytest
import spacy
from spacy.util import registry
from thinc.api import Model

from spacy_entmem.models.static_vectors import static_vectors


def tok2vec_of_width(width: int) -> Model:
    """A stand-in tok2vec: one row of ``width`` ones per token, recording the gradient it receives."""
    def forward(model, docs, is_train):
        def backprop(d_outputs):
            model.attrs["d"] = d_outputs
            return []
        return [numpy.ones((len(doc), width), dtype="float32") for doc in docs], backprop
    return Model("ones", forward, attrs={"d": None})


@pytest.fixture
def nlp():
    nlp = spacy.blank("en")
    nlp.vocab.set_vector("cat", numpy.asarray([1.0, 2.0, 3.0], dtype="float32"))
    nlp.vocab.set_vector("dog", numpy.asarray([4.0, 5.0, 6.0], dtype="float32"))
    return nlp


def test_vectors_are_appended_by_word_with_zeros_for_unknown_words(nlp):
    doc = nlp("cat zebra dog")
    assert static_vectors(doc).tolist() == [[1, 2, 3], [0, 0, 0], [4, 5, 6]]
    model = registry.architectures.get("spacy_entmem.WithStaticVectors.v1")(tok2vec_of_width(2))
    model.initialize(X=[doc])
    (out,), backprop = model([doc], is_train=True)
    assert out.shape == (3, 5) and out[:, :2].tolist() == [[1, 1]] * 3 and out[2, 2:].tolist() == [4, 5, 6]
    backprop([numpy.arange(15, dtype="float32").reshape(3, 5)])
    # only the tok2vec's columns are passed back: the vectors are frozen
    assert model.layers[0].attrs["d"][0].tolist() == [[0, 1], [5, 6], [10, 11]]


def test_a_vocabulary_without_vectors_is_a_clear_error():
    doc = spacy.blank("en")("no vectors here")
    with pytest.raises(ValueError, match=r"needs word vectors.*\[initialize\] vectors"):
        static_vectors(doc)
