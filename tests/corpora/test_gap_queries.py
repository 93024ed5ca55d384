import pytest
import spacy
from spacy.tokens import DocBin

from spacy_entmem.corpora.gap import read_gap_rows
from spacy_entmem.corpora.gap_queries import (QuerySettings, cluster_gender, is_name, query_rows,
                                              write_corpus_queries)
from spacy_entmem.linguistics.values import FEMININE, MASCULINE

TEXT = ("Mary Smith met Anna at the station .\nThe doctor greeted them .\n"
        "Later she said that Anna was tired , and she left with Tom .\nHe nodded .")


def annotated(text=TEXT):
    doc = spacy.blank("en").make_doc(text)
    words = [t.text for t in doc]
    at = lambda word, n=1: [i for i, w in enumerate(words) if w == word][n - 1]
    for token in doc:
        token.is_sent_start = token.i == 0 or words[token.i - 1] in (".", "\n")
    clusters = [[(0, 2), (at("she"), at("she") + 1)],                      # Mary Smith, she
                [(at("Anna"), at("Anna") + 1), (at("Anna", 2), at("Anna", 2) + 1), (at("she", 2), at("she", 2) + 1)],
                [(at("Tom"), at("Tom") + 1), (at("He"), at("He") + 1)],
                [(at("The"), at("doctor") + 1)]]
    return doc, clusters


def test_a_cluster_has_the_gender_of_its_he_or_she_pronouns_when_they_agree():
    doc, clusters = annotated()
    assert [cluster_gender(doc, c) for c in clusters] == [FEMININE, FEMININE, MASCULINE, None]
    doc = spacy.blank("en").make_doc("she and he")
    assert cluster_gender(doc, [(0, 1), (2, 3)]) is None


def test_names_are_capitalised_words_without_pronouns_or_articles():
    doc = spacy.blank("en").make_doc("Mr. Darcy met The Doctor and She and Jane Eyre 's friend")
    assert [is_name(doc, m) for m in [(0, 2), (3, 5), (7, 8), (8, 10), (8, 12)]] == [True, False, False, True, False]


def test_queries_pair_the_pronoun_with_its_entity_name_and_another_of_its_gender():
    doc, clusters = annotated()
    rows = list(query_rows(doc, clusters, "doc", QuerySettings(keep_neither=1.0)))
    # "she" (Mary Smith) and "she" (Anna) each have two feminine names before them; "He" (Tom) has no other
    # masculine name, so no query
    assert [(r.spans[0][1], r.spans[1][1], r.spans[2][1], r.a_coref, r.b_coref) for r in rows] == [
        ("she", "Mary Smith", "Anna", True, False), ("she", "Mary Smith", "Anna", False, True)]
    for r in rows:
        assert "\n" not in r.text and r.text.startswith("Mary Smith") and r.text.endswith("Tom .")
        assert all(r.text[offset:offset + len(text)] == text for _, text, offset in r.spans)
        assert r.spans[1][2] < r.spans[2][2] < r.spans[0][2]  # A before B before the pronoun


def test_a_pronoun_whose_entity_has_no_name_makes_a_neither_query_when_kept():
    doc = spacy.blank("en").make_doc(
        "Mary met Anna . The nurse said she was late . Anna smiled at her , and she left .")
    i = {word: [t.i for t in doc if t.text == word] for word in ("Mary", "Anna", "she", "her")}
    clusters = [[(0, 1), (i["her"][0], i["her"][0] + 1)],
                [(2, 3), (i["Anna"][1], i["Anna"][1] + 1), (i["she"][1], i["she"][1] + 1)],
                [(4, 6), (i["she"][0], i["she"][0] + 1)]]  # The nurse, she
    answers = lambda settings: [(r.spans[0][2], r.a_coref, r.b_coref) for r in query_rows(doc, clusters, "d", settings)]
    she, her, she_2 = (doc[i["she"][0]].idx, doc[i["her"][0]].idx, doc[i["she"][1]].idx)
    assert answers(QuerySettings(keep_neither=1.0)) == [(she, False, False), (her, True, False), (she_2, False, True)]
    assert answers(QuerySettings(keep_neither=0.0)) == [(her, True, False), (she_2, False, True)]


def test_far_names_make_no_query_and_bad_settings_are_refused():
    doc, clusters = annotated()
    anna_only = [clusters[0][1:], clusters[1], clusters[2], clusters[3]]  # Mary Smith's name is not annotated
    assert list(query_rows(doc, anna_only, "doc")) == []  # one feminine name only: no query
    assert list(query_rows(doc, clusters, "doc", QuerySettings(max_distance=5))) == []
    with pytest.raises(ValueError, match="keep_neither must be in"):
        QuerySettings(keep_neither=1.5)


def test_a_corpus_round_trips_to_a_gap_tsv_and_one_without_clusters_is_refused(tmp_path):
    doc, clusters = annotated()
    for i, cluster in enumerate(clusters, start=1):
        doc.spans[f"coref_clusters_{i}"] = [doc[s:e] for s, e in cluster]
    DocBin(docs=[doc], store_user_data=True).to_disk(tmp_path / "gold.spacy")
    counts = write_corpus_queries(doc.vocab, [tmp_path / "gold.spacy"], tmp_path / "q.tsv")
    assert counts == {"A": 1, "B": 1}
    rows = list(read_gap_rows(tmp_path / "q.tsv"))  # the reader checks every span's text at its offset
    assert [(r.a_coref, r.b_coref) for r in rows] == [(True, False), (False, True)]
    DocBin(docs=[spacy.blank("en")("No clusters here .")]).to_disk(tmp_path / "plain.spacy")
    with pytest.raises(ValueError, match="plain.spacy: none of the 1 documents has 'coref_clusters_N'"):
        write_corpus_queries(doc.vocab, [tmp_path / "plain.spacy"], tmp_path / "none.tsv")


def test_other_gender_queries_pair_the_entity_name_with_a_name_of_the_other_gender():
    doc, clusters = annotated()
    rows = list(query_rows(doc, clusters, "doc", QuerySettings(other_gender=True)))
    # only "He" (Tom) has a name of its own and one of the other gender before it (Anna, the latest feminine one)
    assert [(r.spans[0][1], r.spans[1][1], r.spans[2][1], r.a_coref, r.b_coref) for r in rows] == [
        ("He", "Anna", "Tom", False, True)]
