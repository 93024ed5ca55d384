"""Registered, versioned model architectures: thinc glue around the torch memory modules."""
from collections import Counter
from functools import lru_cache
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

import numpy
import torch
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import ArgsKwargs, Model, PyTorchWrapper_v2, chain, torch2xp, xp2torch
from thinc.types import Floats2d, Ints1d, Ints2d

from ..linguistics import switches
from ..linguistics.columns import ATTRIBUTE_FIELDS, PADDING_ATTRIBUTES
from ..linguistics.lexicon import StringIds
from ..linguistics.mentions import mention_attributes
from ..nn.memory.mention_memory import MentionMemory, validate_mention_memory_config
from ..nn.memory.outputs import MemoryOutput, pad_sequences
from ..nn.memory.petra import PetraMemory, validate_memory_config
from ..nn.memory.referential_reader import ReferentialReaderMemory, validate_reader_config
from ..nn.memory.span_petra import SpanPetraMemory

UNTRAINED_MESSAGE = (
    "[spacy-entmem] the entity_memory component has no trained model yet: its memory is built in "
    "nlp.initialize() and learnt with `spacy train`. Train one, or load a trained pipeline "
    "(e.g. spacy_entmem.load_default() or spacy.load(path))."
)
MEMORY_LAYER = "petra_memory"  # the node name of every memory layer (kept from v1 for saved pipelines)
TOKEN_IDS_LAYER = "lm_token_ids"
SPANS_LAYER = "mention_spans"
ATTRIBUTES_LAYER = "mention_attributes"
UNKNOWN_WORD = 0
# token vectors | (vectors, LM token ids) | (vectors, None, candidate spans (M, 2) per doc)
MemoryInput = Union[List[Floats2d], Tuple[List[Floats2d], List[Ints1d]],
                    Tuple[List[Floats2d], None, List[Ints2d]]]


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
    build = lambda width: PetraMemory(width, hidden_width, n_cells, mlp_width, usage_decay, dropout, gumbel_hard)
    return chain(tok2vec, memory_layer(build, n_cells))


@registry.architectures("spacy_entmem.PeTra.v2")
def build_petra_model_v2(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 300,
    n_cells: int = 10,
    mlp_width: int = 300,
    usage_decay: float = 0.98,
    dropout: float = 0.0,
    gumbel_hard: bool = False,
    learned_init: bool = False,
    fixed_key_width: int = 0,
    lm_vocab_size: int = 0,
) -> Model[List[Doc], MemoryOutput]:
    """PeTra with the paper's variants (learned initial memory, fixed learned keys of
    ``fixed_key_width`` dimensions) and an optional next-token head over ``lm_vocab_size`` words
    (0 = none) for the language-model objective."""
    validate_memory_config(n_cells, hidden_width, mlp_width, usage_decay, dropout, fixed_key_width, lm_vocab_size)

    def build(width: int) -> PetraMemory:
        return PetraMemory(width, hidden_width, n_cells, mlp_width, usage_decay, dropout, gumbel_hard,
                           learned_init, fixed_key_width, lm_vocab_size)

    return chain(with_token_ids(tok2vec, lm_vocab_size), memory_layer(build, n_cells))


@registry.architectures("spacy_entmem.ReferentialReader.v1")
def build_referential_reader(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 300,
    n_cells: int = 2,
    key_width: int = 16,
    entity_half_life: float = 4.0,
    token_half_life: float = 30.0,
    dropout: float = 0.0,
    gumbel_hard: bool = False,
    lm_vocab_size: int = 0,
) -> Model[List[Doc], MemoryOutput]:
    """Token vectors → Referential Reader (key/value/salience memory fed back into the recurrent
    state), with an optional next-token head for its language-model objective."""
    validate_reader_config(n_cells, hidden_width, key_width, entity_half_life, token_half_life, dropout,
                           lm_vocab_size)

    def build(width: int) -> ReferentialReaderMemory:
        return ReferentialReaderMemory(width, hidden_width, n_cells, key_width, entity_half_life,
                                       token_half_life, dropout, gumbel_hard, lm_vocab_size)

    return chain(with_token_ids(tok2vec, lm_vocab_size), memory_layer(build, n_cells))


