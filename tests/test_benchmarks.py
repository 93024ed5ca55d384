"""The benchmark scripts import (a renamed package name breaks them silently otherwise: none runs in the suite)."""
import importlib.util
from pathlib import Path

import pytest
import spacy

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def load(path: Path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the scripts import each other, as when run from benchmarks/
    spec = importlib.util.spec_from_file_location(f"benchmark_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_a_benchmark_script_imports_without_running(path, monkeypatch):
    module = load(path, monkeypatch)
    assert callable(getattr(module, "main", None)), f"{path.name} has no main()"


def test_pronoun_salience_reads_sentences_and_sentence_openers(monkeypatch):
    salience = load(BENCHMARKS / "pronoun_salience.py", monkeypatch)
    doc = spacy.blank("en").make_doc("Anna left . When she arrived , Bob smiled .\nHe waved")
    sentence = salience.sentence_ids(doc)
    assert sentence == [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 3, 3]  # a line break is a sentence of its own
    assert [salience.opens_sentence(doc, i, sentence) for i in (4, 7, 11)] == [True, False, True]


def test_counterfactual_average_pairs_each_example_with_its_swapped_copy(monkeypatch):
    counterfactual = load(BENCHMARKS / "gap_counterfactual_average.py", monkeypatch)
    original = {"test-1": (0.2, 0.8), "test-2": (0.6, 0.1)}
    swapped = {"test-1-swapped": (0.4, 0.4)}  # test-2's copy was left out
    assert counterfactual.averaged(original, swapped) == {"test-1": pytest.approx((0.3, 0.6)), "test-2": (0.6, 0.1)}


def test_the_challenge_suite_scores_items_by_their_links_and_lists_the_failed_ones(monkeypatch):
    from types import SimpleNamespace

    suite = load(BENCHMARKS / "challenge_suite.py", monkeypatch)
    written = suite.items()
    assert [sum(item["set"] == name for item in written) for name in suite.SET_NAMES] == [462, 308, 112, 140, 140, 168, 140, 140, 140]
    checks = [["link", "P", "B"], ["apart", "P", "A"]]
    slots = {"A": [0, 3], "B": [9, 12], "P": [25, 28]}
    items = [{"id": "0-0-m", "category": "principle B", "gender": "m", "text": "Tom paid Bob and thanked him.",
              "slots": slots, "checks": checks, "set": "first"},
             {"id": "0-0-f", "category": "principle B", "gender": "f", "text": "Ann paid Eve and thanked her.",
              "slots": slots, "checks": checks, "set": "first"}]

    def mention(start, end, text):
        return SimpleNamespace(start_char=start, end_char=end, text=text)

    clusters = [[[mention(9, 12, "Bob"), mention(25, 28, "him")]],  # right
                [[mention(0, 3, "Ann"), mention(25, 28, "her")]]]  # the subject: wrong
    nlp = SimpleNamespace(pipe=lambda texts: [SimpleNamespace(_=SimpleNamespace(coref_clusters=c)) for c in clusters])
    failures = []
    scores = suite.evaluate(nlp, items, failures)
    assert scores["principle B"] == {"n": 2, "accuracy": 50.0}
    assert scores["masculine"]["accuracy"] == 100.0 and scores["feminine"]["accuracy"] == 0.0
    assert scores["set: first"] == {"n": 2, "accuracy": 50.0}
    assert [f["id"] for f in failures] == ["0-0-f"] and failures[0]["clusters"] == [["Ann", "her"]]


def test_the_role_participant_set_is_balanced_and_its_slots_name_the_people(monkeypatch):
    from collections import Counter

    rp = load(BENCHMARKS / "role_participant.py", monkeypatch)
    items = rp.items()
    assert len(items) == 216
    assert Counter(item["pronoun"] for item in items) == {"he": 72, "she": 72, "they": 72}
    assert Counter(item["answer"] for item in items) == {"A": 108, "B": 108}
    assert Counter(item["part"] for item in items) == {"dev": 72, "test": 144}
    for item in items:
        first, second = rp.SCHEMAS[item["schema"]][:2]
        text = item["text"]
        assert text[slice(*item["slots"]["A"])] == first and text[slice(*item["slots"]["B"])] == second
        assert text[slice(*item["slots"]["P"])] == item["pronoun"]
        assert item["checks"] == [["link", "P", item["answer"]], ["apart", "P", "B" if item["answer"] == "A" else "A"]]


def test_complement_mixes_finds_entities_holding_names_of_one_head_with_disjoint_complements(monkeypatch):
    mixes = load(BENCHMARKS / "complement_mixes.py", monkeypatch)
    assert mixes.complement("the Wicked Witch of the West, who") == ("witch", frozenset({"west"}))
    assert mixes.complement("the Witch") is None
    rows = [[1, 0, 0, 4, 0, "the Witch of the North", "name"], [1, 0, 9, 15, 0, "the Wicked Witch of the East", "name"],
            [2, 0, 20, 24, 0, "the Queen of the Mice", "name"], [2, 0, 30, 35, 0, "the Queen of the Field Mice", "name"],
            [3, 0, 40, 44, 0, "the Guardian of the Gate", "name"], [3, 0, 50, 54, 0, "the Guardian of the Gates", "name"]]
    assert mixes.mixes(rows) == {1: ["east", "north"]}  # a shared word, or "Gate(s)", is no mix
