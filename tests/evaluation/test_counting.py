import numpy
import pytest

from spacy_entmem.corpora.gap import read_gap_rows
from spacy_entmem.evaluation.counting import evaluate_counts, read_counts_tsv, select_alpha
from spacy_entmem.pipeline.memory_log import count_entities

from ..conftest import GAP


def test_count_is_the_number_of_overwrites_above_alpha():
    overwrite = numpy.array([[0.9, 0.0], [0.0, 0.4], [0.0, 0.0], [0.6, 0.0]])
    assert count_entities(overwrite, 0.5) == 2
    assert count_entities(overwrite, 0.3) == 3
    assert count_entities(numpy.zeros((0, 4)), 0.5) == 0


def test_alpha_minimises_the_absolute_error_sum():
    overwrites = {"a": numpy.array([[0.9], [0.35], [0.2]]), "b": numpy.array([[0.8], [0.1]])}
    result = select_alpha(overwrites, {"a": 2, "b": 1})
    assert result.error_sum == 0
    assert 0.2 < result.alpha <= 0.35 and result.alpha == pytest.approx(0.21)  # smallest α with no error
    assert result.predicted == {"a": 2, "b": 1}
    assert result.baseline_count == 1 and result.baseline_error_sum == 1


def test_counts_tsv_reading_and_errors(tmp_path):
    good = tmp_path / "counts.tsv"
    good.write_text("ID\tCount\nvalidation-1\t3\n\nvalidation-2\t0\n", encoding="utf8")
    assert read_counts_tsv(good) == {"validation-1": 3, "validation-2": 0}
    bad = tmp_path / "bad.tsv"
    bad.write_text("validation-1\t3\nvalidation-2\tthree\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"bad.tsv:2: count must be a non-negative integer, got 'three'"):
        read_counts_tsv(bad)
    bad.write_text("validation-1\t3\t4\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"bad.tsv:1: expected 'ID<TAB>Count'"):
        read_counts_tsv(bad)
    bad.write_text("validation-1\t3\nvalidation-1\t4\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"bad.tsv:2: duplicate ID 'validation-1'"):
        read_counts_tsv(bad)


def test_evaluate_counts_on_hand_made_gap_counts(trained_nlp, tmp_path):
    # Hand-counted people in the first three GAP validation paragraphs.
    counts = tmp_path / "counts.tsv"
    counts.write_text("validation-1\t4\nvalidation-2\t3\nvalidation-3\t6\n", encoding="utf8")
    result = evaluate_counts(trained_nlp, GAP / "gap-validation.tsv", counts)
    assert result.n_docs == 3 and set(result.predicted) == {"validation-1", "validation-2", "validation-3"}
    expected = sum(abs(result.predicted[i] - n) for i, n in {"validation-1": 4, "validation-2": 3,
                                                              "validation-3": 6}.items())
    assert result.error_sum == expected
    assert set(result.table_predicted) == set(result.predicted)  # the entity table's people, counted too
    people = [sum(e.kind == "person" for e in doc._.entities) for doc in trained_nlp.pipe(
        [row.text for row in read_gap_rows(GAP / "gap-validation.tsv")][:3])]
    assert [result.table_predicted[f"validation-{k}"] for k in (1, 2, 3)] == people
    assert result.table_error_sum == sum(abs(p - n) for p, n in zip(people, (4, 3, 6)))
    assert result.as_dict()["table_error_sum"] == result.table_error_sum
    counts.write_text("validation-1\t4\nnot-an-id\t2\n", encoding="utf8")
    with pytest.raises(ValueError, match="1 id\\(s\\) not in"):
        evaluate_counts(trained_nlp, GAP / "gap-validation.tsv", counts)
