"""Symbolic attributes of candidate mentions: one row per candidate, columns as the memory reads them."""
import spacy

from spacy_entmem.linguistics.switches import switched_off
from spacy_entmem.linguistics.values import FEMININE, MASCULINE, NEUTER, PRONOUN_CLASS, SINGULAR, UNKNOWN
from spacy_entmem.linguistics.lexicon import StringIds, speaker_gender
from spacy_entmem.linguistics.mentions import mention_attributes
from spacy_entmem.linguistics.cell_rules import N_PRONOUN_CLASSES
from spacy_entmem.linguistics.columns import ATTRIBUTE_FIELDS, GENDER, HEAD, NORM, NUMBER, OF_WORDS, PRONOUN, PROPER, QUOTED


def test_every_pronoun_class_fits_the_memory_embedding():
    assert max(PRONOUN_CLASS.values()) < N_PRONOUN_CLASSES and min(PRONOUN_CLASS.values()) >= 1


def test_rows_hold_strings_heads_pronouns_gender_quotation_and_proper_names():
    doc = spacy.blank("en")('Mr. Darcy met the sister of Jane . " She smiled , " said the sister of Jane .')
    #            Mr. Darcy  the sister of Jane  She     the sister of Jane
    spans = [(0, 2), (3, 7), (9, 10), (14, 18)]
    ids = StringIds()
    rows = mention_attributes(doc, spans, ids)
    assert rows.shape == (4, len(ATTRIBUTE_FIELDS)) and rows.dtype == "int64"
    darcy, sister, she, sister_again = rows
    assert darcy[GENDER] == MASCULINE and darcy[PROPER] == 1 and darcy[PRONOUN] == 0
    assert sister[NORM] == sister_again[NORM] and sister[HEAD] == ids("sister")  # "the" dropped; head before "of"
    assert sister[GENDER] == FEMININE and sister[QUOTED] == 0
    assert she[PRONOUN] == PRONOUN_CLASS["she"] and she[NORM] == she[HEAD] == -1
    assert she[GENDER] == FEMININE and she[NUMBER] == SINGULAR and she[QUOTED] == 1
    assert mention_attributes(doc, [], ids).shape == (0, len(ATTRIBUTE_FIELDS))
    assert mention_attributes(doc, [(11, 12)], ids)[0][GENDER] == UNKNOWN


def test_names_take_their_gender_from_the_lexicon_unless_a_cue_says_otherwise():
    from spacy_entmem.linguistics.values import NEUTER

    doc = spacy.blank("en")("Marie Curie met Mr. Marie and Pierre in London ; the paris of marie .")
    lexicon = {"marie": FEMININE, "pierre": MASCULINE, "london": NEUTER, "paris": NEUTER}
    #         Marie Curie  Mr. Marie  Pierre   London    the paris  marie
    spans = [(0, 2), (3, 5), (6, 7), (8, 9), (10, 12), (13, 14)]
    genders = mention_attributes(doc, spans, StringIds(), lexicon)[:, GENDER].tolist()
    # the honorific wins over the lexicon; lowercase words are not names
    assert genders == [FEMININE, MASCULINE, MASCULINE, NEUTER, UNKNOWN, UNKNOWN]
    assert mention_attributes(doc, spans, StringIds())[:, GENDER].tolist() == [UNKNOWN, MASCULINE] + [UNKNOWN] * 4


def test_a_word_the_doc_used_as_a_family_name_gets_no_gender_from_the_lexicon():
    from spacy_entmem.linguistics.lexicon import family_names

    doc = spacy.blank("en")("Ray sang . Mary Elise Ray ( born 1982 ) is a gymnast . Ray trained . Mrs. Martin came "
                            "and Martin left . When Hugh went , Hugh wept .")
    lexicon = {"ray": MASCULINE, "martin": MASCULINE, "mary": FEMININE, "hugh": MASCULINE}
    #        Ray    Mary Elise Ray  Ray       Mrs. Martin  Martin    Hugh      Hugh
    spans = [(0, 1), (3, 6), (14, 15), (17, 19), (21, 22), (25, 26), (28, 29)]
    genders = mention_attributes(doc, spans, StringIds(), lexicon)[:, GENDER].tolist()
    # before "Mary Elise Ray" "Ray" is the lexicon's given name; after it, a family name that women share with
    # men (a daughter of "Greg Cusack" is "Cusack" too), so no gender; "When" opens no name
    assert genders == [MASCULINE, FEMININE, UNKNOWN, FEMININE, UNKNOWN, MASCULINE, MASCULINE]
    titles = [token.is_title for token in doc]
    capitalised = [title and i not in (0, 3, 14, 24) for i, title in enumerate(titles)]
    assert family_names([t.lower_ for t in doc], titles, capitalised, set(lexicon)) == {"ray": 6, "martin": 19}


