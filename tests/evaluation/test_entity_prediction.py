import numpy
import pytest
import spacy
from spacy.tokens import Span

from spacy_entmem.evaluation.entity_prediction import (NEW, ShallowReferentModel, accuracy, features,
                                                       story_slots)


def story(nlp, text, mentions):
    """mentions: (token, referent label) one-token mentions, as InScript's."""
    doc = nlp.make_doc(text)
    labels = sorted({label for _, label in mentions}, key=lambda l: min(t for t, x in mentions if x == l))
    for n, label in enumerate(labels, start=1):
        doc.spans[f"coref_clusters_{n}"] = [Span(doc, t, t + 1) for t, x in mentions if x == label]
    return doc


@pytest.fixture
def nlp():
    return spacy.blank("en")


def test_slots_know_the_referents_before_them_and_the_gold_answer(nlp):
    doc = story(nlp, "I took the bath . It was hot and I liked it .",
                [(0, "me"), (3, "bath"), (5, "bath"), (9, "me"), (11, "bath"), (8, "x")])
    slots = story_slots(doc)
    assert [(s.token, s.n_before, s.gold) for s in slots] == [(3, 1, NEW), (5, 2, 1), (8, 2, NEW), (9, 3, 0),
                                                              (11, 3, 1)]
    # at "I" (token 9, the 5th mention): "me" was last the 1st mention, "bath" the 3rd, "x" the 4th
    assert slots[3].recency.tolist() == [4, 2, 1] and slots[3].frequency.tolist() == [1, 2, 1]
    assert [s.token for s in story_slots(doc, only=[9, 11])] == [9, 11]
    x = features(slots[3])
    assert x.shape[0] == 4 and x[-1, -1] == 1 and x[:-1, -1].sum() == 0 and (x.sum(axis=1)[:-1] == 2).all()


def test_the_shallow_model_learns_recency_and_accuracy_counts_right_answers(nlp):
    # the referent is always the most recent one after the first two mentions
    docs = [story(nlp, "a b c d e f g h", [(0, "p"), (1, "q")] + [(i, "q" if i % 2 else "p") for i in range(2, 8)])]
    slots = [s for doc in docs for s in story_slots(doc)]
    model = ShallowReferentModel().fit(slots)
    predicted = [model.predict(s) for s in slots]
    gold = [s.gold for s in slots]
    assert accuracy(predicted, gold) > accuracy([NEW] * len(gold), gold)
    assert accuracy([1, 2], [1, 3]) == 0.5 and accuracy([], []) == 0.0
    with pytest.raises(ValueError, match="no training slots"):
        ShallowReferentModel().fit([])
    assert numpy.isfinite(model.weights).all()
