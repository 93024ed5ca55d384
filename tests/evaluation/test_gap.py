import pytest

from dataclasses import replace

from spacy_entmem.evaluation.gap import (
    GapGold, bootstrap_intervals, interval_row, read_gold_tsv, read_system_tsv, score_gap, select_threshold,
    write_system_tsv,
)

from ..conftest import GAP

# Sanity numbers from data/gap/SOURCE.md: always A=TRUE, B=FALSE.
ALWAYS_A = {
    "development": (46.0, 46.2, 45.8, 0.99),
    "validation": (44.2, 42.9, 45.5, 1.06),
    "test": (48.7, 48.0, 49.4, 1.03),
}


@pytest.mark.corpus
@pytest.mark.parametrize("split", sorted(ALWAYS_A))
def test_always_a_matches_the_official_sanity_numbers(split, tmp_path):
    gold = read_gold_tsv(GAP / f"gap-{split}.tsv")
    path = tmp_path / "system.tsv"
    write_system_tsv(path, {g.id: (True, False) for g in gold})
    scores = score_gap(gold, read_system_tsv(path))
    overall, masc, fem, bias = ALWAYS_A[split]
    assert round(scores.overall.f1, 1) == overall
    assert round(scores.masculine.f1, 1) == masc
    assert round(scores.feminine.f1, 1) == fem
    assert round(scores.bias, 2) == bias


def test_gold_fed_back_scores_100():
    gold = read_gold_tsv(GAP / "gap-validation.tsv")
    scores = score_gap(gold, {g.id: (g.a_coref, g.b_coref) for g in gold})
    assert scores.overall.f1 == scores.masculine.f1 == scores.feminine.f1 == 100.0
    assert scores.bias == 1.0


def test_missing_or_unreadable_prediction_is_a_false_negative(tmp_path):
    gold = [GapGold("x-1", "she", False, False), GapGold("x-2", "he", True, False)]
    path = tmp_path / "sys.tsv"
    path.write_text("ID\tA-coref\tB-coref\nx-2\tTRUE\tmaybe\nx-2\tFALSE\tFALSE\n")
    system = read_system_tsv(path)
    assert system["x-2"] == (True, None)  # first line of an ID wins; unreadable value is None
    scores = score_gap(gold, system)
    assert (scores.overall.tp, scores.overall.fn, scores.overall.fp) == (1, 3, 0)


def test_threshold_selection_uses_greater_or_equal():
    gold = [GapGold("a", "he", True, False), GapGold("b", "she", False, True)]
    probabilities = {"a": (0.37, 0.2), "b": (0.1, 0.37)}
    threshold, scores = select_threshold(gold, probabilities)
    assert threshold == pytest.approx(0.21)  # first threshold where the 0.2 negative goes away
    assert scores.overall.f1 == 100.0


def test_unknown_pronoun_is_an_error():
    with pytest.raises(ValueError, match="unknown pronoun form 'they'"):
        score_gap([GapGold("x", "they", True, False)], {})


def test_bootstrap_intervals_hold_the_point_figures_and_narrow_with_more_examples():
    gold = read_gold_tsv(GAP / "gap-test.tsv")
    always_a = {g.id: (True, False) for g in gold}
    scores = score_gap(gold, always_a)
    intervals = bootstrap_intervals(gold, always_a, samples=500)
    for name, point in (("f1", scores.overall.f1), ("f1_masc", scores.masculine.f1),
                        ("f1_fem", scores.feminine.f1), ("bias", scores.bias)):
        low, high = intervals[name]
        assert low < point < high, name
    assert intervals == bootstrap_intervals(gold, always_a, samples=500)  # seeded
    assert interval_row(intervals).startswith(f"O {intervals['f1'][0]:.1f}-{intervals['f1'][1]:.1f}  M ")
    four_times = [replace(g, id=f"{g.id}/{copy}") for copy in range(4) for g in gold]
    wider = intervals["bias"][1] - intervals["bias"][0]
    narrower = bootstrap_intervals(four_times, {g.id: (True, False) for g in four_times}, samples=500)["bias"]
    assert 0.35 * wider < narrower[1] - narrower[0] < 0.65 * wider  # about half: sqrt(4)


def test_bootstrap_of_gold_is_a_point_and_bad_settings_are_errors():
    gold = read_gold_tsv(GAP / "gap-validation.tsv")
    perfect = bootstrap_intervals(gold, {g.id: (g.a_coref, g.b_coref) for g in gold}, samples=50)
    assert perfect == {"f1": (100.0, 100.0), "f1_masc": (100.0, 100.0), "f1_fem": (100.0, 100.0), "bias": (1.0, 1.0)}
    with pytest.raises(ValueError, match="samples ≥ 1 and a level in"):
        bootstrap_intervals(gold, {}, samples=0)
    with pytest.raises(ValueError, match="samples ≥ 1 and a level in"):
        bootstrap_intervals(gold, {}, level=1.0)
    with pytest.raises(ValueError, match="none is feminine"):
        bootstrap_intervals([g for g in gold if g.gender == "masculine"], {})


def test_single_answers_say_yes_to_the_likelier_name_only():
    from spacy_entmem.evaluation.gap import answer_pair, decide

    assert answer_pair(0.6, 0.5, 0.41, single=True) == (True, False)  # both over the threshold: the likelier one
    assert answer_pair(0.45, 0.7, 0.41, single=True) == (False, True)
    assert answer_pair(0.5, 0.5, 0.41, single=True) == (True, False)  # a tie goes to A
    assert answer_pair(0.3, 0.2, 0.41, single=True) == (False, False)
    assert answer_pair(0.6, 0.5, 0.41) == (True, True)
    assert decide({"x": (0.6, 0.5)}, 0.41, single=True) == {"x": (True, False)}
