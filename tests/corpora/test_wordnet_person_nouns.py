import json

import pytest

from spacy_entmem.corpora.person_nouns import load_person_nouns
from spacy_entmem.corpora.wordnet_person_nouns import (PACKAGED_WORDNET_PERSON_NOUNS, read_noun_list,
                                                       save_wordnet_person_nouns, score_lexicon,
                                                       wordnet_person_nouns)


class Synset:
    def __init__(self, name, hyponyms=()):
        self.name, self._hyponyms = name, list(hyponyms)

    def hyponyms(self):
        return self._hyponyms


class FakeWordNet:
    """person > worker > mechanic; a 'cleaner' whose first sense is a substance; 'table' no person at all."""

    def __init__(self):
        self.mechanic = Synset("mechanic.n.01")
        self.cleaner_person = Synset("cleaner.n.02")
        self.worker = Synset("worker.n.01", [self.mechanic, self.cleaner_person])
        self.person = Synset("person.n.01", [self.worker])
        self.senses = {"mechanic": [self.mechanic], "worker": [self.worker],
                       "cleaner": [Synset("cleaner.n.01"), self.cleaner_person],
                       "table": [Synset("table.n.01")], "Smith": [self.worker], "first_mate": [self.worker]}

    def synset(self, name):
        assert name == "person.n.01"
        return self.person

    def all_lemma_names(self, pos):
        return list(self.senses)

    def synsets(self, lemma, pos):
        return self.senses[lemma]


def test_first_sense_only_by_default_and_more_senses_on_request():
    wordnet = FakeWordNet()
    assert wordnet_person_nouns(1, wordnet) == ["mechanic", "worker"]  # not "cleaner": a substance first
    assert wordnet_person_nouns(2, wordnet) == ["cleaner", "mechanic", "worker"]


def test_a_rank_below_one_is_refused():
    with pytest.raises(ValueError, match="max_rank must be at least 1"):
        wordnet_person_nouns(0, FakeWordNet())


def test_saved_list_round_trips_through_the_person_noun_reader(tmp_path):
    path = tmp_path / "nouns.json"
    save_wordnet_person_nouns(["worker", "mechanic", "worker"], path, max_rank=1)
    assert load_person_nouns(path) == {"mechanic", "worker"}
    assert json.loads(path.read_text())["provenance"]["count"] == 2


def test_score_lexicon_counts_hits_and_false_people():
    nouns = {"person": ["mechanic", "pilot"], "other": ["table", "cat"]}
    scores = score_lexicon({"mechanic", "cat"}, nouns)
    assert (scores["precision"], scores["recall"]) == (0.5, 0.5)
    assert scores["missed"] == ["pilot"] and scores["false"] == ["cat"]


def test_noun_list_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"person": ["a"]}')
    with pytest.raises(ValueError, match="bad.json.*'person' and 'other'"):
        read_noun_list(path)


def test_packaged_list_holds_the_issue_nouns_and_no_things():
    words = load_person_nouns(PACKAGED_WORDNET_PERSON_NOUNS)
    assert {"mechanic", "translator", "janitor", "accountant"} <= words
    assert not {"table", "machine", "letter", "march"} & words


def test_hand_written_lists_are_disjoint_and_balanced():
    from tests.conftest import FIXTURES

    dev = read_noun_list(FIXTURES / "person_nouns" / "dev.json")
    test = read_noun_list(FIXTURES / "person_nouns" / "test.json")
    assert not (set(dev["person"]) | set(dev["other"])) & (set(test["person"]) | set(test["other"]))
    assert len(dev["person"]) == len(dev["other"]) == len(test["person"]) == len(test["other"]) == 100