@registry.architectures("spacy_entmem.SpanPeTra.v1")
def build_span_petra(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 300,
    n_cells: int = 20,
    mlp_width: int = 300,
    usage_decay: float = 0.98,
    dropout: float = 0.0,
    gumbel_hard: bool = False,
    max_span_width: int = 20,
    width_embedding: int = 20,
) -> Model[Tuple[List[Doc], List[Ints2d]], MemoryOutput]:
    """(docs, candidate spans) → token vectors → GRU → one PeTra memory step per candidate mention
    (exact, possibly nested spans; see torch_models/span_petra.py)."""
    validate_memory_config(n_cells, hidden_width, mlp_width, usage_decay, dropout)
    if max_span_width < 1 or width_embedding < 1:
        raise ValueError("[spacy-entmem] invalid SpanPeTra config: max_span_width and width_embedding must be "
                         f"at least 1, got {max_span_width} and {width_embedding}")

    def build(width: int) -> SpanPetraMemory:
        return SpanPetraMemory(width, hidden_width, n_cells, mlp_width, usage_decay, dropout, gumbel_hard,
                               max_span_width, width_embedding)

    return chain(with_spans(tok2vec), memory_layer(build, n_cells))


@registry.architectures("spacy_entmem.MentionMemory.v1")
def build_mention_memory(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 200,
    n_cells: int = 20,
    mlp_width: int = 200,
    usage_decay: float = 0.98,
    dropout: float = 0.3,
    max_span_width: int = 20,
    width_embedding: int = 20,
    feature_width: int = 16,
) -> Model[Tuple[List[Doc], List[Ints2d], Optional[List[Ints1d]]], MemoryOutput]:
    """(docs, candidate spans, gold cluster per candidate or None) → token vectors → GRU → a bounded memory
    over candidate mentions that chooses IGNORE / OVERWRITE / COREF cell i at every step, trained with
    teacher forcing, greedy at inference (see torch_models/mention_memory.py)."""
    return mention_memory_model(tok2vec, hidden_width, n_cells, mlp_width, usage_decay, dropout, max_span_width,
                                width_embedding, feature_width, parse_features=False)


@registry.architectures("spacy_entmem.MentionMemory.v2")
def build_mention_memory_v2(
    tok2vec: Model[List[Doc], List[Floats2d]],
    hidden_width: int = 200,
    n_cells: int = 20,
    mlp_width: int = 200,
    usage_decay: float = 0.98,
    dropout: float = 0.3,
    max_span_width: int = 20,
    width_embedding: int = 20,
    feature_width: int = 16,
    parse_features: bool = True,
) -> Model[Tuple[List[Doc], List[Ints2d], Optional[List[Ints1d]]], MemoryOutput]:
    """MentionMemory.v1 that also learns from the dependency parse (``parse_features``): each (candidate, cell)
    pair's grammatical roles, sentence distance and binding principles as pair features (``PARSE_FEATURE_NAMES``
    in nn/memory/mention_memory.py; without a parse they are all "not applicable"). A v1 memory's weights load
    into it with those features' weights at zero (warm start)."""
    return mention_memory_model(tok2vec, hidden_width, n_cells, mlp_width, usage_decay, dropout, max_span_width,
                                width_embedding, feature_width, parse_features)


def mention_memory_model(tok2vec: Model, hidden_width: int, n_cells: int, mlp_width: int, usage_decay: float,
                         dropout: float, max_span_width: int, width_embedding: int, feature_width: int,
                         parse_features: bool) -> Model:
    """The thinc model of a MentionMemory architecture, its config checked first."""
    problems = validate_mention_memory_config(n_cells, hidden_width, mlp_width, usage_decay, dropout,
                                              max_span_width, width_embedding, feature_width)
    if problems:
        raise ValueError("[spacy-entmem] invalid MentionMemory config: " + "; ".join(problems))

    def build(width: int) -> MentionMemory:
        return MentionMemory(width, hidden_width, n_cells, mlp_width, usage_decay, dropout, max_span_width,
                             width_embedding, feature_width, parse_features)

    return chain(with_mention_attributes(tok2vec), memory_layer(build, n_cells))


