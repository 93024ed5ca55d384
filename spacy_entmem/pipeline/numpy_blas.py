"""``spacy_entmem.numpy_blas.v1``: an ``[nlp.after_pipeline_creation]`` callback that runs a pipeline's thinc
layers with numpy's BLAS for their matrix products instead of BLIS.

thinc's ``NumpyOps`` multiplies matrices with BLIS by default; with ``use_blis=False`` it calls numpy (whose
wheels bring an optimised BLAS). On the machine the README's figures come from, numpy's single-threaded
product of the CNN tok2vec's shapes (8,600 × 288 by 288 × 288) took 15 ms against BLIS's 43 ms, and the
default pipeline ran 1.27× faster with the same clusters. Only layers on BLIS-backed ``NumpyOps`` change:
CuPy (GPU) and other ops are left as they are. Torch layers (the entity memory) do not use thinc's ops.
"""
from typing import Callable

from spacy.language import Language
from spacy.util import registry
from thinc.api import Model, NumpyOps


@registry.callbacks("spacy_entmem.numpy_blas.v1")
def make_numpy_blas() -> Callable[[Language], Language]:
    return use_numpy_blas


def use_numpy_blas(nlp: Language) -> Language:
    """``nlp`` with every thinc layer of its components that multiplies with BLIS switched to numpy's BLAS
    (disabled components included; the results differ only by float rounding)."""
    return set_blis(nlp, False)


def set_blis(nlp: Language, use_blis: bool) -> Language:
    """``nlp`` with the thinc layers of its components on ``NumpyOps`` multiplying with BLIS (``use_blis``) or
    numpy's BLAS; layers on other ops are left as they are."""
    ops = NumpyOps(use_blis=use_blis)
    for _, component in nlp.components:
        model = getattr(component, "model", None)
        if not isinstance(model, Model):
            continue
        for node in model.walk():
            if type(node.ops) is NumpyOps and node.ops.use_blis != use_blis:
                node.ops = ops
    return nlp
