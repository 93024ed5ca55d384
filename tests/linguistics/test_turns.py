"""Speakers' turns and grammatical person."""
from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.linguistics.speakers import read_quotations
from spacy_entmem.linguistics.turns import (
    QUOTATION_TURNS, READER, is_letter, possessed_nominal, pronoun_person, read_turns, signature_span, signature_start,
    speaker_labels)


def _read(texts, spans=()):
    """(turn ids per token, persons per span) of the words."""
    quoted, quotes = read_quotations([text.lower() for text in texts])
    return read_turns(texts, quoted, quotes, spans)


def _turns(texts):
    return _read(texts)[0]


def candidate_persons(texts, spans):
    return _read(texts, spans)[1]


def test_persons_of_pronouns():
    assert [pronoun_person(w) for w in ("i", "me", "my", "you", "he", "her", "it", "we", "they", "the")] == \
        [1, 1, 1, 2, 3, 3, 0, 5, 0, 0]


def test_a_speaker_label_opens_a_turn_that_runs_to_the_next_label():
    texts = ["Interviewer", ":", "Did", "you", "?", "\n", "Lee", ":", "I", "met", "Dana", ".", "She", "left", "."]
    assert speaker_labels(texts) == [(0, 1), (6, 7)]
    turns = _turns(texts)
    assert turns[3] != turns[8] and turns[8] == turns[12]  # "I" and "She" in Lee's turn
    assert candidate_persons(texts, [(3, 4), (6, 7), (8, 9), (10, 11), (12, 13)]) == [2, 1, 1, 0, 3]


def test_without_labels_each_sentence_is_a_turn_and_a_quotation_is_its_own():
    texts = ["I", "came", ".", "He", "said", "\"", "I", "left", "\"", "."]
    turns = _turns(texts)
    assert turns[0] != turns[3]
    assert turns[6] >= QUOTATION_TURNS and turns[6] != turns[3]


def test_a_letter_is_one_turn_and_its_greeting_names_the_addressee():
    texts = ["Hi", "Tom", ",", "thanks", ".", "I", "forwarded", "it", "."]
    assert is_letter([t.lower() for t in texts])
    turns = _turns(texts)
    assert turns[1] == turns[5]
    assert candidate_persons(texts, [(1, 2), (5, 6)]) == [2, 1]
    assert not is_letter(["the", "hi", "tom"])


def test_the_addressee_may_hold_the_greeting_word_but_not_the_text_after_its_line():
    texts = ["Dear", "Ms.", "Ortiz", ",", "our", "accountant", "wrote", ".", "You", "agreed", "."]
    spans = [(0, 3), (1, 3), (2, 3), (0, 6), (4, 6), (8, 9)]
    assert candidate_persons(texts, spans) == [2, 2, 2, 0, 3, 2]  # "our accountant": a third person


def test_the_name_that_signs_a_letter_is_its_writer():
    texts = ["Hi", "Sam", ",", "could", "you", "call", "?", "I", "wait", ".", "\n", "Thanks", ",", "\n", "Priya"]
    assert signature_start(texts) == 14
    assert candidate_persons(texts, [(1, 2), (4, 5), (7, 8), (14, 15)]) == [2, 2, 1, 1]
    assert signature_start(["Kind", "regards", ",", "Dr.", "Lee"]) == 3
    assert signature_start(["Best", "Mark"]) == 1  # no comma
    assert signature_start(["I", "met", "Mark"]) == 3  # no closing: no signature
    assert signature_start(["Thanks", ",", "see", "you"]) == 4  # no name after the closing
    not_a_letter = ["I", "said", "thanks", ",", "Priya"]  # a closing word, but no greeting opens the text
    assert candidate_persons(not_a_letter, [(4, 5)]) == [0]


def test_the_signature_span_runs_to_the_end_of_its_line():
    assert signature_span(["Hi", "Sam", ",", "\n", "Best", ",", "\n", "Mary", "Ann", "Lee", "\n"]) == (7, 10)
    assert signature_span(["Hi", "Sam", ",", "Thanks", ",", "Dr.", "Lee"]) == (5, 7)
    assert signature_span(["I", "met", "Sam", ".", "Best", ",", "Mark"]) is None  # no greeting: no letter
    assert signature_span(["Hi", "Sam", ",", "see", "you"]) is None  # no closing word


def test_a_nominal_a_speakers_possessive_opens_is_a_third_person_unless_it_addresses():
    texts = ["I", "love", "my", "wife", ".", "\"", "Come", "here", ",", "my", "boy", "!", "\"", "Your", "Majesty",
             "is", "kind", ",", "and", "your", "letter", "came", "."]
    lower = [text.lower() for text in texts]
    assert possessed_nominal(lower, 2, 4)  # "my wife"
    assert not possessed_nominal(lower, 9, 11)  # "my boy" between "," and "!": a vocative, the addressee
    assert not possessed_nominal(lower, 13, 15)  # "Your Majesty" names the addressee
    assert possessed_nominal(lower, 19, 21)  # "your letter"
    assert not possessed_nominal(lower, 3, 4) and not possessed_nominal(lower, 2, 3)  # no possessive; "my" alone
    host = ["I", "'m", "your", "host", ",", "and", "my", "fellow", "citizens", ":", "welcome"]
    assert not possessed_nominal([w.lower() for w in host], 2, 4)  # a predicate nominal: the subject
    assert not possessed_nominal([w.lower() for w in host], 6, 9)  # "and my fellow citizens:": addressed
    assert candidate_persons(texts, [(0, 1), (2, 4), (9, 11), (13, 15), (19, 21)]) == [1, 3, 0, 0, 3]
    with switched_off("possessed_third"):
        assert candidate_persons(texts, [(2, 4), (19, 21)]) == [0, 0]  # the ablation's switch


def test_an_unquoted_you_with_no_label_or_greeting_is_the_readers_with_reader_you():
    texts = ["If", "you", "bake", ",", "you", "need", "flour", ".", "He", "said", "\"", "you", "win", "\"", "."]
    spans = [(1, 2), (4, 5), (8, 9), (11, 12)]
    quoted, quotes = read_quotations([text.lower() for text in texts])
    assert read_turns(texts, quoted, quotes, spans, reader_you=True)[1] == [READER, READER, 3, 2]  # quoted: 2
    assert candidate_persons(texts, spans) == [2, 2, 3, 2]  # without the setting every you is 2
    for words, you in ((["Hi", "Tom", ",", "could", "you", "call", "?"], (4, 5)), (["Lee", ":", "Did", "you", "?"], (3, 4))):
        quoted, quotes = read_quotations([word.lower() for word in words])
        assert read_turns(words, quoted, quotes, [you], reader_you=True)[1] == [2]  # a greeting, a label
