import pytest

from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.linguistics.speakers import (
    NO_SPEAKER, candidate_speakers, quotation_addressees, quotation_speakers, quotations, read_quotations,
)


def _words(text: str):
    return text.lower().split()


def test_quotations_pair_curly_and_straight_marks_and_a_line_break_ends_an_open_one():
    assert quotations(_words('“ Stay , ” said Harry . " Go ! " he said')) == [(0, 3), (7, 10)]
    assert quotations(["“", "stay", "\n", "he", "left"]) == [(0, 1)]
    assert quotations(_words("“ Stay , he said")) == [(0, 4)]  # never closed: runs to the end
    assert quotations(_words("no quotation here")) == []


def test_read_quotations_flags_the_tokens_inside_and_a_stray_closing_mark():
    flags, quotes = read_quotations(["goin", "’", "“", "stay", "\n", "he", '"', "go", '"', "x"])
    assert flags == [False, True, True, True, False, False, True, True, True, False]
    assert quotes == [(2, 3), (6, 8)]  # the stray "’" is flagged but opens no quotation
    flags, quotes = read_quotations(_words("“ a “ b ” c"))
    assert flags == [True, True, True, True, True, False] and quotes == [(2, 4)]  # a new opening mark restarts


def test_a_quotation_inside_another_or_an_apostrophe_does_not_end_it():
    """Marks pair by kind: "“He said ‘go,’ and I went”" is one quotation, "I" in it; "the Wilsons’ house" inside a
    double-quoted speech ends nothing; a straight quotation holds a curly one too."""
    words = _words("“ he said ‘ go , ’ and i went , ” said holmes . i left")
    flags, quotes = read_quotations(words)
    assert quotes == [(0, 11)]
    assert flags[8] and not flags[15]  # the speech's "i" quoted; the narration's not
    flags, quotes = read_quotations(_words("“ the wilsons ’ house , ” i said"))
    assert quotes == [(0, 6)] and flags[:7] == [True] * 7 and not flags[7]
    assert read_quotations(_words('" she cried ‘ stop ! ’ twice " then'))[1] == [(0, 8)]
    assert read_quotations(_words("‘ go , ’ he said"))[1] == [(0, 3)]  # single marks still pair with each other


def test_a_wrapped_line_inside_a_paragraph_does_not_end_a_quotation_but_a_blank_line_does():
    """A book's paragraphs are blank-line separated and their lines wrapped: the quotation goes on over a single
    line break, and "said he" after its closing mark is not quoted; a blank line ends an unclosed quotation."""
    words = ['"', "i", "could", "not", "\n", "remain", ",", '"', "said", "he", ".", "\n\n", '"', "go", "\n\n", "x"]
    flags, quotes = read_quotations(words)
    assert flags == [True] * 8 + [False, False, False, False, True, True, False, False]
    assert quotes == [(0, 7), (12, 13)]
    # with no blank line anywhere each line is a paragraph (a transcript): a line break ends the quotation
    flags, quotes = read_quotations(['"', "hi", "\n", "bob", ":", "ok"])
    assert flags == [True, True, False, False, False, False] and quotes == [(0, 1)]


def test_an_unattributed_turn_of_a_two_person_exchange_is_spoken_by_the_speaker_two_turns_back():
    """"“…?” asked the boy. / “…,” returned the lady. / “I am Laurie.” / “What a name.”": the third turn is the boy's,
    the fourth the lady's (an inferred speaker counts on); a narration paragraph between turns, or one speaker for
    both turns before, infers nothing."""
    words = ['"', "cat", "?", '"', "asked", "the", "boy", ".", "\n\n", '"', "nicely", ",", '"', "returned", "the",
             "lady", ".", "\n\n", '"', "i", "am", "laurie", ".", '"', "\n\n", '"', "what", "a", "name", '"']
    #        the boy (5, 7), the lady (14, 16), i (19, 20)
    candidates = [(5, 7), (14, 16), (19, 20)]
    assert quotation_speakers(words, candidates) == [(5, 7), (14, 16), (5, 7), (14, 16)]
    with switched_off("alternating_turns"):
        assert quotation_speakers(words, candidates) == [(5, 7), (14, 16), None, None]
    narrated = words[:18] + ["she", "smiled", ".", "\n\n"] + words[18:]
    assert quotation_speakers(narrated, [(5, 7), (14, 16)]) == [(5, 7), (14, 16), None, None]
    same = words[:14] + ["the", "boy"] + words[16:]
    assert quotation_speakers(same, [(5, 7), (14, 16)]) == [(5, 7), (14, 16), None, None]
    wrapped = words[:8] + ["\n"] + words[9:]  # a wrapped line in a text of blank-line paragraphs: one paragraph
    assert quotation_speakers(wrapped, candidates) == [(5, 7), (14, 16), None, None]


