"""A tok2vec listener with its own window encoder on top, for a component that needs more context than the
shared tok2vec gives (a mention finder deciding where a long noun phrase ends) without a second embedding.

The encoder is residual maxout over windows (``spacy.MaxoutWindowEncoder.v2``, as in spaCy's Tok2Vec), which
pads between documents, so a token's vector never depends on the documents batched with it.
"""
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model, chain
from thinc.types import Floats2d


@registry.architectures("spacy_entmem.ContextualListener.v1")
def build_contextual_listener(tok2vec: Model[List[Doc], List[Floats2d]],
                              encode: Model[List[Floats2d], List[Floats2d]]) -> Model[List[Doc], List[Floats2d]]:
    """Docs → encode(tok2vec(doc)) per doc; ``encode``'s width must equal the listener's."""
    model = chain(tok2vec, encode)
    model.set_dim("nO", encode.get_dim("nO"))
    return model
