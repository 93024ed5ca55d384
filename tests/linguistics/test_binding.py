"""Binding from tags: an object pronoun is not the subject of its own clause."""
import pytest
import spacy
from spacy.attrs import TAG
from spacy.tokens import Doc

from spacy_entmem.linguistics.binding import bound_subject_end


def _ends(words, tags):
    """The bound subject end of every token of the tagged words."""
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags)
    lower = [token.lower_ for token in doc]
    return [bound_subject_end(lower, doc.to_array([TAG]).tolist(), i) for i in range(len(doc))]


@pytest.mark.parametrize("words,tags,pronoun,subject_end", [
    # "Cobb allegedly choked her": the verb group "allegedly choked" follows the subject
    ("Cobb allegedly choked her".split(), ["NNP", "RB", "VBD", "PRP"], 3, 1),
    # a preposition that is no place and a control verb stay inside the clause
    ("Angus also decides to go with him".split(), ["NNP", "RB", "VBZ", "TO", "VB", "IN", "PRP"], 6, 1),
    ("The doctor was able to pass them".split(), ["DT", "NN", "VBD", "JJ", "TO", "VB", "PRP"], 6, 2),
    # in an embedded clause, its own subject: "her" is not John, and may be Mary
    ("Mary said that John saw her".split(), ["NNP", "VBD", "IN", "NNP", "VBD", "PRP"], 5, 4),
])
def test_an_object_pronoun_after_one_verb_group_is_bound_to_the_subject_before_it(words, tags, pronoun, subject_end):
    ends = _ends(words, tags)
    assert ends[pronoun] == subject_end
    assert [end for i, end in enumerate(ends) if i != pronoun] == [-1] * (len(words) - 1)


@pytest.mark.parametrize("words,tags", [
    ("Mary looked around her".split(), ["NNP", "VBD", "IN", "PRP"]),  # a place: may be Mary
    ("Mary told John about her".split(), ["NNP", "VBD", "NNP", "IN", "PRP"]),  # a noun phrase in between
    ("Mary said that saw her".split(), ["NNP", "VBD", "IN", "VBD", "PRP"]),  # a clause opener in between
    ("Mary , angry , hit her".split(), ["NNP", ",", "JJ", ",", "VBD", "PRP"]),  # punctuation
    ("Mary loved her sister".split(), ["NNP", "VBD", "PRP$", "NN"]),  # a possessive
    ("Mary hurt herself".split(), ["NNP", "VBD", "PRP"]),  # a reflexive is meant to be bound
    ("saw her".split(), ["VBD", "PRP"]),  # no subject before the verb group
    ("Mary of him".split(), ["NNP", "IN", "PRP"]),  # no verb in between
])
def test_nothing_is_bound_across_places_phrases_clauses_or_without_a_verb(words, tags):
    assert _ends(words, tags) == [-1] * len(words)


def test_an_untagged_doc_binds_nothing():
    doc = spacy.blank("en")("Cobb allegedly choked her")
    assert [bound_subject_end([t.lower_ for t in doc], [0] * len(doc), i) for i in range(len(doc))] == [-1] * 4