def test_a_speech_verb_after_the_quotation_attributes_it_to_the_mention_after_or_before_the_verb():
    words = _words('“ I can not stay , ” said Harry Potter .')
    #               0 1  2   3   4    5 6  7    8     9
    assert quotation_speakers(words, [(1, 2), (8, 9), (8, 10)]) == [(8, 10)]  # the longest candidate there
    words = _words('“ I can not stay , ” the boy said .')
    assert quotation_speakers(words, [(1, 2), (7, 9)]) == [(7, 9)]
    words = _words('“ I can not stay , ” the boy told him .')  # a verb of telling: its subject speaks
    assert quotation_speakers(words, [(1, 2), (7, 9), (10, 11)]) == [(7, 9)]
    words = _words('“ I can not stay , ” told him .')  # ... its object is the addressee: no attribution
    assert quotation_speakers(words, [(1, 2), (8, 9)]) == [None]
    with switched_off("telling"):  # the ablation's switch
        assert quotation_speakers(_words('“ I can not stay , ” the boy told him .'), [(1, 2), (7, 9)]) == [None]


def test_an_attribution_that_ends_its_sentence_does_not_continue_into_the_next_quotation():
    words = _words('“ Who ? ” said I. “ I am his uncle . ”')  # "I." is one token, as spaCy and LitBank have it
    #               0 1   2 3 4    5  6 7 8  9   10    11 12
    assert quotation_speakers(words, [(5, 6), (7, 8), (9, 11)]) == [(5, 6), None]  # the uncle's turn, not mine
    words = _words('“ Who ? ” said Jim , “ is it ? ”')
    assert quotation_speakers(words, [(5, 6)]) == [(5, 6), (5, 6)]  # a comma: the same turn goes on


def test_a_candidate_across_a_quotation_mark_is_no_speaker():
    words = _words('“ Who ? ” said I . “ Father Flynn . ”')
    #               0 1   2 3 4    5 6 7 8      9     10 11
    assert quotation_speakers(words, [(5, 6), (5, 10), (8, 10)]) == [(5, 6), None]  # not "I . “ Father Flynn"


def test_a_speech_verb_before_the_quotation_attributes_it_to_the_mention_ending_at_the_verb():
    words = _words('Ron said , “ I am tired . ”')
    assert quotation_speakers(words, [(0, 1), (4, 5)]) == [(0, 1)]
    words = _words('Ron turned to Harry , “ I am tired . ”')  # no speech verb
    assert quotation_speakers(words, [(0, 1), (3, 4), (6, 7)]) == [None]


def test_a_quotation_right_after_an_attribution_continues_its_speaker():
    words = _words('“ Stay , ” said Harry , “ I am tired . ” “ So am I . ” Ron left .')
    #               0 1    2 3 4    5     6 7 8 9  10    11 12 13 14 15 16 17 18 19  20
    candidates = [(5, 6), (8, 9), (16, 17), (19, 20)]
    assert quotation_speakers(words, candidates) == [(5, 6), (5, 6), None]


def test_candidate_speakers_answers_only_the_candidates_asked_about():
    words = _words('“ I can not stay , ” said Harry .')
    candidates = [(1, 2), (8, 9)]
    assert candidate_speakers(words, candidates, [True, False]) == [(8, 9), NO_SPEAKER]
    assert candidate_speakers(words, candidates, [False, False]) == [NO_SPEAKER, NO_SPEAKER]
    unquoted = _words("I said Harry")
    assert candidate_speakers(unquoted, [(0, 1), (2, 3)], [True, False]) == [NO_SPEAKER, NO_SPEAKER]