def test_a_name_right_after_a_nominal_candidate_is_in_apposition_with_it():
    from spacy_entmem.linguistics.columns import APPOSED
    from spacy_entmem.linguistics.lexicon import NO_NOMINAL, apposed_nominals

    doc = spacy.blank("en")("Elizabeth saw her sister Jane . On the day Tom came , the boy Tom 's hat fell and "
                            "writers Mark Twain read .")
    lower = [token.lower_ for token in doc]
    capitalised = [token.is_title and i not in (0, 6) for i, token in enumerate(doc)]
    #      her sister  Jane     her sister Jane  the day  Tom      the boy    Tom        Mark Twain  Elizabeth
    spans = [(2, 4), (4, 5), (2, 5), (7, 9), (9, 10), (12, 14), (14, 15), (20, 22), (0, 1)]
    nominals = apposed_nominals(lower, capitalised, [0] * len(doc), spans, inanimate_nouns={"day"})
    # "the day" is a thing, "the boy Tom 's hat" a possessive, "writers" opens with no article or possessive
    assert nominals == [NO_NOMINAL, (2, 4)] + [NO_NOMINAL] * 7
    # with tags, a plural head is no apposition ("the writers Mark Twain and ..."); the rows carry the span
    tags = [0] * len(doc)
    tags[3] = doc.vocab.strings.add("NNS")
    assert apposed_nominals(lower, capitalised, tags, spans)[1] == NO_NOMINAL
    rows = mention_attributes(doc, spans, StringIds())
    assert rows[1, APPOSED].tolist() == [2, 4] and rows[0, APPOSED].tolist() == [-1, -1]


def test_a_gender_word_inside_a_name_is_a_family_name_or_an_initial_not_a_cue():
    from spacy_entmem.linguistics.lexicon import cue_gender

    doc = spacy.blank("en")("Susan King met Susan M. Leeson , Queen Victoria , M. Poirot and the king .")
    lexicon = {"susan": FEMININE, "victoria": FEMININE}
    #         Susan King  Susan M. Leeson  Queen Victoria  M. Poirot  the king
    spans = [(0, 2), (3, 6), (7, 9), (10, 12), (13, 15)]
    genders = mention_attributes(doc, spans, StringIds(), lexicon)[:, GENDER].tolist()
    assert genders == [FEMININE, FEMININE, FEMININE, MASCULINE, MASCULINE]
    assert cue_gender(["susan", "king"]) == MASCULINE  # without case, every cue counts
    assert cue_gender(["my", "lord"], [True, True], {"my"}) == MASCULINE  # a pronoun is no given name
    assert cue_gender(["invisible", "man"], [True, True], {"susan"}) == MASCULINE  # no given name before it
    # foreign honorifics are cues, not just words skipped before a given name ("Rosa" alone is feminine)
    assert cue_gender(["don", "rosa"]) == MASCULINE and cue_gender(["frau", "müller"]) == FEMININE
    assert cue_gender(["herr", "schmidt"]) == MASCULINE and cue_gender(["doña", "ana"]) == FEMININE


def test_given_name_skips_articles_and_titles_and_refuses_pronouns_and_lowercase():
    from spacy_entmem.linguistics.lexicon import given_name

    assert given_name(["the", "young", "dr.", "watson"], [False, False, True, True]) == "watson"
    assert given_name(["she"], [True]) == "" and given_name(["the", "house"], [False, False]) == ""
    assert given_name(["o'brien"], [True]) == "o'brien" and given_name(["1984"], [False]) == ""


