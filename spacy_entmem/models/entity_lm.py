"""Registered architectures of ``entity_lm_scorer``: thinc wrappers around the torch language models of
``spacy_entmem.nn.lm``. The torch module is built once the vocabulary size is known (``initialize`` or
loading), so the architecture holds a builder."""
from typing import Callable, List, Tuple

import numpy
import torch
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2

from ..nn.lm.dntm import DYNAMIC, MERGES, DynamicEntityLM, LMBatch
from ..pipeline.lm_inputs import LMDocument

LM_LAYER = "entity_lm"


@registry.architectures("spacy_entmem.DynamicEntityLM.v1")
def build_dynamic_entity_lm(
    n_slots: int = 80,
    embed_width: int = 256,
    hidden_width: int = 256,
    context_width: int = 128,
    dynamic: str = "both",
    merge: str = "gru_relu",
    dropout: float = 0.3,
    shortlist: int = 2000,
) -> Model[List[LMDocument], torch.Tensor]:
    """The Dynamic Neural Text Model (Kobayashi et al. 2017): ``dynamic`` = "none" (the LSTM LM baseline),
    "input", "output" or "both"; ``merge`` = "gru_relu", "gru", "max" or "latest"; words through torch's
    adaptive softmax with a head of ``shortlist`` words."""
    problems = []
    if dynamic not in DYNAMIC:
        problems.append(f"dynamic must be one of {', '.join(DYNAMIC)}, got {dynamic!r}")
    if merge not in MERGES:
        problems.append(f"merge must be one of {', '.join(MERGES)}, got {merge!r}")
    for name, value in (("n_slots", n_slots), ("embed_width", embed_width), ("hidden_width", hidden_width),
                        ("context_width", context_width), ("shortlist", shortlist)):
        if value < 1:
            problems.append(f"{name} must be at least 1, got {value}")
    if not 0.0 <= dropout < 1.0:
        problems.append(f"dropout must be in [0, 1), got {dropout}")
    if problems:
        raise ValueError("[spacy-entmem] invalid DynamicEntityLM config: " + "; ".join(problems))

    def build(vocab_size: int) -> DynamicEntityLM:
        return DynamicEntityLM(vocab_size, n_slots, embed_width, hidden_width, context_width, dynamic, merge,
                               dropout, cutoffs=(shortlist,))

    return lm_layer(build, n_slots)


def lm_layer(build: Callable[[int], torch.nn.Module], n_slots: int) -> Model:
    return Model(LM_LAYER, lm_forward, attrs={"build": build, "n_slots": n_slots}, dims={"nV": None})


def build_lm_module(model: Model, vocab_size: int) -> None:
    """Create the torch module for a vocabulary of ``vocab_size`` ids (before training or loading)."""
    if model.layers:
        return
    model.set_dim("nV", vocab_size)
    model._layers.append(PyTorchWrapper_v2(model.attrs["build"](vocab_size), convert_inputs=lm_inputs,
                                           convert_outputs=lm_outputs))


def lm_forward(model: Model, docs: List[LMDocument], is_train: bool):
    if not model.layers:
        raise ValueError("[spacy-entmem] the entity_lm_scorer has no trained model yet: train it with "
                         "`spacy train` (it is built in nlp.initialize()) or load a trained pipeline")
    return model.layers[0](docs, is_train)


def pad_documents(docs: List[LMDocument]) -> LMBatch:
    """The documents as one padded batch of flat token sequences, with the sentence view the context
    encoder reads (see ``LMBatch``)."""
    T = max((sum(len(w) for w in d.words) for d in docs), default=0)
    words = numpy.zeros((len(docs), T), dtype="int64")
    slots = numpy.full((len(docs), T), -1, dtype="int64")
    sentence = numpy.zeros((len(docs), T), dtype="int64")
    mask = numpy.zeros((len(docs), T), dtype="int64")
    L = max((len(w) for d in docs for w in d.words), default=0)
    sentence_tokens, sentence_doc, sentence_index = [], [], []
    for b, doc in enumerate(docs):
        start = 0
        for s, (w, k) in enumerate(zip(doc.words, doc.slots)):
            end = start + len(w)
            words[b, start:end], slots[b, start:end], sentence[b, start:end], mask[b, start:end] = w, k, s, 1
            row = numpy.full(L, -1, dtype="int64")
            row[:len(w)] = numpy.arange(b * T + start, b * T + end)
            sentence_tokens.append(row)
            sentence_doc.append(b)
            sentence_index.append(s)
            start = end
    sentence_rows = numpy.asarray(sentence_tokens, dtype="int64").reshape(len(sentence_tokens), L)
    return LMBatch(*(torch.from_numpy(a) for a in (words, slots, sentence, mask, sentence_rows,
                                                     numpy.asarray(sentence_doc, dtype="int64"),
                                                     numpy.asarray(sentence_index, dtype="int64"))))


def lm_inputs(model: Model, docs: List[LMDocument], is_train: bool):
    return ArgsKwargs(args=(pad_documents(docs),), kwargs={}), lambda d: []


def lm_outputs(model: Model, inputs_outputs: Tuple, is_train: bool):
    _, logp = inputs_outputs
    if not is_train:
        return logp.detach(), lambda d: None
    leaf = logp.detach().requires_grad_(True)

    def backprop(d_logp: torch.Tensor) -> ArgsKwargs:
        return ArgsKwargs(args=([logp],), kwargs={"grad_tensors": [d_logp]})

    return leaf, backprop