def with_mention_attributes(tok2vec: Model) -> Model:
    """(docs, spans, clusters) → (token vectors, None, spans, candidate attributes, clusters)."""
    return Model(ATTRIBUTES_LAYER, attributes_forward, init=spans_init, layers=[tok2vec])


def attributes_forward(model: Model, X: Tuple, is_train: bool):
    """X = (docs, spans, gold codes or None[, partially annotated flag per doc])."""
    docs, spans, clusters = X[:3]
    partial = X[3] if len(X) > 3 else None
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)
    ids = StringIds()
    names = packaged_name_genders() if model.attrs.get("name_genders") else None
    nouns = packaged_inanimate_nouns() if model.attrs.get("inanimate_nouns") else None
    people = packaged_person_nouns() if nouns is not None else None
    reader_you = bool(model.attrs.get("reader_you", False))
    attributes = [mention_attributes(doc, s.tolist(), ids, names, nouns, people, reader_you)
                  for doc, s in zip(docs, spans)]

    def backprop(d_output):
        return backprop_tok2vec(d_output[0])

    return (vectors, None, spans, attributes, clusters, partial), backprop


def set_attribute_settings(model: Model, name_genders: bool, inanimate_nouns: bool = False,
                           reader_you: bool = False) -> None:
    """Whether the candidates' attributes consult the packaged name-gender lexicon (gender) and inanimate-noun
    list (inanimate), and read an unquoted you with no addressee as the reader's (``linguistics.turns.READER``);
    settings of the component, passed to its model before each call: a saved model's attrs would otherwise
    win."""
    layer = find_layer(model, ATTRIBUTES_LAYER)
    if layer is not None:
        layer.attrs["name_genders"] = bool(name_genders)
        layer.attrs["inanimate_nouns"] = bool(inanimate_nouns)
        layer.attrs["reader_you"] = bool(reader_you)


@lru_cache(maxsize=1)
def packaged_name_genders() -> Dict[str, int]:
    """The lexicon shipped with the package (``spacy_entmem/resources/name_genders.json``)."""
    from ..corpora.name_genders import PACKAGED_LEXICON, load_lexicon

    return load_lexicon(PACKAGED_LEXICON)


@lru_cache(maxsize=1)
def packaged_inanimate_nouns() -> FrozenSet[str]:
    """The inanimate head nouns shipped with the package (``spacy_entmem/resources/inanimate_nouns.json``)."""
    from ..corpora.inanimate_nouns import PACKAGED_INANIMATE_NOUNS, load_inanimate_nouns

    return load_inanimate_nouns(PACKAGED_INANIMATE_NOUNS)


def packaged_person_nouns() -> FrozenSet[str]:
    """The head nouns the packaged head-kind lexicon (``spacy_entmem/resources/head_kinds.json``, learnt from
    the training corpora's typed mentions) gives the kind "person", with the ``learnt_person_nouns`` switch
    those of the packaged person-noun lists too (``learnt_person_nouns``)."""
    return _person_nouns(switches.active().learnt_person_nouns)


@lru_cache(maxsize=1)
def learnt_person_nouns() -> FrozenSet[str]:
    """The packaged lists of nouns for people: the encoder-learnt one (``spacy_entmem/resources/person_nouns.json``)
    and WordNet's (``spacy_entmem/resources/person_nouns_wordnet.json``: "mechanic", "translator")."""
    from ..corpora.person_nouns import PACKAGED_PERSON_NOUNS, load_person_nouns
    from ..corpora.wordnet_person_nouns import PACKAGED_WORDNET_PERSON_NOUNS

    return load_person_nouns(PACKAGED_PERSON_NOUNS) | load_person_nouns(PACKAGED_WORDNET_PERSON_NOUNS)


@lru_cache(maxsize=2)
def _person_nouns(learnt: bool) -> FrozenSet[str]:
    from ..corpora.head_kinds import PACKAGED_HEAD_KINDS, PERSON, load_head_kinds

    typed = frozenset(word for word, kind in load_head_kinds(PACKAGED_HEAD_KINDS).items() if kind == PERSON)
    return typed | learnt_person_nouns() if learnt else typed


