"""Registered, versioned model architectures: thinc glue around the torch memory modules."""
from typing import List, Optional, Tuple

import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2, chain, torch2xp, xp2torch
from thinc.types import Floats2d

from .torch_models.petra import MemoryOutput, PetraMemory, pad_sequences, validate_memory_config

UNTRAINED_MESSAGE = (
    "[spacy-entmem] the entity_memory component has no trained model yet: its memory is built in "
    "nlp.initialize() and learnt with `spacy train`. Train one, or load a trained pipeline "
    "(e.g. spacy_entmem.load_default() or spacy.load(path))."
)


@registry.architectures("spacy_entmem.PeTra.v1")
def build_petra_model(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 300,
    n_cells: int = 10,
    mlp_width: int = 300,
    usage_decay: float = 0.98,
    dropout: float = 0.0,
    gumbel_hard: bool = False,
) -> Model[List[Doc], MemoryOutput]:
    """Token vectors → left-to-right GRU → PeTra memory. The torch module is built in initialize(),
    once the width of the token vectors is known."""
    validate_memory_config(n_cells, hidden_width, mlp_width, usage_decay, dropout)
    memory = Model(
        "petra_memory",
        memory_forward,
        init=memory_init,
        dims={"nI": None},
        attrs={
            "build": lambda width: PetraMemory(
                width, hidden_width, n_cells, mlp_width, usage_decay, dropout, gumbel_hard
            ),
            "n_cells": n_cells,
        },
    )
    return chain(tok2vec, memory)


def memory_init(model: Model, X: Optional[List[Floats2d]] = None, Y=None) -> Model:
    if model.layers:
        return model
    if X is not None and len(X):
        model.set_dim("nI", int(X[0].shape[1]))
    if not model.has_dim("nI"):
        raise ValueError("[spacy-entmem] cannot build the memory: the width of the token vectors is unknown")
    build_torch_layer(model, model.get_dim("nI"))
    return model


def build_torch_layer(model: Model, width: int) -> None:
    """Create the torch module for input width ``width`` (also used before deserializing)."""
    model.set_dim("nI", width)
    wrapper = PyTorchWrapper_v2(
        model.attrs["build"](width), convert_inputs=convert_inputs, convert_outputs=convert_outputs
    )
    model._layers.append(wrapper)


def memory_forward(model: Model, X: List[Floats2d], is_train: bool):
    if not model.layers:
        raise ValueError(UNTRAINED_MESSAGE)
    return model.layers[0](X, is_train)


def find_memory_layer(model: Model) -> Model:
    for node in model.walk():
        if node.name == "petra_memory":
            return node
    raise ValueError("[spacy-entmem] the model has no entity memory layer")


def torch_memory(model: Model) -> Optional[torch.nn.Module]:
    """The torch memory module inside a model, or None before initialization."""
    layer = find_memory_layer(model)
    return layer.layers[0].shims[0]._model if layer.layers else None


def convert_inputs(model: Model, X: List[Floats2d], is_train: bool):
    lengths = [len(x) for x in X]
    tensors = [xp2torch(model.ops.asarray2f(x)) for x in X]
    padded = pad_sequences(tensors).detach().requires_grad_(is_train)

    def backprop(d_inputs: ArgsKwargs) -> List[Floats2d]:
        d_padded = d_inputs.args[0]
        if d_padded is None:  # nothing reached the inputs (e.g. a batch of empty docs)
            d_padded = torch.zeros_like(padded)
        return [torch2xp(d_padded[i, :n]) for i, n in enumerate(lengths)]

    return ArgsKwargs(args=(padded, torch.tensor(lengths)), kwargs={}), backprop


def convert_outputs(model: Model, inputs_outputs: Tuple, is_train: bool):
    _, out = inputs_outputs
    if not is_train:
        return out, lambda d_out: None
    leaves = [t.detach().requires_grad_(True) for t in out.tensors()]
    detached = MemoryOutput(*leaves, lengths=out.lengths)

    def backprop(grads: List[Optional[torch.Tensor]]) -> ArgsKwargs:
        used = [(t, g) for t, g in zip(out.tensors(), grads) if g is not None and t.requires_grad]
        return ArgsKwargs(args=([t for t, _ in used],), kwargs={"grad_tensors": [g for _, g in used]})

    return detached, backprop
