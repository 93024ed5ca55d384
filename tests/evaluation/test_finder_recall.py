import pytest
import spacy
from spacy.tokens import Doc, Span

from spacy_entmem.evaluation.finder_recall import finder_name, finder_recall, mention_form


def parsed(words, tags, heads, deps):
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags, heads=heads, deps=deps)
    return doc


def test_mention_forms_read_the_parse_root():
    #          0      1         2        3      4    5     6
    words = ["The", "pilot", "thanked", "the", "mechanic", "and", "Ann"]
    doc = parsed(words, ["DT", "NN", "VBD", "DT", "NN", "CC", "NNP"], [1, 2, 2, 4, 2, 4, 4],
                 ["det", "nsubj", "ROOT", "det", "dobj", "cc", "conj"])
    people = {"pilot"}
    assert mention_form(doc, 0, 2, people) == "person nominal"
    assert mention_form(doc, 3, 5, people) == "other nominal"  # "mechanic" not in this lexicon
    assert mention_form(doc, 6, 7, people) == "name"


def test_recall_by_form_and_type_counts_proposed_gold_mentions():
    nlp = spacy.blank("en")

    @spacy.Language.component("fake_finder_for_recall")
    def fake_finder(doc):
        for token, tag, dep in zip(doc, ["PRP", "VBD", "DT", "NN"], ["nsubj", "ROOT", "det", "dobj"]):
            token.tag_, token.dep_ = tag, dep
            token.head = doc[1]
        doc[2].head = doc[3]
        doc.spans["mention_candidates"] = [Span(doc, 0, 1)]  # "She", not "the nurse"
        return doc

    finder = nlp.add_pipe("fake_finder_for_recall")
    finder.cfg = {"spans_key": "mention_candidates"}
    reference = Doc(nlp.vocab, words=["She", "met", "the", "nurse"])
    reference.spans["coref_clusters_1"] = [Span(reference, 0, 1, label="person")]
    reference.spans["coref_clusters_2"] = [Span(reference, 2, 4, label="person")]
    results = finder_recall(nlp, [reference], {"nurse"})
    assert results["form"]["pronoun"] == {"gold": 1, "proposed": 1, "recall": 1.0}
    assert results["form"]["person nominal"] == {"gold": 1, "proposed": 0, "recall": 0.0}
    assert results["type"]["person"] == {"gold": 2, "proposed": 1, "recall": 0.5}


def test_a_pipeline_without_a_finder_is_named():
    with pytest.raises(ValueError, match="no mention finder"):
        finder_name(spacy.blank("en"))