@lru_cache(maxsize=1)
def packaged_common_person_nouns() -> FrozenSet[str]:
    """The common nouns for people of the packaged person-noun lists: the typed training mentions' heads that the
    training texts use as common nouns, and the learnt and WordNet ones (``learnt_person_nouns``); not the names
    the head-kind lexicon holds ("oak")."""
    from ..corpora.person_nouns import PACKAGED_PERSON_NOUNS, load_person_nouns

    return load_person_nouns(PACKAGED_PERSON_NOUNS, "typed") | learnt_person_nouns()


def is_teacher_forced(model: Model) -> bool:
    return find_layer(model, ATTRIBUTES_LAYER) is not None


def with_spans(tok2vec: Model) -> Model:
    """(docs, spans) → (token vectors, None, spans): passes the candidate spans past the tok2vec."""
    return Model(SPANS_LAYER, spans_forward, init=spans_init, layers=[tok2vec])


def spans_init(model: Model, X=None, Y=None) -> Model:
    model.layers[0].initialize(X=X[0] if isinstance(X, tuple) else X)
    return model


def spans_forward(model: Model, X: Tuple[List[Doc], List[Ints2d]], is_train: bool):
    docs, spans = X
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)

    def backprop(d_output):
        return backprop_tok2vec(d_output[0])

    return (vectors, None, spans), backprop


def is_span_model(model: Model) -> bool:
    """Whether the model steps over candidate mentions (span PeTra or the mention memory)."""
    return find_layer(model, SPANS_LAYER) is not None or is_teacher_forced(model)


def memory_layer(build: Callable[[int], torch.nn.Module], n_cells: int) -> Model:
    return Model(
        MEMORY_LAYER, memory_forward, init=memory_init, dims={"nI": None},
        attrs={"build": build, "n_cells": n_cells},
    )


def with_token_ids(tok2vec: Model, lm_vocab_size: int) -> Model:
    """Docs → (token vectors, ids of the words in the language-model vocabulary, or None when the model
    has no language-model head). The vocabulary is set by ``set_lm_vocabulary`` in initialize()."""
    return Model(
        TOKEN_IDS_LAYER, token_ids_forward, init=token_ids_init, layers=[tok2vec],
        attrs={"lm_vocab_size": lm_vocab_size, "lm_vocab": {}},
    )


def token_ids_init(model: Model, X: Optional[List[Doc]] = None, Y=None) -> Model:
    model.layers[0].initialize(X=X)
    return model


def token_ids_forward(model: Model, docs: List[Doc], is_train: bool):
    vectors, backprop_tok2vec = model.layers[0](docs, is_train)
    vocab: Dict[str, int] = model.attrs["lm_vocab"]
    ids = None
    if model.attrs["lm_vocab_size"] and vocab:
        ids = [numpy.asarray([vocab.get(t.norm_, UNKNOWN_WORD) for t in doc], dtype="int64") for doc in docs]

    def backprop(d_output):
        return backprop_tok2vec(d_output[0] if isinstance(d_output, tuple) else d_output)

    return (vectors, ids), backprop


def count_lm_vocabulary(docs: Iterable[Doc], size: int) -> List[str]:
    """The ``size - 1`` most frequent token norms (id 0 is kept for unknown words), ties by first seen."""
    counts = Counter(t.norm_ for doc in docs for t in doc)
    return [word for word, _ in counts.most_common(max(size - 1, 0))]


def set_lm_vocabulary(model: Model, words: List[str]) -> None:
    layer = find_layer(model, TOKEN_IDS_LAYER)
    if layer is not None:
        layer.attrs["lm_vocab"] = {word: i for i, word in enumerate(words, start=1)}


def lm_vocab_size(model: Model) -> int:
    layer = find_layer(model, TOKEN_IDS_LAYER)
    return int(layer.attrs["lm_vocab_size"]) if layer is not None else 0


def memory_init(model: Model, X: Optional[MemoryInput] = None, Y=None) -> Model:
    if model.layers:
        return model
    vectors = X[0] if isinstance(X, tuple) else X
    if vectors is not None and len(vectors):
        model.set_dim("nI", int(vectors[0].shape[1]))
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


def memory_forward(model: Model, X: MemoryInput, is_train: bool):
    if not model.layers:
        raise ValueError(UNTRAINED_MESSAGE)
    return model.layers[0](X, is_train)