def test_a_quotation_is_addressed_to_the_object_of_telling_or_to_the_last_other_speaker():
    words = _words('“ I am tired , ” robert told sarah . “ you should rest , ” sarah replied .')
    #               0 1 2  3     4 5 6      7    8     9 10 11  12     13  14 15 16   17      18
    candidates = [(1, 2), (6, 7), (8, 9), (11, 12), (16, 17)]
    quotes = quotations(words)
    speakers_found = quotation_speakers(words, candidates, quotes)
    assert speakers_found == [(6, 7), (16, 17)]
    assert quotation_addressees(words, candidates, quotes, speakers_found) == [(8, 9), (6, 7)]
    # per candidate: the I is Robert's, the you is addressed to Robert
    assert candidate_speakers(words, candidates, [True, False, False, False, False], quotes,
                              [False, False, False, True, False])[:4] == [(6, 7), NO_SPEAKER, NO_SPEAKER, (6, 7)]
    # one speaker twice is no exchange; a quotation far from the last one answers nothing
    same = _words('“ go , ” said tom . “ you too , ” said tom .')
    assert quotation_addressees(same, [(5, 6), (13, 14)], quotations(same),
                                [(5, 6), (13, 14)]) == [None, None]
    far = ['“', 'go', '”', 'said', 'tom', '.'] + ['x'] * 50 + ['“', 'you', '”', 'said', 'ann']
    assert quotation_addressees(far, [(4, 5), (60, 61)], quotations(far), [(4, 5), (60, 61)]) == [None, None]
    with switched_off("addressees"):  # the ablation's switch
        assert quotation_addressees(words, candidates, quotes, speakers_found) == [None, None]


def _vocatives_of(text: str, candidates):
    from spacy_entmem.linguistics.speakers import vocatives

    words = _words(text)
    quoted, _ = read_quotations(words)
    return vocatives(words, quoted, candidates, [words[s] in {"i", "you", "he"} for s, _ in candidates])


def test_a_vocative_is_set_off_in_a_quotation_after_its_opening_or_before_its_end():
    # after the opening mark, before a comma, and the quotation goes on
    assert _vocatives_of("“ jim , get me a basin ” , says he", [(1, 2), (9, 10)]) == [True, False]
    # a quotation of the name alone: a call, unless it answers a question (“Who are you?” I asked. “Ben Gunn,” …)
    assert _vocatives_of("“ my dear watson , ” said he", [(1, 4)]) == [True]
    assert _vocatives_of("“ who are you ? ” i asked . “ ben gunn , ” he answered", [(10, 12)]) == [False]
    assert _vocatives_of("“ i am here . ” i said . “ ben , ” he answered", [(10, 11)]) == [True]
    # after a comma, right before the clause's end or the comma that closes the quotation
    assert _vocatives_of("“ yes , jo . ”", [(3, 4)]) == [True]
    assert _vocatives_of("“ here it is , sir , ” said i", [(5, 6), (2, 3)]) == [True, False]
    assert _vocatives_of("“ oh marmee ! ”", [(2, 3)]) == [True]


def test_no_vocative_in_a_list_after_a_determiner_outside_quotation_marks_or_with_the_switch_off():
    assert _vocatives_of("“ i saw jo , meg , and amy . ”", [(3, 4), (5, 6), (9, 10)]) == [False, False, False]
    assert _vocatives_of("“ the captain , he said . ”", [(1, 3)]) == [False]  # spoken of, not to
    assert _vocatives_of("jim , come here", [(0, 1)]) == [False]  # not quoted
    assert _vocatives_of("“ you , there ! ”", [(1, 2)]) == [False]  # a pronoun: its own rules
    with switched_off("vocatives"):
        assert _vocatives_of("“ jim , ” says he", [(1, 2)]) == [False]


def test_a_vocative_takes_its_quotation_s_addressee_as_its_speaker_column():
    """The addressee is the last other speaker (‘“…,” asked the doctor’ then ‘“Here, sir,” said I’: sir → the
    doctor); candidate_speakers gives it to the vocative as it does to a quoted you."""
    words = _words("“ where ? ” asked the doctor . “ here , sir , ” said i .")
    candidates = [(5, 7), (11, 12), (15, 16)]
    from spacy_entmem.linguistics.speakers import vocatives

    quoted, quotes = read_quotations(words)
    called = vocatives(words, quoted, candidates, [False, False, True])
    assert called == [False, True, False]
    assert candidate_speakers(words, candidates, [False] * 3, quotes, called) == [NO_SPEAKER, (5, 7), NO_SPEAKER]
