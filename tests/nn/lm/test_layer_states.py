"""A frozen causal LM's states at one depth, per piece and per spaCy token (spacy_entmem/nn/lm/layer_states.py)."""
import numpy
import pytest
import torch

from spacy_entmem.nn.lm.base_lm import load_base_lm
from spacy_entmem.nn.lm.layer_states import block_input_norm, last_char_pieces, piece_states, token_states

TEXT = "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie."


@pytest.fixture(scope="module")
def tiny_lm(tiny_lm_dir):
    return load_base_lm(tiny_lm_dir)


def _ids(tokenizer, text=TEXT):
    return torch.as_tensor(tokenizer(text, add_special_tokens=False)["input_ids"])


def _reference(base, tokenizer, ids, layer):
    """What block ``layer`` reads, from a full forward pass with every hidden state."""
    with torch.no_grad():
        inputs = torch.cat([ids.new_tensor([tokenizer.bos_token_id]), ids]).unsqueeze(0)
        hidden = base.base_model(input_ids=inputs, output_hidden_states=True).hidden_states[layer]
        return block_input_norm(base, layer)(hidden)[0, 1:]


@pytest.mark.parametrize("layer", [0, 1])
def test_one_window_gives_the_normalised_input_of_the_block(tiny_lm, layer):
    base, tokenizer = tiny_lm
    ids = _ids(tokenizer)
    states = piece_states(base, ids, tokenizer.bos_token_id, layer, window=len(ids) + 1, stride=len(ids))
    assert states.shape == (len(ids), base.config.hidden_size)
    torch.testing.assert_close(states, _reference(base, tokenizer, ids, layer))


def test_strided_windows_read_each_block_after_its_context(tiny_lm):
    base, tokenizer = tiny_lm
    ids = _ids(tokenizer)
    window, stride = 9, 4  # 8 pieces behind <bos>; blocks of 4 read after up to 4 earlier pieces
    states = piece_states(base, ids, tokenizer.bos_token_id, 1, window, stride)
    torch.testing.assert_close(states[:4], _reference(base, tokenizer, ids[:4], 1))
    for first in range(4, len(ids), stride):
        end = min(first + stride, len(ids))
        read = _reference(base, tokenizer, ids[end - 8:end], 1)
        torch.testing.assert_close(states[first:end], read[-(end - first):])
    assert not torch.allclose(states[-1], _reference(base, tokenizer, ids, 1)[-1])  # less context than a full read


def test_a_token_takes_the_piece_that_holds_its_last_character():
    # pieces start at chars 0 ("Eliz"), 4 ("abeth"), 9 (" Benn"), 14 ("et"), 16 (",")
    starts = numpy.asarray([0, 4, 9, 14, 16])
    tokens = [(0, 9), (10, 16), (16, 17)]  # "Elizabeth", "Bennet", ","
    assert last_char_pieces(tokens, starts).tolist() == [1, 3, 4]
    assert last_char_pieces(tokens, numpy.asarray([], dtype="int64")).tolist() == [-1, -1, -1]


def test_token_states_follow_the_pieces_and_an_empty_text_gives_zeros(tiny_lm):
    base, tokenizer = tiny_lm
    text = "She met Pierre Curie."
    spans = [(0, 3), (4, 7), (8, 14), (15, 20), (20, 21)]
    states = token_states(base, tokenizer, text, spans, 1, 512, 384)
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    pieces = piece_states(base, _ids(tokenizer, text), tokenizer.bos_token_id, 1, 512, 384).numpy()
    last = [max(i for i, (start, _) in enumerate(encoded["offset_mapping"]) if start <= end - 1) for _, end in spans]
    numpy.testing.assert_allclose(states, pieces[last])
    assert states.dtype == numpy.float32
    assert token_states(base, tokenizer, "", [], 1, 512, 384).shape == (0, base.config.hidden_size)


def test_a_layer_beyond_the_model_is_named(tiny_lm):
    base, _ = tiny_lm
    with pytest.raises(ValueError, match="layer 2 is out of range: the base LM has 2 decoder blocks"):
        block_input_norm(base, 2)
