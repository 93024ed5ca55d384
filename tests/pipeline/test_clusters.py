"""The memory's span groups (``write_clusters``) and the resolver's change to them (``align_pronoun``), on
constructed docs: no model runs."""
import pytest
import spacy
from spacy.tokens import Doc

from spacy_entmem.pipeline.attributes import coref_clusters, register_extensions
from spacy_entmem.pipeline.clusters import align_pronoun, doc_mentions, write_clusters

NLP = spacy.blank("en")
register_extensions()
TEXT = "Alan met Joan and Bill . She thanked him ."
#       0    1   2    3   4    5 6   7       8   9
ALAN, JOAN, BILL, SHE, HIM = (0, 1), (2, 3), (4, 5), (6, 7), (8, 9)


def written(mentions, first_entity=0):
    doc = NLP(TEXT)
    write_clusters(doc, mentions, "coref_clusters", "coref_mentions", first_entity)
    return doc


def cluster_ranges(doc):
    return [[(span.start, span.end) for span in group] for group in coref_clusters(doc)]


def test_write_clusters_writes_the_mentions_and_one_group_per_entity_with_two_mentions():
    doc = written([(*ALAN, 0), (*JOAN, 1), (*SHE, 1), (*HIM, 2)])
    assert cluster_ranges(doc) == [[JOAN, SHE]]
    assert doc_mentions(doc) == ([(*ALAN, 0), (*JOAN, 1), (*SHE, 1), (*HIM, 2)], "coref_mentions")
    assert doc.spans["coref_clusters_1"].attrs["entity_id"] == 1
    # an entity an earlier text of the stream mentioned is a cluster with one mention here
    assert cluster_ranges(written([(*ALAN, 0), (*HIM, 7)], first_entity=5)) == [[ALAN]]
    # old groups never mix with new ones
    doc = written([(*ALAN, 0), (*HIM, 0), (*JOAN, 1), (*SHE, 1)])
    write_clusters(doc, [(*ALAN, 0), (*HIM, 0)], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == [[ALAN, HIM]] and "coref_clusters_2" not in doc.spans


def test_the_pronoun_joins_the_name_it_refers_to():
    doc = written([(*ALAN, 0), (*SHE, 0), (*JOAN, 1)])
    align_pronoun(doc, SHE, JOAN, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == [[JOAN, SHE]]


def test_a_name_that_was_no_mention_becomes_one():
    doc = written([(*ALAN, 0), (*SHE, 0)])
    align_pronoun(doc, SHE, JOAN, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == [[JOAN, SHE]]
    assert dict(((s, e), k) for s, e, k in doc_mentions(doc)[0])[JOAN] == 1  # the next id


def test_the_other_name_leaves_the_referents_entity():
    doc = written([(*ALAN, 0), (*JOAN, 0), (*SHE, 0)])  # the memory merged the two names
    align_pronoun(doc, SHE, JOAN, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == [[JOAN, SHE]]


def test_a_pronoun_that_refers_to_neither_name_leaves_their_entity():
    doc = written([(*ALAN, 0), (*HIM, 0), (*BILL, 1)])
    align_pronoun(doc, HIM, None, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == []
    # a pronoun in another entity stays where it is
    doc = written([(*ALAN, 0), (*BILL, 1), (*HIM, 1)])
    align_pronoun(doc, HIM, None, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert cluster_ranges(doc) == [[BILL, HIM]]


def test_clusters_that_already_agree_are_left_as_they_are():
    doc = written([(*JOAN, 0), (*SHE, 0), (*ALAN, 1)])
    group = doc.spans["coref_clusters_1"]
    align_pronoun(doc, SHE, JOAN, [ALAN, JOAN], "coref_clusters", "coref_mentions")
    assert doc.spans["coref_clusters_1"] is group or list(doc.spans["coref_clusters_1"]) == list(group)
    assert cluster_ranges(doc) == [[JOAN, SHE]]


def test_a_mentions_group_whose_ids_do_not_match_its_spans_is_refused():
    doc = written([(*ALAN, 0), (*SHE, 0)])
    doc.spans["coref_mentions"].attrs["entity_ids"] = [0]
    with pytest.raises(ValueError, match="'coref_mentions'.*2 spans but 1 entity ids"):
        align_pronoun(doc, SHE, JOAN, [ALAN, JOAN], "coref_clusters", "coref_mentions")


def test_the_mentions_binding_rules_out_for_the_pronoun_leave_the_entity_it_joins():
    # Tom met Bill , Bill phoned him : "him" → the first Bill; the second (its subject) leaves
    words = "Tom met Bill , Bill phoned him".split()
    doc = Doc(NLP.vocab, words=words, heads=[1, 1, 1, 1, 5, 1, 5],
              deps=["nsubj", "ROOT", "dobj", "punct", "nsubj", "conj", "dobj"])
    write_clusters(doc, [(0, 1, 0), (2, 3, 1), (4, 5, 1)], "coref_clusters", "coref_mentions")
    align_pronoun(doc, (6, 7), (2, 3), [(0, 1), (2, 3)], "coref_clusters", "coref_mentions", forbidden_roots=[4])
    assert cluster_ranges(doc) == [[(2, 3), (6, 7)]]
    assert len({entity for *_, entity in doc_mentions(doc)[0]}) == 3  # Tom, the second Bill and Bill + him
