"""EntityNLM reranking of k-best coreference: scoring candidates, choosing, the report."""
import json

import pytest

from spacy_entmem.evaluation.rerank import (
    WEIGHTS, corpus_scores, lm_log_probs, oracle, pick, report_table, rerank_report,
)
from spacy_entmem.pipeline.kbest import Alternative

from ..pipeline.test_entity_lm_scorer import TEXTS, TINY_ENTITYNLM, gold_doc, trained

GOLD = [[(0, 1), (4, 5)], [(2, 3), (6, 7)]]


def record(*candidates):
    """A document whose gold is GOLD, with candidates (clusters, memory score, lm score)."""
    return {"gold": GOLD, "candidates": [{"clusters": c, "memory": m, "lm": lm, "forced": None}
                                         for c, m, lm in candidates]}


WRONG = [[(0, 1), (2, 3), (4, 5), (6, 7)]]  # everything merged


def test_pick_follows_the_weight_of_the_memory_score():
    r = record((WRONG, -1.0, -20.0), (GOLD, -3.0, -10.0))
    assert pick(r, None) == 0  # the 1-best
    assert pick(r, 0.0) == 1  # EntityNLM alone
    assert pick(r, 100.0) == 0  # the memory's score dominates
    assert pick(r, float("inf")) == 0 and pick(record((WRONG, -2.0, 0.0), (GOLD, -1.0, -9.0)), float("inf")) == 1
    assert pick(record((GOLD, -1.0, -5.0), (WRONG, -1.0, -5.0)), 1.0) == 0  # ties: the earlier candidate
    assert oracle(r) == 1


def test_corpus_scores_and_report_choose_the_weight_on_dev():
    dev = [record((WRONG, -1.0, -20.0), (GOLD, -3.0, -10.0))]
    test = [record((WRONG, -1.0, -20.0), (GOLD, -1.5, -30.0))]
    assert corpus_scores(dev, [1])["conll_f"] == pytest.approx(1.0)
    assert corpus_scores(dev, [0])["conll_f"] < 1.0 and corpus_scores(dev, [1])["changed"] == 1
    report = rerank_report(dev, test)
    assert report["weight"] == 0.0  # on dev only w < 5 picks the gold: the smallest best one wins
    assert set(report["dev_conll_f_by_weight"]) == {str(w) for w in WEIGHTS}
    rows = report["rows"]
    assert rows["oracle of the k-best list"]["conll_f"] == pytest.approx(1.0)
    assert rows["rerank: EntityNLM"]["conll_f"] == rows["1-best (entity_memory)"]["conll_f"]  # lm prefers WRONG
    assert "| oracle of the k-best list | 100.00 |" in report_table(report)
    assert rerank_report(json.loads(json.dumps(dev)), json.loads(json.dumps(test))) == report  # lists from JSON


def test_entitynlm_scores_each_candidates_clusters():
    nlp, _, _ = trained(steps=20, base=TINY_ENTITYNLM)
    text, clusters = TEXTS[0]
    doc = gold_doc(nlp, text, clusters)
    merged = [sorted(clusters[0] + clusters[1])]
    candidates = [Alternative(clusters, -1.0), Alternative(merged, -2.0), Alternative(clusters, -3.0)]
    scores = lm_log_probs(nlp.get_pipe("entity_lm_scorer"), doc, candidates)
    assert scores[0] == pytest.approx(scores[2]) and scores[0] != pytest.approx(scores[1])
    direct = nlp.get_pipe("entity_lm_scorer").score_docs([doc])[1][0]["joint"].sum()
    assert scores[0] == pytest.approx(float(direct), abs=1e-4)  # the gold clusters as written in the doc
    assert sorted(doc.spans) == ["coref_clusters_1", "coref_clusters_2"]  # the doc itself is left alone
