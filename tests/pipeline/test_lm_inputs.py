import numpy
import pytest
import spacy
from spacy.tokens import Span

from spacy_entmem.nn.lm.dntm import BOS, ENTITY, EOS, UNKNOWN
from spacy_entmem.pipeline.lm_inputs import LMVocabulary, anonymised_mentions, chain_keys, lm_document, slotted_mentions

TEXT = "Anna met her old friend Bob . She gave him a book . The book was red ."


@pytest.fixture
def doc():
    nlp = spacy.blank("en")
    doc = nlp(TEXT)
    doc.set_ents([])
    for i, token in enumerate(doc):
        token.is_sent_start = i in (0, 7, 13)
    # Anna: Anna, her, She; Bob: her old friend Bob, him; book: a book, The book; singleton: red
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 1), Span(doc, 2, 3), Span(doc, 7, 8)]
    doc.spans["coref_clusters_2"] = [Span(doc, 2, 6), Span(doc, 9, 10)]
    doc.spans["coref_clusters_3"] = [Span(doc, 10, 12), Span(doc, 13, 15)]
    doc.spans["coref_clusters_4"] = [Span(doc, 16, 17)]
    return doc


def test_chains_get_slots_in_order_of_first_mention_and_the_outermost_mention_wins(doc):
    mentions = anonymised_mentions(doc, "coref_clusters", n_slots=10)
    # "her" (Anna, inside "her old friend Bob") loses to the outer mention; singletons stay words
    assert mentions == {0: (1, 0), 2: (6, 1), 7: (8, 0), 9: (10, 1), 10: (12, 2), 13: (15, 2)}
    assert anonymised_mentions(doc, "coref_clusters", n_slots=2) == {0: (1, 0), 2: (6, 1), 7: (8, 0), 9: (10, 1)}
    assert anonymised_mentions(doc, "coref_clusters", n_slots=10, min_mentions=1)[16] == (17, 3)


def test_sentences_are_bos_words_eos_with_a_token_per_lm_token(doc):
    vocab = LMVocabulary(["met", "gave", ".", "was"])
    lm = lm_document(doc, vocab)
    assert len(lm.words) == 3
    met, gave, stop, was = (vocab(w) for w in ("met", "gave", ".", "was"))
    assert lm.words[0].tolist() == [BOS, ENTITY, met, ENTITY, stop, EOS]
    assert lm.slots[0].tolist() == [-1, 0, -1, 1, -1, -1]
    assert lm.tokens[0].tolist() == [-1, 0, 1, 2, 6, -1]
    assert lm.words[1].tolist() == [BOS, ENTITY, gave, ENTITY, ENTITY, stop, EOS]
    assert lm.words[2].tolist() == [BOS, ENTITY, was, UNKNOWN, stop, EOS]
    assert lm.n_predicted == 5 + 6 + 5


def test_token_groups_follow_the_dynamic_neural_text_model(doc):
    groups = lm_document(doc, LMVocabulary([])).groups()
    # predicted tokens: [E0 met E1 . EOS] [E0 gave E1 E2 . EOS] [E2 was red . EOS]
    assert groups["reappearing"].tolist() == [0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]
    assert groups["following"].tolist() == [0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0]
    assert groups["non_entity"].sum() == 16 - 6 and groups["all"].all()


def test_white_space_and_empty_docs(doc):
    nlp = spacy.blank("en")
    spaced = nlp("Hello   world .\n\nBye .")
    lm = lm_document(spaced, LMVocabulary(["hello"]))
    assert all(t >= 0 for sentence in lm.tokens for t in sentence[1:-1])
    assert not any(spaced[int(t)].is_space for sentence in lm.tokens for t in sentence[1:-1])
    assert lm_document(nlp(""), LMVocabulary([])).words == []


def test_vocabulary_counts_lowercased_words_and_rejects_a_tiny_size(doc):
    vocab = LMVocabulary.count([doc], 6)
    assert vocab.words == [".", "book"] and len(vocab) == 6
    assert vocab("Book".lower()) == vocab("book") != UNKNOWN and vocab("zebra") == UNKNOWN
    with pytest.raises(ValueError, match="vocabulary size must be more than 4"):
        LMVocabulary.count([doc], 3)
    assert numpy.array_equal(lm_document(doc, vocab).words[0][:2], [BOS, ENTITY])


