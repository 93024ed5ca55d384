"""The features of a pronoun query, read off a doc the shipped pipeline annotated."""
import math

import numpy
import pytest
from spacy.tokens import Doc

import spacy_entmem
from spacy_entmem.pipeline.pronoun_features import MEMORY_FEATURES, feature_names, query_features
from spacy_entmem.pipeline.pronoun_resolver import annotate_query

TEXT = "Alan Turing met Joan Clarke at Bletchley Park in 1941. She joined his team, and he proposed to her."


def chars(word: str, text: str = TEXT):
    start = text.index(word)
    return start, start + len(word)


@pytest.fixture(scope="module")
def nlp():
    return spacy_entmem.load_default()


@pytest.fixture(scope="module")
def query(nlp):
    doc, (pronoun, a, b) = annotate_query(nlp, TEXT, chars("his"), chars("Alan Turing"), chars("Joan Clarke"))
    return doc, pronoun, a, b, query_features(doc, pronoun, a, b)


def test_one_named_row_for_each_candidate(query):
    doc, pronoun, a, b, rows = query
    assert (pronoun, a, b) == ((13, 14), (0, 2), (3, 5))
    names = feature_names(doc.tensor.shape[1])
    assert rows.shape == (2, len(names)) and rows.dtype == numpy.float32 and len(set(names)) == len(names)
    column = {name: rows[:, i] for i, name in enumerate(names)}
    numpy.testing.assert_array_equal(column["before_pronoun"], [1, 1])
    # "his" is 11 tokens after "Turing" and 8 after "Clarke", one sentence end between
    numpy.testing.assert_allclose(column["log_distance"], [math.log1p(11), math.log1p(8)], rtol=1e-6)
    numpy.testing.assert_array_equal(column["sentences_between"], [1, 1])
    numpy.testing.assert_array_equal(column["sentence_initial"], [1, 0])
    numpy.testing.assert_array_equal(column["closer_than_other"], [0, 1])
    numpy.testing.assert_array_equal(column["possessive_pronoun"], [1, 1])
    assert ((0 <= column["link"]) & (column["link"] <= 1)).all()


def test_each_row_holds_the_other_candidate_as_its_competitor(query):
    doc, _, a, _, rows = query
    n_memory, width = len(MEMORY_FEATURES), doc.tensor.shape[1]
    names = feature_names(width)
    other = names.index("other_" + MEMORY_FEATURES[0])
    numpy.testing.assert_array_equal(rows[0, other:other + n_memory], rows[1, :n_memory])
    numpy.testing.assert_array_equal(rows[1, other:other + n_memory], rows[0, :n_memory])
    first = names.index("candidate_vector0_0")
    numpy.testing.assert_array_equal(rows[0, first:first + width], doc.tensor[a[0]])
    numpy.testing.assert_array_equal(rows[1, names.index("other_vector0_0"):][:width], doc.tensor[a[0]])


def test_bad_queries_name_the_problem(nlp, query):
    doc, pronoun, a, b, _ = query
    with pytest.raises(ValueError, match=r"the B span \(3, 99\) is not a non-empty token range"):
        query_features(doc, pronoun, a, (3, 99))
    with pytest.raises(ValueError, match="the A span"):
        query_features(doc, pronoun, (2, 2), b)
    plain = Doc(nlp.vocab, words=["He", "left"])
    with pytest.raises(ValueError, match="store_memory_log"):
        query_features(plain, (0, 1), (1, 2), (1, 2))
    no_tensor = Doc(nlp.vocab, words=[t.text for t in doc])
    no_tensor._.entity_memory_log = doc._.entity_memory_log
    with pytest.raises(ValueError, match="doc.tensor"):
        query_features(no_tensor, pronoun, a, b)
    original = doc._.entity_memory_log
    doc._.entity_memory_log = dict(original, spans=numpy.zeros((0, 2), dtype="int64"))
    try:
        with pytest.raises(ValueError, match="no candidate of the memory stands for the pronoun"):
            query_features(doc, pronoun, a, b)
    finally:
        doc._.entity_memory_log = original