def test_a_possessor_is_no_gender_cue_and_inanimate_heads_need_the_list_and_no_gender():
    from spacy_entmem.linguistics.columns import INANIMATE
    from spacy_entmem.linguistics.lexicon import cue_gender, head_word

    assert cue_gender(["king", "'s", "college"]) == UNKNOWN and cue_gender(["the", "king", "'s", "daughter"]) == FEMININE
    assert head_word(["the", "house", "of", "the", "lord"]) == "house"
    doc = spacy.blank("en")("Alan met Mr. Park at Bletchley Park ; it was the park of the king .")
    #         Alan    Mr. Park  Bletchley Park   it       the park of the king
    spans = [(0, 1), (2, 4), (5, 7), (8, 9), (11, 16)]
    rows = mention_attributes(doc, spans, StringIds(), {"alan": MASCULINE}, frozenset({"park", "alan"}))
    assert rows[:, INANIMATE].tolist() == [0, 0, 1, 0, 1]  # gendered names and pronouns never are
    assert mention_attributes(doc, spans, StringIds())[:, INANIMATE].tolist() == [0] * 5  # no list: nothing is


def test_a_head_tagged_as_a_name_is_no_person_noun_though_its_lower_case_form_is_listed():
    from spacy.tokens import Doc

    from spacy_entmem.linguistics.columns import INANIMATE
    from spacy_entmem.linguistics.values import PERSON_NOUN

    # the learnt list is read without case: "mason" names people, "Mason" (NNP) is a name
    doc = Doc(spacy.blank("en").vocab, words=["Mason", "met", "the", "mason", "and", "a", "mason", "."],
              tags=["NNP", "VBD", "DT", "NN", "CC", "DT", "NN", "."])
    spans = [(0, 1), (2, 4), (5, 7)]
    rows = mention_attributes(doc, spans, StringIds(), {}, frozenset(), person_nouns=frozenset({"mason"}))
    assert rows[:, INANIMATE].tolist() == [0, PERSON_NOUN, PERSON_NOUN]
    untagged = spacy.blank("en")("Mason met the mason .")  # no tags: only the list decides
    rows = mention_attributes(untagged, [(0, 1), (2, 4)], StringIds(), {}, frozenset(), person_nouns={"mason"})
    assert rows[:, INANIMATE].tolist() == [PERSON_NOUN, PERSON_NOUN]


def test_an_unquoted_i_speaks_in_the_voice_of_its_speaker_label(monkeypatch):
    from spacy_entmem.linguistics.columns import NAME_WORDS, VOICE

    doc = spacy.blank("en")("Nurse: Did I call ?\nPatient: My daughter visited me .")
    words = [t.text for t in doc]
    spans = [(words.index("I"), words.index("I") + 1), (words.index("My"), words.index("My") + 1),
             (words.index("me"), words.index("me") + 1)]
    ids = StringIds()
    rows = mention_attributes(doc, spans, ids)
    nurse, patient = ids("Nurse") + 1, ids("Patient") + 1
    assert rows[:, VOICE].tolist() == [nurse, patient, patient]
    assert rows[1, NAME_WORDS].tolist()[0] == ids("patient")
    with switched_off("labelled_voices"):  # the ablation's switch: one narrator's voice
        assert mention_attributes(doc, spans, StringIds())[:, VOICE].tolist() == [0, 0, 0]
    plain = spacy.blank("en")("I said that my daughter came .")
    assert mention_attributes(plain, [(0, 1), (3, 4)], StringIds())[:, VOICE].tolist() == [0, 0]


def test_a_plural_noun_names_people_when_its_singular_is_listed(monkeypatch):
    from spacy.tokens import Doc

    from spacy_entmem.linguistics.columns import INANIMATE
    from spacy_entmem.linguistics.values import PERSON_NOUN
    from spacy_entmem.linguistics.lexicon import names_people, singular_forms

    assert singular_forms("engineers") == ["engineer"]
    assert singular_forms("witnesses") == ["witness", "witnesse"]
    assert singular_forms("secretaries") == ["secretary", "secretari", "secretarie"]
    assert singular_forms("policemen") == ["policeman"] and singular_forms("children") == ["child"]
    assert singular_forms("glass") == [] and singular_forms("man") == []
    people = {"engineer", "witness", "secretary", "policeman", "child"}
    plurals = ("engineers", "witnesses", "secretaries", "policemen", "children")
    assert all(names_people(word, True, people) for word in plurals)
    assert not names_people("engineers", False, people)  # not tagged plural: the list alone decides
    doc = Doc(spacy.blank("en").vocab, words=["The", "engineers", "met", "the", "bosses", "."],
              tags=["DT", "NNS", "VBD", "DT", "NNS", "."])
    rows = mention_attributes(doc, [(0, 2), (3, 5)], StringIds(), {}, frozenset(), person_nouns=frozenset(people))
    assert rows[:, INANIMATE].tolist() == [PERSON_NOUN, 0]
    with switched_off("person_noun_plurals"):  # the ablation's switch
        rows = mention_attributes(doc, [(0, 2), (3, 5)], StringIds(), {}, frozenset(), person_nouns=frozenset(people))
    assert rows[:, INANIMATE].tolist() == [0, 0]