def find_layer(model: Model, name: str) -> Optional[Model]:
    return next((node for node in model.walk() if node.name == name), None)


def find_memory_layer(model: Model) -> Model:
    layer = find_layer(model, MEMORY_LAYER)
    if layer is None:
        raise ValueError("[spacy-entmem] the model has no entity memory layer")
    return layer


def torch_memory(model: Model) -> Optional[torch.nn.Module]:
    """The torch memory module inside a model, or None before initialization."""
    layer = find_memory_layer(model)
    return layer.layers[0].shims[0]._model if layer.layers else None


def convert_inputs(model: Model, X: MemoryInput, is_train: bool):
    parts = X if isinstance(X, tuple) else (X,)
    vectors, ids, spans, attributes, clusters, partial = (tuple(parts) + (None,) * 5)[:6]
    lengths = [len(x) for x in vectors]
    tensors = [xp2torch(model.ops.asarray2f(x)) for x in vectors]
    padded = pad_sequences(tensors).detach().requires_grad_(is_train)
    kwargs = {}
    if ids is not None:
        kwargs["token_ids"] = pad_sequences([torch.from_numpy(i) for i in ids])
    if spans is not None:
        kwargs["spans"], kwargs["n_spans"] = pad_spans(spans)
    if attributes is not None:
        kwargs["attributes"] = pad_rows(attributes, len(ATTRIBUTE_FIELDS), PADDING_ATTRIBUTES)
    if clusters is not None:
        kwargs["clusters"] = pad_rows([c[:, None] for c in clusters], 1, (-1,)).squeeze(-1)
    if partial is not None:
        kwargs["partial"] = torch.tensor(list(partial), dtype=torch.bool)

    def backprop(d_inputs: ArgsKwargs) -> MemoryInput:
        d_padded = d_inputs.args[0]
        if d_padded is None:  # nothing reached the inputs (e.g. a batch of empty docs)
            d_padded = torch.zeros_like(padded)
        d_vectors = [torch2xp(d_padded[i, :n]) for i, n in enumerate(lengths)]
        return (d_vectors,) + (None,) * (len(parts) - 1) if isinstance(X, tuple) else d_vectors

    return ArgsKwargs(args=(padded, torch.tensor(lengths)), kwargs=kwargs), backprop


def pad_spans(spans: List[Ints2d]) -> Tuple[torch.Tensor, torch.Tensor]:
    """(B, M, 2) int64 [start, end) and the number of spans per doc. Padding repeats a doc's last span
    (keeping every chunk of steps local to a stretch of tokens); a doc without spans is padded with (0, 1)."""
    counts = [len(s) for s in spans]
    padded = torch.zeros(len(spans), max(counts, default=0), 2, dtype=torch.int64)
    padded[..., 1] = 1
    for i, s in enumerate(spans):
        if len(s):
            rows = torch.as_tensor(numpy.asarray(s, dtype="int64"))
            padded[i, : len(s)] = rows
            padded[i, len(s):] = rows[-1]
    return padded, torch.tensor(counts)


def pad_rows(rows: List[numpy.ndarray], width: int, fill: Tuple[int, ...]) -> torch.Tensor:
    """(B, M, width) int64 from per-doc (M_i, width) arrays, padded with the row ``fill``."""
    padded = torch.tensor(fill, dtype=torch.int64).repeat(len(rows), max((len(r) for r in rows), default=0), 1)
    for i, r in enumerate(rows):
        if len(r):
            padded[i, : len(r)] = torch.as_tensor(numpy.asarray(r, dtype="int64").reshape(-1, width))
    return padded


def convert_outputs(model: Model, inputs_outputs: Tuple, is_train: bool):
    _, out = inputs_outputs
    if not is_train:
        return out, lambda d_out: None
    leaves = [t.detach().requires_grad_(True) for t in out.tensors()]
    detached = out.with_tensors(leaves)

    def backprop(grads: List[Optional[torch.Tensor]]) -> ArgsKwargs:
        used = [(t, g) for t, g in zip(out.tensors(), grads) if g is not None and t.requires_grad]
        return ArgsKwargs(args=([t for t, _ in used],), kwargs={"grad_tensors": [g for _, g in used]})

    return detached, backprop
