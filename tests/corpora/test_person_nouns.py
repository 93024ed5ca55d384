"""The learnt person-noun list: the nouns of the training texts, their labels from typed mentions, the classifier
over the frozen encoder's vectors, and the list singular "they" reads."""
from collections import Counter

import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_entmem.corpora.person_nouns import (build_person_nouns, capitalised_words, common_nouns, encode_nouns,
                                               encoder_words, fit_person_classifier, labelled_heads,
                                               learnt_person_nouns, load_person_nouns, save_person_nouns,
                                               tag_counts, typed_otherwise, typed_people_only)
from spacy_entmem.models.memory import _person_nouns, packaged_common_person_nouns, packaged_person_nouns


def tagged(words, tags):
    return Doc(spacy.blank("en").vocab, words=words, tags=tags)


def test_common_nouns_are_lower_case_words_mostly_tagged_nn_or_nns():
    docs = [tagged(["The", "tenant", "paid", "Smith", "rent", "."], ["DT", "NN", "VBD", "NNP", "NN", "."]),
            tagged(["The", "tenants", "rent", "a", "flat", "near", "Tenant", "Street"],
                   ["DT", "NNS", "VBP", "DT", "NN", "IN", "NNP", "NNP"]),
            tagged(["a", "tenant", "of", "Smith"], ["DT", "NN", "IN", "NNP"])]
    # rent: NN once, VBP once (no majority); smith: a name; tenant: NN twice, a name once
    tags = tag_counts(docs)
    assert common_nouns(tags) == ["flat", "tenant", "tenants"]
    assert common_nouns(tags, min_count=2) == ["tenant"]
    assert tags["rent"] == Counter({(True, True): 1, (False, True): 1})  # (tagged NN / NNS, lower case)
    # names and sentence openers; not "tenant" (capitalised once in "Tenant Street", lower case twice)
    assert capitalised_words(tags) == ["smith", "street", "the"]


def test_encoder_words_are_whole_lower_case_words_the_training_texts_never_use():
    words = encoder_words({"tenant", "rent"})
    assert {"mechanic", "banker"} <= set(words) and "tenant" not in words and "rent" not in words
    assert all(w.isalpha() and w.islower() and w.isascii() and len(w) > 2 for w in words)  # no "##ing", "the"
    assert "##ing" not in words and "is" not in words and words == sorted(words)


def test_heads_are_labelled_by_the_share_of_people_among_their_typed_mentions():
    counts = {"sergeant": Counter(person=4), "village": Counter(place=5), "party": Counter(person=2, organisation=2),
              "coach": Counter(other=6, person=3), "colonist": Counter(person=2),
              "guide": Counter(person=4, place=1)}
    assert labelled_heads(counts) == {"sergeant": True, "village": False, "guide": True}
    assert labelled_heads(counts, min_count=2)["colonist"] is True
    assert typed_otherwise(counts) == {"village", "coach"}  # party is half people: not mostly something else


def test_the_classifier_reports_cross_validated_precision_and_recall():
    rng = numpy.random.default_rng(0)
    people = rng.normal(2.0, 1.0, size=(20, 4))
    things = rng.normal(-2.0, 1.0, size=(30, 4))
    labels = numpy.array([1] * 20 + [0] * 30)
    classifier, (precision, recall) = fit_person_classifier(numpy.concatenate([people, things]), labels, 0.5)
    assert precision == 1.0 and recall == 1.0  # separable: every fold gets them all right
    assert classifier.predict_proba(numpy.full((1, 4), 2.0))[0, 1] > 0.9
    with pytest.raises(ValueError, match="at least 5 labelled heads of each class"):
        fit_person_classifier(people[:6], numpy.array([1, 1, 1, 1, 0, 0]), 0.5)


def test_learnt_nouns_reach_the_threshold_and_typed_evidence_wins():
    words = ["banker", "overcoat", "coach", "chef"]
    assert learnt_person_nouns(words, numpy.array([0.97, 0.2, 0.99, 0.9]), 0.9, {"coach"}) == ["banker", "chef"]


def test_a_noun_with_too_few_typed_mentions_all_people_needs_only_the_lower_threshold():
    counts = {"tenant": Counter(person=1), "grey": Counter(person=2), "ghost": Counter(person=1, other=1),
              "banker": Counter(person=3)}
    assert typed_people_only(counts) == {"tenant", "grey"}  # "banker" is labelled, "ghost" not all people
    words = ["tenant", "grey", "ghost", "overcoat"]
    probabilities = numpy.array([0.6, 0.6, 0.6, 0.6])
    assert learnt_person_nouns(words, probabilities, 0.9, (), {"tenant"}, 0.5) == ["tenant"]
    assert learnt_person_nouns(words, probabilities, 0.9, (), {"tenant"}, 0.7) == []
    assert learnt_person_nouns(words, probabilities, 0.9, ()) == []  # without typed people: the threshold alone


def test_the_list_round_trips_and_a_bad_file_says_so(tmp_path):
    save_person_nouns(["tenant", "banker"], ["farmer"], tmp_path / "people.json", {"threshold": 0.9})
    assert load_person_nouns(tmp_path / "people.json") == {"banker", "tenant"}
    assert load_person_nouns(tmp_path / "people.json", "typed") == {"farmer"}
    (tmp_path / "bad.json").write_text('["banker"]', encoding="utf8")
    with pytest.raises(ValueError, match="'words' is a list of words"):
        load_person_nouns(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="cannot read the person-noun list"):
        load_person_nouns(tmp_path / "missing.json")


def test_the_packaged_list_extends_the_head_kind_lexicons_people():
    typed, learnt = _person_nouns(False), packaged_person_nouns()
    assert "gardener" in typed and "landlord" not in typed
    assert typed < learnt and "landlord" in learnt
    common = packaged_common_person_nouns()
    assert {"landlord", "gardener"} <= common and "oak" in typed and "oak" not in common  # Gabriel Oak: a name


def test_encoded_nouns_of_people_lie_closer_to_each_other_than_to_things():
    vectors = encode_nouns(["tenant", "landlord", "teaspoon"])
    unit = vectors / numpy.linalg.norm(vectors, axis=1, keepdims=True)
    assert vectors.shape == (3, 384)
    assert unit[0] @ unit[1] > unit[0] @ unit[2]


def test_build_labels_only_words_of_the_vocabulary_and_records_its_provenance():
    people = ["tenant", "landlord", "banker", "farmer", "sailor", "soldier"]
    things = ["teaspoon", "carpet", "window", "bucket", "ladder", "pencil"]
    counts = {w: Counter(person=3) for w in people} | {w: Counter(other=3) for w in things}
    counts["merchant"] = Counter(person=3)  # labelled, but not in the vocabulary: not used
    words, typed, provenance = build_person_nouns(counts, people[:-1] + things[:-1] + ["widow", "kettle"],
                                                  threshold=0.5, folds=2)
    assert provenance["labelled_people"] == 5 and provenance["labelled_other"] == 5
    assert typed == sorted(people[:-1])
    assert "widow" in words and "kettle" not in words and "soldier" not in words
    counts["usher"] = counts["ushers"] = Counter(person=1)  # too few typed mentions to label; all people
    words, _, provenance = build_person_nouns(counts, people[:-1] + things[:-1] + ["usher", "ushers"], threshold=0.99,
                                              typed_threshold=0.01, folds=2, nouns=["usher"])
    assert "usher" in words and "ushers" not in words  # only a common noun of the training texts
    assert provenance["typed_people_listed"] == 1