def test_a_nominal_takes_its_number_from_its_head_words_tag_and_pronouns_and_untagged_docs_have_none():
    from spacy.tokens import Doc

    from spacy_entmem.linguistics.columns import NOUN_NUMBER
    from spacy_entmem.linguistics.values import PLURAL

    words = ["the", "papers", "of", "Marie", "on", "magnetism", "and", "they", "quickly"]
    tags = ["DT", "NNS", "IN", "NNP", "IN", "NN", "CC", "PRP", "RB"]
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags)
    #          the papers of Marie  Marie   magnetism  they    quickly
    spans = [(0, 4), (3, 4), (5, 6), (7, 8), (8, 9)]
    numbers = mention_attributes(doc, spans, StringIds())[:, NOUN_NUMBER].tolist()
    # the head of "the papers of Marie" is "papers" (before "of"); a pronoun's number is in its own column
    assert numbers == [PLURAL, SINGULAR, SINGULAR, UNKNOWN, UNKNOWN]
    untagged = Doc(spacy.blank("en").vocab, words=words)
    assert mention_attributes(untagged, spans, StringIds())[:, NOUN_NUMBER].tolist() == [UNKNOWN] * 5


def test_titled_names_and_name_words():
    from spacy_entmem.linguistics.columns import NAME_WORDS, TITLED

    doc = spacy.blank("en")("Elizabeth Bennet saw the young Mr. Darcy , Miss Bingley 's brother and Mr. and Mrs. Hurst ; "
                            "Miss Elizabeth laughed at her .")
    #        Elizabeth Bennet  the young Mr. Darcy  Miss Bingley 's brother  Mr. and Mrs. Hurst  Miss Elizabeth  her
    spans = [(0, 2), (3, 7), (8, 12), (13, 17), (18, 20), (22, 23)]
    ids = StringIds()
    rows = mention_attributes(doc, spans, ids)
    assert rows[:, TITLED].tolist() == [0, 1, 0, 0, 1, 0]
    words = [[word for word in row if word >= 0] for row in rows[:, NAME_WORDS].tolist()]
    by_id = {ids(token.lower_): token.lower_ for token in doc}
    # the sentence-initial given name counts; titles, articles, adjectives and pronouns never do
    assert [[by_id[i] for i in row] for row in words] == [
        ["elizabeth", "bennet"], ["darcy"], ["bingley"], ["hurst"], ["elizabeth"], []]
    assert rows[0, NAME_WORDS.start] == rows[4, NAME_WORDS.start]  # the same word, the same id


def test_an_object_pronoun_carries_the_end_of_the_subject_it_cannot_refer_to():
    from spacy.tokens import Doc

    from spacy_entmem.linguistics.columns import BOUND_END

    words = ["Mary", "saw", "her", "and", "Anna", "'s", "cat", "hid", "her"]
    tags = ["NNP", "VBD", "PRP", "CC", "NNP", "POS", "NN", "VBD", "PRP"]
    doc = Doc(spacy.blank("en").vocab, words=words, tags=tags)
    #         Mary     her      Anna 's cat   her
    spans = [(0, 1), (2, 3), (4, 7), (8, 9)]
    assert mention_attributes(doc, spans, StringIds())[:, BOUND_END].tolist() == [-1, 1, -1, 7]


def test_a_quoted_first_person_pronoun_carries_its_quotations_speaker_span():
    from spacy_entmem.linguistics.columns import SPEAKER

    doc = spacy.blank("en")('" I am late , " said Harry . " I know , " he said . I left .')
    #                        0 1 2  3    4 5 6    7     8 9 10 11  12 13 14  15 16 17 18
    spans = [(1, 2), (7, 8), (10, 11), (14, 15), (17, 18)]
    rows = mention_attributes(doc, spans, StringIds())
    assert rows[:, SPEAKER].tolist() == [[7, 8], [-1, -1], [14, 15], [-1, -1], [-1, -1]]  # the unquoted I: none


