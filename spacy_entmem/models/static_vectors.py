"""Token vectors with the vocabulary's static word vectors appended (frozen, not projected).

A tagger/parser tok2vec (96 wide) says what a token does in its sentence; a static word vector (e.g.
en_core_web_md's 300-dim vectors) says what the word means — a person's name or a place, which the memory
needs to keep a pronoun away from "Paris". The vectors come from ``doc.vocab.vectors`` (set with
``[initialize] vectors``); a word without a vector gets zeros. Only the wrapped tok2vec is trained.
"""
from typing import List, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

LAYER_NAME = "with_static_vectors"


@registry.architectures("spacy_entmem.WithStaticVectors.v1")
def build_with_static_vectors(tok2vec: Model[List[Doc], List[Floats2d]]) -> Model[List[Doc], List[Floats2d]]:
    """Docs → [tok2vec(doc) ; vectors[doc's words]] per doc; width = tok2vec's + the vectors' width."""
    return Model(LAYER_NAME, forward, init=init, layers=[tok2vec], dims={"nO": None})


def init(model: Model, X=None, Y=None) -> Model:
    model.layers[0].initialize(X=X)
    return model


def static_vectors(doc: Doc) -> numpy.ndarray:
    """(len(doc), width) float32 vectors of the doc's words by ORTH (zeros where the table has none)."""
    table = doc.vocab.vectors
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(
            "[spacy-entmem] spacy_entmem.WithStaticVectors.v1 needs word vectors in the vocabulary, but it has "
            "none: set [initialize] vectors (e.g. to the path of en_core_web_md) before nlp.initialize()")
    rows = table.find(keys=doc.to_array("ORTH").astype("uint64"))
    data = numpy.asarray(table.data, dtype="float32")
    vectors = data[numpy.maximum(rows, 0)]
    vectors[rows < 0] = 0.0
    return vectors


def forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[Floats2d], callable]:
    encoded, backprop_tok2vec = model.layers[0](docs, is_train)
    widths = [int(x.shape[1]) for x in encoded]
    outputs = [model.ops.xp.hstack([x, model.ops.asarray2f(static_vectors(doc))]) for x, doc in zip(encoded, docs)]

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        return backprop_tok2vec([d[:, :width] for d, width in zip(d_outputs, widths)])

    return outputs, backprop
