"""Doc._.coref_resolved: pronouns replaced by their cluster's main mention, grammatically."""
import spacy
from spacy.tokens import Doc, SpanGroup

from spacy_entmem.pipeline.attributes import (ROLE, choose_main, is_possessive_pronoun, is_proper_mention,
                                              mention_number, register_extensions)
from spacy_entmem.linguistics.values import PLURAL, SINGULAR


def _doc(words, clusters, tags=None):
    register_extensions()
    nlp = spacy.blank("en")
    if tags is None:
        doc = nlp.make_doc(words if isinstance(words, str) else " ".join(words))
    else:
        doc = Doc(nlp.vocab, words=words, spaces=[True] * (len(words) - 1) + [False], tags=tags)
    for index, spans in enumerate(clusters, start=1):
        group = [doc[s:e] for s, e in spans]
        doc.spans[f"coref_clusters_{index}"] = SpanGroup(
            doc, name=f"coref_clusters_{index}", spans=group, attrs={ROLE: "cluster", "index": index,
                                                                     "main": choose_main(group)})
    return doc


def test_possessive_object_and_subject_pronouns():
    doc = _doc("Alan Turing lost his notes . Joan helped him and he thanked her .".split(),
               [[(0, 2), (3, 4), (8, 9), (10, 11)], [(6, 7), (12, 13)]])
    assert doc._.coref_resolved == ("Alan Turing lost Alan Turing's notes . Joan helped Alan Turing and "
                                    "Alan Turing thanked Joan .")


def test_a_possessive_main_mention_never_doubles_the_s():
    doc = _doc("Turing's machine worked . His idea was new .", [[(0, 2), (5, 6)]])
    assert [t.text for t in doc][:2] == ["Turing", "'s"]
    assert "Turing's's" not in doc._.coref_resolved
    assert doc._.coref_resolved.startswith("Turing's machine worked . Turing's idea")


def test_her_is_possessive_only_before_a_noun_phrase():
    doc = _doc("Marie saw her sister and thanked her .".split(), [[(0, 1), (2, 3), (6, 7)]])
    assert doc._.coref_resolved == "Marie saw Marie's sister and thanked Marie ."
    assert is_possessive_pronoun(doc[2]) and not is_possessive_pronoun(doc[6])


def test_article_case_follows_the_position_and_pronoun_only_clusters_stay():
    doc = _doc("The doctor came . Later she left and we said we were sorry .".split(),
               [[(0, 2), (5, 6)], [(8, 9), (10, 11)]])
    assert doc._.coref_resolved == "The doctor came . Later the doctor left and we said we were sorry ."


def test_a_pronoun_after_a_paragraph_break_or_an_opening_quote_takes_a_capitalised_article():
    doc = _doc("The doctor came.\n\nShe left. “She knew.”", [[(0, 2), (5, 6), (9, 10)]])
    assert doc[4].text == "\n\n" and doc[8].text == "“"
    assert doc._.coref_resolved == "The doctor came.\n\nThe doctor left. “The doctor knew.”"


def test_cluster_lookups_follow_changes_to_the_doc():
    """Span/Token getters use an index built once per doc; it must not go stale when clusters change."""
    doc = _doc("Anna met Bob . She said he was late .", [[(0, 1), (4, 5)]])
    assert doc[4:5]._.coref_cluster.name == "coref_clusters_1" and doc[2:3]._.coref_cluster is None
    assert [g.name for g in doc[4]._.coref_clusters] == ["coref_clusters_1"] and not doc[2]._.in_coref
    doc.spans["coref_clusters_2"] = SpanGroup(doc, name="coref_clusters_2", spans=[doc[2:3], doc[6:7]],
                                              attrs={ROLE: "cluster", "index": 2, "main": 0})
    assert doc[2:3]._.coref_cluster.name == "coref_clusters_2" and doc[6]._.in_coref
    doc.spans["coref_clusters_1"].append(doc[0:3])  # a nested mention spanning both clusters' tokens
    assert [g.name for g in doc[2]._.coref_clusters] == ["coref_clusters_1", "coref_clusters_2"]
    del doc.spans["coref_clusters_1"]
    assert doc[4:5]._.coref_cluster is None and doc[0]._.coref_clusters == []