def test_a_vocative_said_to_the_narrator_carries_that_i_and_a_name_spoken_of_none():
    from spacy_entmem.linguistics.columns import SPEAKER

    doc = spacy.blank("en")('" Where ? " asked I . " Here , Harry , " said Ron . " Ron went . "')
    #                        0 1     2 3 4     5 6 7 8    9 10    11 12 13  14 15 16  17  18 19
    spans = [(5, 6), (10, 11), (14, 15), (17, 18)]
    rows = mention_attributes(doc, spans, StringIds())
    assert rows[:, SPEAKER].tolist() == [[-1, -1], [5, 6], [-1, -1], [-1, -1]]  # said to the narrator's I
    with switched_off("vocatives"):
        assert mention_attributes(doc, spans, StringIds())[1, SPEAKER].tolist() == [-1, -1]
    other = spacy.blank("en")('" Where ? " asked Tom . " Here , Harry , " said Ron .')
    assert mention_attributes(other, spans[:3], StringIds())[1, SPEAKER].tolist() == [-1, -1]  # said to Tom: none


def test_a_quoted_i_or_you_takes_its_speakers_or_addressees_gender():
    doc = spacy.blank("en")('" I know , " he answered . " You are late , " Robert told Mrs. Hale .')
    #                        0 1 2    3 4 5  6        7 8 9   10  11   12 13 14     15   16   17   18
    i, you, speaker, addressee = (1, 2), (9, 10), (5, 6), (16, 18)
    rows = mention_attributes(doc, [i, speaker, you, (14, 15), addressee], StringIds())
    assert rows[0][GENDER] == MASCULINE  # '"I know," he answered'
    assert rows[2][GENDER] == FEMININE  # '"You are late," Robert told Mrs. Hale': addressed to Mrs. Hale
    with switched_off("speaker_genders"):  # the ablation's switch
        off = mention_attributes(doc, [i, speaker, you, (14, 15), addressee], StringIds())
    assert off[0][GENDER] == UNKNOWN and off[2][GENDER] == UNKNOWN
    assert speaker_gender(["she"], [False], None) == FEMININE
    assert speaker_gender(["the", "boy"], [False, False], None) == MASCULINE  # a kinship / age cue
    assert speaker_gender(["it"], [False], None) == UNKNOWN
    assert speaker_gender(["mary"], [True], {"mary": FEMININE}) == FEMININE


def test_a_names_of_complement_words_are_read_and_a_common_nouns_are_not():
    doc = spacy.blank("en")("the Witch of the North met the Guardian of all the Emerald Gates in the house of the Lord .")
    ids = StringIds()
    north, guardian, house = mention_attributes(doc, [(0, 5), (6, 13), (15, 20)], ids)
    assert north[OF_WORDS].tolist() == [ids("north"), -1] and north[HEAD] == ids("witch")
    assert guardian[OF_WORDS].tolist() == [ids("emerald"), ids("gate")]  # ("all", "the": no name words; "Gate(s)")
    assert house[OF_WORDS].tolist() == [-1, -1]  # "house" is no name
    she = mention_attributes(spacy.blank("en")("She left ."), [(0, 1)], ids)[0]
    assert she[OF_WORDS].tolist() == [-1, -1]


def test_a_title_of_office_is_no_given_name_and_gives_no_gender():
    from spacy_entmem.linguistics.lexicon import given_name

    assert given_name(["mayor", "elena", "ortiz"], [True, True, True]) == "elena"
    assert given_name(["the", "judge"], [False, True]) == ""
    doc = spacy.blank("en")("Mayor Elena Ortiz spoke . Detective Sarah Lund left .")
    lexicon = {"mayor": NEUTER, "sarah": FEMININE}
    ortiz, lund = mention_attributes(doc, [(0, 3), (5, 8)], StringIds(), lexicon)
    assert (ortiz[GENDER], lund[GENDER]) == (UNKNOWN, FEMININE)  # "mayor" was read as a neuter given name
    with switched_off("office_titles"):
        ortiz, lund = mention_attributes(doc, [(0, 3), (5, 8)], StringIds(), lexicon)
        assert (ortiz[GENDER], lund[GENDER]) == (NEUTER, UNKNOWN)
