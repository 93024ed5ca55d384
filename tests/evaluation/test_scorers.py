import pytest
import spacy
from spacy.tokens import SpanGroup
from spacy.training import Example

from spacy_entmem.evaluation.scorers import score_entity_memory

from ..conftest import tiny_pipeline


def full_cluster_example(nlp, predicted_clusters):
    text = "Anna said she saw Bob and he waved at her"
    reference = nlp.make_doc(text)
    reference.spans["coref_clusters_1"] = [reference[0:1], reference[2:3], reference[9:10]]
    reference.spans["coref_clusters_2"] = [reference[4:5], reference[6:7]]
    predicted = nlp.make_doc(text)
    for i, spans in enumerate(predicted_clusters, start=1):
        predicted.spans[f"coref_clusters_{i}"] = SpanGroup(
            predicted, name=f"coref_clusters_{i}", spans=[predicted[s:e] for s, e in spans],
            attrs={"entity_memory": "cluster", "index": i},
        )
    return Example(predicted, reference)


def test_full_clusters_give_conll_metrics():
    nlp = spacy.blank("en")
    perfect = full_cluster_example(nlp, [[(0, 1), (2, 3), (9, 10)], [(4, 5), (6, 7)]])
    scores = score_entity_memory([perfect])
    assert scores["coref_f"] == pytest.approx(1.0)
    assert scores["coref_lea_f"] == pytest.approx(1.0)
    assert "gap_f1" not in scores
    wrong = full_cluster_example(nlp, [[(0, 1), (2, 3), (4, 5), (6, 7), (9, 10)]])
    scores = score_entity_memory([wrong])
    assert scores["coref_muc_r"] == pytest.approx(1.0)
    assert scores["coref_muc_p"] == pytest.approx(3 / 4)
    assert scores["coref_f"] < 1.0


def test_component_score_weights_match_score_keys():
    nlp = tiny_pipeline()
    weights = nlp.get_pipe_meta("entity_memory").default_score_weights
    assert set(weights) == {"gap_f1", "coref_f"}
