import pytest
import spacy

from spacy_entmem.corpora.gap import GapRow, read_gap_rows
from spacy_entmem.corpora.gender_swap import (NOT_NAMES, match_case, other_gender_names, swap_row, swap_rows,
                                              swapped_name, write_gap_rows)
from spacy_entmem.models.memory import packaged_name_genders
from spacy_entmem.linguistics.values import FEMININE, MASCULINE

TEXT = "Anna met Mr. Bob Smith. She said her book was hers and thanked him; Anna's sister agreed."
# the tags a tagger would give the pronouns (the other words do not matter to the swap)
TAGS = {"her": "PRP$", "hers": "PRP", "him": "PRP", "She": "PRP"}


def tagged(text: str, tags=TAGS):
    doc = spacy.blank("en").make_doc(text)
    for token in doc:
        token.tag_ = tags.get(token.text, "NN")
    return doc


def row(text=TEXT, spans=(("PRONOUN", "She", 24), ("A", "Anna", 0), ("B", "Bob Smith", 13))):
    return GapRow(id="t-1", text=text, spans=list(spans), a_coref=True, b_coref=False, line=2)


def test_pronouns_titles_kinship_words_and_names_take_the_other_gender():
    genders = packaged_name_genders()
    assert genders["anna"] == FEMININE and genders["bob"] == MASCULINE
    new = swap_row(row(), tagged(TEXT), genders)
    pools = other_gender_names(genders)
    anna, bob = (swapped_name(n, genders[n], pools).capitalize() for n in ("anna", "bob"))
    assert genders[anna.lower()] == MASCULINE and genders[bob.lower()] == FEMININE
    assert new.text == (f"{anna} met Mrs. {bob} Smith. He said his book was his and thanked her; {anna}'s brother "
                        "agreed.")
    # every query span still stands at its offset, with its new text
    assert [(label, text) for label, text, _ in new.spans] == [("PRONOUN", "He"), ("A", anna), ("B", f"{bob} Smith")]
    assert all(new.text[offset:offset + len(text)] == text for _, text, offset in new.spans)
    assert (new.id, new.a_coref, new.b_coref) == ("t-1-swapped", True, False)


def test_object_her_and_predicative_his_take_their_own_forms():
    text = "Tom saw her. The coat is his. She liked his coat."
    new = swap_row(row(text, [("PRONOUN", "She", 30), ("A", "Tom", 0), ("B", "coat", 17)]),
                   tagged(text, {"her": "PRP", "his": "PRP", "She": "PRP"}), packaged_name_genders())
    assert new.text.split(" ", 1)[1] == "saw him. The coat is hers. He liked hers coat."
    new = swap_row(row(text, [("PRONOUN", "She", 30), ("A", "Tom", 0), ("B", "coat", 17)]),
                   tagged(text, {"her": "PRP", "his": "PRP$", "She": "PRP"}), packaged_name_genders())
    assert new.text.endswith("He liked her coat.")


def test_the_same_name_gets_the_same_replacement_and_the_seed_changes_it():
    genders = packaged_name_genders()
    pools = other_gender_names(genders)
    names = {swapped_name("anna", FEMININE, pools, seed) for seed in range(20)}
    assert len(names) > 1 and all(genders[name] == MASCULINE and name not in NOT_NAMES for name in names)
    new = swap_row(row(), tagged(TEXT), genders, seed=3)
    first = new.text.split()[0]
    assert new.text.count(first) == 2  # "Anna" and "Anna's"


def test_titles_in_the_lexicon_are_not_names():
    assert packaged_name_genders().get("president") == MASCULINE
    text = "President Obama met Anna. She smiled."
    new = swap_row(row(text, [("PRONOUN", "She", 26), ("A", "Anna", 20), ("B", "Obama", 10)]), tagged(text),
                   packaged_name_genders())
    assert new.text.startswith("President Obama met ")
    assert all(name not in other_gender_names(packaged_name_genders())[MASCULINE] for name in NOT_NAMES)


def test_case_follows_the_original_word():
    assert (match_case("his", "HER"), match_case("his", "Her"), match_case("his", "her")) == ("HIS", "His", "his")


def test_a_span_off_token_boundaries_is_left_out_and_reported():
    text = "Annabel met Bob. She left."
    bad = row(text, [("PRONOUN", "She", 17), ("A", "Anna", 0), ("B", "Bob", 12)])
    swapped, report = swap_rows([bad, row()], [tagged(text), tagged(TEXT)], packaged_name_genders())
    assert (report.rows, report.swapped, report.left_out) == (2, 1, ["t-1"])
    assert swapped[0].text != TEXT


def test_untagged_text_is_refused():
    doc = spacy.blank("en").make_doc(TEXT)
    with pytest.raises(ValueError, match="t-1.*part-of-speech tags"):
        swap_row(row(), doc, packaged_name_genders())


def test_a_doc_of_another_text_is_refused():
    with pytest.raises(ValueError, match="t-1.*not the row's text"):
        swap_row(row(), tagged("Something else."), packaged_name_genders())


def test_swapped_rows_round_trip_through_a_gap_tsv(tmp_path):
    new = swap_row(row(), tagged(TEXT), packaged_name_genders())
    path = tmp_path / "swapped.tsv"
    write_gap_rows(path, [new])
    (read,) = read_gap_rows(path)  # the reader checks every span's text at its offset
    assert (read.id, read.text, read.spans, read.a_coref, read.b_coref) == (
        new.id, new.text, new.spans, new.a_coref, new.b_coref)


def test_a_text_with_straight_double_quotes_round_trips_through_a_gap_tsv(tmp_path):
    text = '"Come in," said Anna to Bob Smith. She smiled.'
    quoted = row(text, [(label, word, text.index(word)) for label, word in
                        (("PRONOUN", "She"), ("A", "Anna"), ("B", "Bob Smith"))])
    path = tmp_path / "quoted.tsv"
    write_gap_rows(path, [quoted])
    (read,) = read_gap_rows(path)
    assert (read.text, read.spans) == (text, quoted.spans)


def test_a_coreference_doc_is_swapped_token_by_token_keeping_its_clusters():
    import spacy
    from spacy.tokens import Doc, Span

    from spacy_entmem.corpora.gender_swap import swap_doc
    from spacy_entmem.linguistics.values import FEMININE, MASCULINE

    vocab = spacy.blank("en").vocab
    words = ["John", "met", "his", "sister", "and", "thanked", "her", "."]
    doc = Doc(vocab, words=words)
    doc.spans["coref_clusters_1"] = [Span(doc, 0, 1, label="person"), Span(doc, 2, 3, label="person")]
    doc.spans["coref_clusters_2"] = [Span(doc, 2, 4), Span(doc, 6, 7)]
    tagged = Doc(vocab, words=words, tags=["NNP", "VBD", "PRP$", "NN", "CC", "VBD", "PRP", "."])
    swapped = swap_doc(doc, tagged, {"john": MASCULINE, "mary": FEMININE})
    assert [t.text for t in swapped] == ["Mary", "met", "her", "brother", "and", "thanked", "him", "."]
    assert [s.text for s in swapped.spans["coref_clusters_2"]] == ["her brother", "him"]
    assert [s.label_ for s in swapped.spans["coref_clusters_1"]] == ["person", "person"]
    with pytest.raises(ValueError, match="has 1 tokens, the doc 8"):
        swap_doc(doc, Doc(vocab, words=["x"]), {})
