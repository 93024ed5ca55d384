import pytest

from spacy_entmem.evaluation.coref_metrics import CorefScorer, b_cubed, ceaf_e, lea, muc, prf

KEY = [{"a", "b", "c", "d"}]
RESPONSE = [{"a", "b"}, {"c", "d"}]


def f(counts):
    return prf(counts)


def test_vilain_example():
    precision, recall, _ = f(muc(KEY, RESPONSE))
    assert recall == pytest.approx(2 / 3) and precision == 1.0


def test_b_cubed_hand_computed():
    precision, recall, _ = f(b_cubed(KEY, RESPONSE))
    assert recall == pytest.approx(0.5) and precision == 1.0


def test_ceaf_e_hand_computed():
    precision, recall, _ = f(ceaf_e(KEY, RESPONSE))
    assert recall == pytest.approx(2 / 3) and precision == pytest.approx(1 / 3)


def test_lea_hand_computed():
    precision, recall, _ = f(lea(KEY, RESPONSE))
    assert recall == pytest.approx(1 / 3) and precision == 1.0


def test_perfect_response_scores_one():
    clusters = [{"a", "b"}, {"c"}, {"d", "e", "f"}]
    scorer = CorefScorer()
    scorer.add(clusters, clusters)
    scores = scorer.scores()
    for name in ("muc_f", "b3_f", "ceafe_f", "lea_f", "conll_f"):
        assert scores[name] == pytest.approx(1.0)


def test_no_mentions_anywhere_scores_zero_without_crashing():
    scorer = CorefScorer()
    scorer.add([], [])
    assert scorer.scores()["conll_f"] == 0.0


def test_all_singletons():
    key = [{"a"}, {"b"}, {"c"}]
    with_single = CorefScorer(keep_singletons=True)
    with_single.add(key, key)
    scores = with_single.scores()
    assert scores["muc_f"] == 0.0  # MUC counts links; singletons have none
    assert scores["b3_f"] == pytest.approx(1.0) and scores["ceafe_f"] == pytest.approx(1.0)
    assert scores["lea_f"] == pytest.approx(1.0)
    without = CorefScorer(keep_singletons=False)
    without.add(key, key)
    assert without.scores()["conll_f"] == 0.0


def test_one_cluster_against_all_singletons():
    key = [{"a", "b", "c"}]
    response = [{"a"}, {"b"}, {"c"}]
    scorer = CorefScorer()
    scorer.add(key, response)
    scores = scorer.scores()
    assert scores["muc_r"] == 0.0
    assert scores["b3_r"] == pytest.approx(1 / 3) and scores["b3_p"] == pytest.approx(1.0)
    assert scores["lea_r"] == 0.0 and scores["lea_p"] == 0.0


def test_scores_accumulate_over_documents():
    scorer = CorefScorer()
    scorer.add(KEY, KEY)
    scorer.add(KEY, RESPONSE)
    assert scorer.scores()["muc_r"] == pytest.approx((3 + 2) / (3 + 3))


def test_bootstrap_spans_the_documents_and_pairs_the_draws():
    perfect, wrong = [{"a", "b"}, {"c", "d"}], [{"a", "c"}, {"b", "d"}]
    ours, other = CorefScorer(), CorefScorer()
    for key, response in [(perfect, perfect)] * 5 + [(perfect, wrong)] * 5:
        ours.add(key, response)
        other.add(key, wrong)  # never right
    intervals = ours.bootstrap(against=other, samples=400)
    low, high = intervals["lea_f"]
    assert 0.0 < low < ours.scores()["lea_f"] < high < 1.0
    assert intervals == ours.bootstrap(against=other, samples=400)  # seeded
    # paired: on every draw ours is at least the other's, and strictly better unless only wrong documents are drawn
    assert intervals["conll_f_minus"][0] > 0.0
    alone = ours.bootstrap(samples=400)
    assert set(alone) == {"conll_f", "lea_f"} and alone["lea_f"] == intervals["lea_f"]


def test_bootstrap_refuses_what_it_cannot_draw():
    scorer = CorefScorer()
    with pytest.raises(ValueError, match="at least one scored document"):
        scorer.bootstrap()
    scorer.add(KEY, KEY)
    with pytest.raises(ValueError, match="samples ≥ 1 and a level in"):
        scorer.bootstrap(level=0.0)
    other = CorefScorer()
    other.add(KEY, KEY)
    other.add(KEY, RESPONSE)
    with pytest.raises(ValueError, match="1 scored here, 2 in the other scorer"):
        scorer.bootstrap(against=other)
