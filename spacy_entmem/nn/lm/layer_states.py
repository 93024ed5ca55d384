"""A frozen causal LM's hidden states at one depth, per spaCy token, for long documents (torch only).

The base reads the document's pieces in strided windows (``corelm.block_windows``: each block of ``stride``
pieces is read after up to ``window − stride`` earlier pieces, behind a ``<bos>``), and the forward pass
stops at decoder block ``layer``: its input, normalised the way that block reads it (Llama's
``input_layernorm``, GPT-2's ``ln_1``), is the piece's state. A Llama residual stream is not normalised
(SmolLM2-135M: RMS ≈ 44 with single coordinates over 4,000), so the raw stream would swamp whatever reads it.
A token's state is the state of the piece holding its last character: a causal LM has then read the whole
token (and everything before it in its window).
"""
from typing import List, Tuple

import numpy
import torch
from torch import nn

from .corelm import block_windows, module_at

BLOCK_PATHS = (("model.layers", "input_layernorm"), ("transformer.h", "ln_1"))


class _Stop(Exception):
    """Raised by the hook once the wanted state is captured: the blocks above it are not run."""


def block_input_norm(base: nn.Module, layer: int) -> nn.Module:
    """The norm through which decoder block ``layer`` (0-based) reads the residual stream."""
    for blocks_path, norm_name in BLOCK_PATHS:
        blocks = module_at(base, blocks_path)
        if blocks is not None:
            if not 0 <= layer < len(blocks):
                raise ValueError(f"[spacy-entmem] layer {layer} is out of range: the base LM has {len(blocks)} "
                                 f"decoder blocks (0–{len(blocks) - 1})")
            return getattr(blocks[layer], norm_name)
    raise ValueError(f"[spacy-entmem] cannot find the decoder blocks of a {type(base).__name__}: supported are "
                     "Llama-style (model.layers) and GPT-2 (transformer.h) models")


@torch.no_grad()
def piece_states(base: nn.Module, ids: torch.Tensor, bos_id: int, layer: int, window: int, stride: int,
                 ) -> torch.Tensor:
    """(n, width): each piece's normalised input to block ``layer``, read in strided windows. ``ids``: (n,)."""
    norm, captured = block_input_norm(base, layer), []

    def capture(module, args, output):
        captured.append(output)
        raise _Stop

    width = norm.weight.shape[0]
    states = torch.zeros(len(ids), width)
    hook = norm.register_forward_hook(capture)
    try:
        for start, first, end in block_windows(len(ids), window - 1, stride):
            captured.clear()
            try:
                base.base_model(input_ids=torch.cat([ids.new_tensor([bos_id]), ids[start:end]]).unsqueeze(0),
                                use_cache=False)
            except _Stop:
                pass
            states[first:end] = captured[-1][0, 1 + first - start:]
    finally:
        hook.remove()
    return states


def last_char_pieces(token_spans: List[Tuple[int, int]], piece_starts: numpy.ndarray) -> numpy.ndarray:
    """Per token (start char, end char), the index of the piece holding its last character (−1: none)."""
    if not len(piece_starts):
        return numpy.full(len(token_spans), -1, dtype="int64")
    last_chars = numpy.asarray([max(end - 1, start) for start, end in token_spans], dtype="int64")
    return numpy.searchsorted(piece_starts, last_chars, side="right").astype("int64") - 1


def token_states(base: nn.Module, tokenizer, text: str, token_spans: List[Tuple[int, int]], layer: int,
                 window: int, stride: int, lead: str = "") -> numpy.ndarray:
    """(n tokens, width) float32: the state of the piece holding each token's last character (zeros for an
    empty text). The LM reads ``lead`` (e.g. a newline) between its ``<bos>`` and the text, so that the text's
    first piece is not the one right after ``<bos>``."""
    if lead:
        text = lead + text
        token_spans = [(start + len(lead), end + len(lead)) for start, end in token_spans]
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = torch.as_tensor(encoded["input_ids"], dtype=torch.long)
    width = block_input_norm(base, layer).weight.shape[0]
    if not len(ids):
        return numpy.zeros((len(token_spans), width), dtype="float32")
    states = piece_states(base, ids, tokenizer.bos_token_id, layer, window, stride).numpy()
    pieces = last_char_pieces(token_spans, numpy.asarray([s for s, _ in encoded["offset_mapping"]]))
    out = states[numpy.maximum(pieces, 0)]
    out[pieces < 0] = 0.0
    return numpy.ascontiguousarray(out, dtype="float32")