def _tagged(text_and_tags: str):
    """ "The/DT committee/NN" → (words, tags)."""
    pairs = [item.rsplit("/", 1) for item in text_and_tags.split()]
    return [word for word, _ in pairs], [tag for _, tag in pairs]


def test_only_third_person_personal_pronouns_are_replaced():
    words = '" I am late , " said Harry . He left and hurt himself .'.split()
    doc = _doc(words, [[(1, 2), (7, 8), (9, 10), (13, 14)]])
    assert doc._.coref_resolved == '" I am late , " said Harry . Harry left and hurt himself .'


def test_the_main_mention_is_the_first_name_by_tags():
    words, tags = _tagged("His/PRP$ wife/NN Michelle/NNP grew/VBD up/RP ./. She/PRP left/VBD ./.")
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags)
    spans = [doc[0:2], doc[2:3], doc[6:7]]
    assert choose_main(spans) == 1
    assert choose_main([doc[0:2], doc[6:7]]) == 0  # no name: the first that is not a pronoun
    assert is_proper_mention(doc[2:3]) and not is_proper_mention(doc[0:2])
    words, tags = _tagged("the/DT University/NNP of/IN Chicago/NNP and/CC the/DT Thompson/NNP report/NN")
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags)
    assert is_proper_mention(doc[0:4]) and not is_proper_mention(doc[5:8])
    assert not is_proper_mention(spacy.blank("en").make_doc("Mr. Darcy")[0:2])  # no tags: no names


def test_a_main_mention_led_by_a_possessive_is_resolved_one_level():
    words, tags = _tagged("The/DT committee/NN met/VBD ./. Its/PRP$ chairman/NN said/VBD he/PRP was/VBD late/JJ "
                          "and/CC its/PRP$ head/NN agreed/VBD ./.")
    doc = _doc(words, [[(0, 2), (4, 5), (11, 12)], [(4, 6), (7, 8)]], tags=tags)
    assert doc._.coref_resolved == ("The committee met . The committee's chairman said the committee's chairman "
                                    "was late and the committee's head agreed .")


def test_a_leading_pronoun_that_is_not_resolved_takes_the_case_of_its_place():
    words, tags = _tagged("Her/PRP$ aunt/NN came/VBD ./. Later/RB she/PRP left/VBD ./.")
    doc = _doc(words, [[(0, 2), (5, 6)]], tags=tags)
    assert doc._.coref_resolved == "Her aunt came . Later her aunt left ."


def test_tagged_docs_replace_a_pronoun_only_by_a_noun_of_its_number():
    words, tags = _tagged("The/DT committee/NN met/VBD ./. They/PRP voted/VBD ./. The/DT students/NNS came/VBD "
                          "home/RB ./. They/PRP sang/VBD ./. Tom/NNP and/CC Sam/NNP ran/VBD ./. They/PRP won/VBD "
                          "./. They/PRP went/VBD home/RB ./.")
    doc = _doc(words, [[(0, 2), (4, 5)], [(7, 9), (12, 13)], [(15, 18), (20, 21)], [(25, 26), (23, 24)]],
               tags=tags)
    assert [mention_number(doc[s:e]) for s, e in ((0, 2), (7, 9), (15, 18), (25, 26))] == [SINGULAR, PLURAL,
                                                                                           PLURAL, 0]
    assert doc._.coref_resolved == ("The committee met . They voted . The students came home . The students sang "
                                    ". Tom and Sam ran . Tom and Sam won . They went home .")


def test_a_plural_in_s_takes_the_apostrophe_alone():
    words, tags = _tagged("The/DT Smiths/NNPS moved/VBD ./. Their/PRP$ house/NN is/VBZ old/JJ ./. The/DT boss/NN "
                          "left/VBD ./. His/PRP$ car/NN stayed/VBD ./.")
    doc = _doc(words, [[(0, 2), (4, 5)], [(9, 11), (13, 14)]], tags=tags)
    assert doc._.coref_resolved == "The Smiths moved . The Smiths' house is old . The boss left . The boss's car stayed ."