def test_crossing_mentions_keep_the_earlier_one_and_lose_no_token():
    nlp = spacy.blank("en")
    doc = nlp("the talented Miss Cowley sang . Miss Cowley bowed .")
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 3), Span(doc, 6, 8)]  # "the talented Miss"
    doc.spans["coref_clusters_2"] = [Span(doc, 2, 4), Span(doc, 6, 7)]  # "Miss Cowley" crosses it
    mentions = anonymised_mentions(doc, "coref_clusters", n_slots=10)
    assert mentions == {0: (3, 0), 6: (8, 0)}
    lm = lm_document(doc, LMVocabulary([]))
    # no parser: sentences end after "."; "Cowley" (inside the crossing mention) stays a word
    assert [w.tolist() for w in lm.words] == [[BOS, ENTITY, UNKNOWN, UNKNOWN, UNKNOWN, EOS],
                                              [BOS, ENTITY, UNKNOWN, UNKNOWN, EOS]]
    assert [t.tolist() for t in lm.tokens] == [[-1, 0, 3, 4, 5, -1], [-1, 6, 8, 9, -1]]


def test_entitynlm_keeps_the_words_and_labels_every_mention_token(doc):
    vocab = LMVocabulary(["met", "her", "old", "friend", "bob", "."])
    lm = lm_document(doc, vocab, anonymise=False, n_slots=10)
    met, her, old, friend, bob, stop = (vocab(w) for w in ("met", "her", "old", "friend", "bob", "."))
    assert lm.words[0].tolist() == [BOS, UNKNOWN, met, her, old, friend, bob, stop, EOS]
    # "her old friend Bob" (Bob, slot 1) is the outermost mention: "her" (Anna) inside it is not one
    assert lm.slots[0].tolist() == [-1, 0, -1, 1, 1, 1, 1, -1, -1]
    assert lm.remaining[0].tolist() == [0, 1, 0, 4, 3, 2, 1, 0, 0]
    assert lm.tokens[0].tolist() == [-1, 0, 1, 2, 3, 4, 5, 6, -1]
    # with max_length 3 "her old friend Bob" is no mention, so "her" (Anna, slot 0) inside it is one
    assert lm_document(doc, vocab, anonymise=False, max_length=3).slots[0].tolist()[3:7] == [0, -1, -1, -1]
    assert lm_document(doc, vocab, anonymise=False, min_mentions=1, n_slots=10).slots[2].tolist()[-3] == 3


def test_entitynlm_mentions_never_run_across_sentences():
    nlp = spacy.blank("en")
    doc = nlp("I saw the old . man there .")
    for i, token in enumerate(doc):
        token.is_sent_start = i in (0, 5)
    doc.spans["coref_clusters_1"] = [Span(doc, 2, 6), Span(doc, 6, 7)]  # "the old . man" crosses the break
    lm = lm_document(doc, LMVocabulary([]), anonymise=False)
    assert lm.remaining[0].tolist() == [0, 0, 0, 3, 2, 1, 0]
    assert lm.remaining[1].tolist() == [0, 1, 1, 0, 0]
    assert lm.slots[1].tolist() == [-1, 0, 0, -1, -1]


def test_a_chain_whose_first_mention_is_nested_gets_its_slot_where_it_first_appears(doc):
    # Bob's chain first appears inside "Anna met her" ... make Bob's first mention nested in Anna's outer one
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 3), Span(doc, 7, 8)]       # "Anna met her", "She"
    doc.spans["coref_clusters_2"] = [Span(doc, 2, 3), Span(doc, 9, 10)]      # "her" (nested), "him"
    doc.spans["coref_clusters_3"] = [Span(doc, 4, 6), Span(doc, 13, 15)]     # "friend Bob", "The book"
    keys, mentions = slotted_mentions(doc, "coref_clusters", n_slots=10)
    # chain 3 is seen (token 4) before chain 2's first kept mention (token 9): slots follow what is kept
    assert keys == ["coref_clusters_1", "coref_clusters_3", "coref_clusters_2"]
    assert mentions == {0: (3, 0), 4: (6, 1), 7: (8, 0), 9: (10, 2), 13: (15, 1)}
    new_slots = []
    for start in sorted(mentions):
        slot = mentions[start][1]
        assert slot <= len(new_slots)  # every mention is a seen entity or the next new one
        if slot == len(new_slots):
            new_slots.append(slot)
    # a chain all of whose mentions are nested gets no slot
    doc.spans["coref_clusters_4"] = [Span(doc, 2, 3), Span(doc, 5, 6)]
    assert "coref_clusters_4" not in chain_keys(doc, "coref_clusters", n_slots=10)
    # mentions longer than max_length are dropped before slots are numbered (not after: that skipped slots)
    keys, mentions = slotted_mentions(doc, "coref_clusters", n_slots=10, max_length=1)
    assert keys == ["coref_clusters_2", "coref_clusters_4", "coref_clusters_1"]
    assert mentions == {2: (3, 0), 5: (6, 1), 7: (8, 2), 9: (10, 0)}
