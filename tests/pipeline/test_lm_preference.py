import pytest
import spacy
from spacy.tokens import Doc

from spacy_entmem.pipeline.clusters import doc_mentions, write_clusters
from spacy_entmem.pipeline.lm_preference import LMPreference, clashes

WORDS = ["The", "nurse", "reminded", "the", "patient", "that", "she", "needed", "to", "rest", "."]
TAGS = ["DT", "NN", "VBD", "DT", "NN", "IN", "PRP", "VBD", "TO", "VB", "."]
HEADS = [1, 2, 2, 4, 2, 7, 7, 2, 9, 7, 2]
DEPS = ["det", "nsubj", "ROOT", "det", "dobj", "mark", "nsubj", "ccomp", "aux", "xcomp", "punct"]
SPACES = [True] * 9 + [False, False]


class FakeScorer:
    """Prefers the reading whose prefix ends with ``liked``."""

    def __init__(self, liked):
        self.liked, self.calls = liked, []

    def continuation_log_probs(self, prefixes, continuation):
        self.calls.append((list(prefixes), continuation))
        return [-1.0 if prefix.endswith(self.liked) else -5.0 for prefix in prefixes]


def nurse_doc(pronoun_entity=0):
    doc = Doc(spacy.blank("en").vocab, words=WORDS, spaces=SPACES, tags=TAGS, heads=HEADS, deps=DEPS)
    write_clusters(doc, [(0, 2, 0), (3, 5, 1), (6, 7, pronoun_entity)], "coref_clusters", "coref_mentions")
    return doc


def preference(liked, **settings):
    component = LMPreference("lm_preference", **settings)
    component._scorer = FakeScorer(liked)
    return component


def test_the_pronoun_joins_the_person_whose_reading_the_lm_prefers():
    component = preference("the patient")
    doc = component(nurse_doc())
    prefixes, continuation = component.scorer.calls[0]
    assert sorted(prefixes) == ["The nurse reminded the patient that the nurse",
                                "The nurse reminded the patient that the patient"]
    assert continuation == " needed to rest."
    entity = {(s, e): k for s, e, k in doc_mentions(doc)[0]}
    assert entity[6, 7] == entity[3, 5] != entity[0, 2]
    assert [[span.text for span in group] for group in doc._.coref_clusters] == [["the patient", "she"]]
    assert (component.asked, component.moved) == (1, 1)


def test_a_preference_within_the_margin_leaves_the_memory_s_choice():
    component = preference("the patient", margin=10.0)
    doc = component(nurse_doc())
    entity = {(s, e): k for s, e, k in doc_mentions(doc)[0]}
    assert entity[6, 7] == entity[0, 2]
    assert component.moved == 0


def test_an_unlinked_pronoun_joins_the_preferred_person_whatever_the_margin():
    doc = preference("the nurse", margin=10.0)(nurse_doc(pronoun_entity=2))
    entity = {(s, e): k for s, e, k in doc_mentions(doc)[0]}
    assert entity[6, 7] == entity[0, 2]


def test_a_person_of_the_other_gender_is_no_reading():
    words = list(WORDS)
    words[4] = "man"  # a masculine nominal: only the nurse is left for "she", so nothing is asked
    doc = Doc(spacy.blank("en").vocab, words=words, spaces=SPACES, tags=TAGS, heads=HEADS, deps=DEPS)
    write_clusters(doc, [(0, 2, 0), (3, 5, 1), (6, 7, 0)], "coref_clusters", "coref_mentions")
    component = preference("the man")
    component(doc)
    assert component.asked == 0 and clashes(doc[3:5], 2)


def test_docs_without_memory_output_pass_through():
    component = preference("x")
    doc = Doc(spacy.blank("en").vocab, words=["Hello", "."])
    assert component(doc) is doc and component.asked == 0


@pytest.mark.parametrize("settings,message", [({"margin": -1.0}, "margin"), ({"max_readings": 1}, "max_readings")])
def test_invalid_settings_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        LMPreference("lm_preference", **settings)


def test_the_factory_saves_its_settings_with_the_pipeline(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("entmem_lm_preference", config={"margin": 1.5, "base": "somewhere"})
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    component = loaded.get_pipe("entmem_lm_preference")
    assert (component.margin, component.base) == (1.5, "somewhere")
