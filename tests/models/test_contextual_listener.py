import numpy
import spacy
from spacy.util import registry
from thinc.api import Model

ARCH = "spacy_entmem.ContextualListener.v1"


def fixed_vectors(width: int) -> Model:
    """A stand-in tok2vec: each token's vector is its length, repeated ``width`` times."""
    def forward(model, docs, is_train):
        return [numpy.repeat(numpy.asarray([[len(t)] for t in doc], dtype="float32"), width, 1) for doc in docs], \
            lambda d: []
    return Model("lengths", forward, dims={"nO": width})


def build(width: int = 8):
    encode = registry.architectures.get("spacy.MaxoutWindowEncoder.v2")(width=width, depth=2, window_size=2,
                                                                        maxout_pieces=2)
    return registry.architectures.get(ARCH)(fixed_vectors(width), encode)


def test_vectors_of_a_doc_do_not_depend_on_the_docs_batched_with_it():
    nlp = spacy.blank("en")
    short, longer = nlp("a cat"), nlp("the elephants were walking slowly home")
    model = build()
    model.initialize(X=[short, longer])
    alone = model.predict([short])[0]
    batched = model.predict([longer, short, longer])
    assert batched[1].shape == (2, 8)
    numpy.testing.assert_allclose(batched[1], alone, rtol=1e-6)
    numpy.testing.assert_allclose(batched[0], batched[2], rtol=1e-6)


def test_the_encoder_widens_context_and_the_width_is_the_encoders():
    nlp = spacy.blank("en")
    model = build()
    a, b = nlp("x x x x x x x x"), nlp("x x x x x x x longword")
    model.initialize(X=[a, b])
    assert model.get_dim("nO") == 8
    out_a, out_b = model.predict([a, b])
    # two window layers of 2 each side: token 3 sees token 7, token 2 does not
    assert not numpy.allclose(out_a[3], out_b[3]) and numpy.allclose(out_a[2], out_b[2])
