"""Doc._.coref_resolved: pronouns replaced by their cluster's main mention, grammatically."""
import spacy
from spacy.tokens import SpanGroup

from spacy_entmem.pipeline.attributes import ROLE, choose_main, is_possessive_pronoun, register_extensions


def _doc(words, clusters):
    register_extensions()
    doc = spacy.blank("en").make_doc(words) if isinstance(words, str) else spacy.blank("en").make_doc(" ".join(words))
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
