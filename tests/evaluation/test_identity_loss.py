"""The identity-loss breakdown replays a stream's memory log: evictions, restarts of a name, singleton kinds."""
import numpy
import spacy

from spacy_entmem.evaluation.character_keys import CharacterKey
from spacy_entmem.evaluation.identity_loss import SINGLETON_KINDS, IdentityLog, full_name, mention_kind
from spacy_entmem.pipeline.attributes import register_extensions


def _doc(words, steps):
    """A doc with a hand-made memory log: steps (start, end, action, cell, entity)."""
    register_extensions()
    doc = spacy.blank("en").make_doc(" ".join(words))
    doc._.entity_memory_log = {
        "spans": numpy.array([[s, e] for s, e, *_ in steps]).reshape(-1, 2),
        "action": numpy.array([a for _, _, a, _, _ in steps]),
        "cell": numpy.array([c for _, _, _, c, _ in steps]),
        "entity_id": numpy.array([i for *_, i in steps]),
    }
    return doc


def test_evictions_and_restarts_of_a_name_are_counted_by_where_the_old_entity_was():
    # two cells: "Jo March" (entity 0), "Amy" (1), "Beth" evicts Jo (2), "Jo March" restarts (3) evicting Amy,
    # then "Jo March" restarts again (4) while entity 3 is still held
    words = "Jo March met Amy and Beth then Jo March and Jo March".split()
    steps = [(0, 2, 1, 0, 0), (3, 4, 1, 1, 1), (5, 6, 1, 0, 2), (7, 9, 1, 1, 3), (10, 12, 1, 0, 4)]
    log = IdentityLog()
    log.add(_doc(words, steps), 0)
    key = CharacterKey("b.txt", None, {"Jo": ["Jo March"], "Amy": ["Amy"]})
    summary = log.summary(key)
    assert summary["evictions"] == 3 and summary["new_entities"] == 5
    assert summary["restart_evicted"] == 1 and summary["restart_live"] == 1
    assert summary["full_name_restart_live"] == 1  # the second restart: entity 3 held "Jo March" in a cell
    assert summary["singletons"] == 5 and sum(summary["singleton_kinds"].values()) == 5


def test_singletons_are_sorted_by_what_they_are():
    doc = spacy.blank("en").make_doc('" Oh , my dear , I said to the man in the long grey coat . "')
    assert mention_kind(doc, 6, 7, False) == SINGLETON_KINDS[0]  # I
    assert mention_kind(doc, 3, 5, False) == SINGLETON_KINDS[1]  # my dear
    assert mention_kind(doc, 9, 16, False) == SINGLETON_KINDS[2]  # five tokens or more
    assert mention_kind(doc, 9, 11, True) == SINGLETON_KINDS[3]  # holds another mention
    assert mention_kind(doc, 9, 11, False) == SINGLETON_KINDS[6]  # another nominal


def test_a_full_name_is_a_title_and_two_capitalised_name_words_and_nothing_more():
    assert full_name("Jo March") == ("jo", "march") and full_name("Mr. Theodore Laurence") == ("theodore", "laurence")
    for text in ("poor Jim Hawkins", "Ben Gunn's the man", "Alexander Smollett, master", "A Millennium Fulcrum Edition",
                 "PROJECT GUTENBERG", "Aunt March", "Jo"):
        assert full_name(text) is None, text
