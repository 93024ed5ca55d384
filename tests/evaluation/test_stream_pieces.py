"""Documents cut into pieces and read whole, independently and as a stream."""
import pytest
import spacy
from spacy.tokens import Doc

import spacy_entmem
from spacy_entmem.evaluation.stream_pieces import READINGS, cut_points, piece_docs, read_pieces, score_pieces


def _doc(sentence_lengths):
    words = [f"w{i}" for i in range(sum(sentence_lengths))]
    starts = []
    for length in sentence_lengths:
        starts += [True] + [False] * (length - 1)
    return Doc(spacy.blank("en").vocab, words=words, sent_starts=starts)


def test_cuts_fall_on_the_sentence_starts_nearest_to_equal_shares():
    doc = _doc([3, 3, 3, 3])  # sentences start at 0, 3, 6, 9
    assert cut_points(doc, 1) == [0, 12]
    assert cut_points(doc, 2) == [0, 6, 12]
    assert cut_points(doc, 4) == [0, 3, 6, 9, 12]
    assert cut_points(doc, 8) == [0, 3, 6, 9, 12]  # never an empty piece: no more pieces than sentences
    assert cut_points(_doc([10, 1, 1]), 2) == [0, 10, 12]
    with pytest.raises(ValueError, match="at least 1"):
        cut_points(doc, 0)


def test_pieces_keep_the_references_tokens():
    doc = _doc([3, 3])
    pieces = piece_docs(spacy.blank("en"), doc, [0, 3, 6])
    assert [[t.text for t in p] for p in pieces] == [["w0", "w1", "w2"], ["w3", "w4", "w5"]]


def test_the_stream_rejoins_what_independent_pieces_split():
    nlp = spacy_entmem.load_default()
    text = ("Elizabeth Bennet walked to Netherfield with her sister Jane. "
            "Two days later, Elizabeth wrote a letter to Jane.")
    reference = nlp(text)
    readings = read_pieces(nlp, reference, 2)
    second = [t.i for t in reference if t.text == "Elizabeth"][1]
    elizabeth = {(0, 2), (second, second + 1)}  # "Elizabeth Bennet" ... "Elizabeth"
    assert any(elizabeth <= set(cluster) for cluster in readings["stream"])
    assert not any(elizabeth <= set(cluster) for cluster in readings["independent"])
    scores = score_pieces(nlp, [reference], (2,))
    assert set(scores[2]) == set(READINGS) and all(0 <= s["conll_f"] <= 100 for s in scores[2].values())
