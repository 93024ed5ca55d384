import pytest
import spacy

from spacy_entmem.corpora.lm_text import build_lm_corpus, chunk_sentences, gum_texts, litbank_texts

from ..conftest import DATA


def test_chunks_keep_whole_sentences_and_cut_only_overlong_ones():
    sentences = [["a"] * 3, ["b"] * 2, ["c"] * 4, ["d"] * 9, ["e"]]
    chunks = list(chunk_sentences(sentences, max_tokens=5))
    assert chunks == [["a"] * 3 + ["b"] * 2, ["c"] * 4, ["d"] * 5, ["d"] * 4 + ["e"]]
    assert sum(len(c) for c in chunks) == 19


def test_only_training_splits_are_read():
    litbank = list(litbank_texts(DATA / "litbank"))
    train_ids = (DATA / "litbank" / "splits" / "lrec2020_tenfold" / "0" / "train.ids").read_text().split()
    assert len(litbank) == len(train_ids)  # fold 0 train (80 in the whole corpus)
    gum = list(gum_texts(DATA / "gum"))
    manifest = (DATA / "gum" / "doc_manifest.tsv").read_text().splitlines()[1:]
    assert len(gum) == sum(line.split("\t")[1] == "train" for line in manifest)  # 177 staged train docs
    assert all(sentences and all(sentence for sentence in sentences) for sentences in gum)


@pytest.mark.corpus
def test_corpus_counts_and_chunk_lengths():
    docs, counts = build_lm_corpus(spacy.blank("en"), DATA / "litbank", DATA / "gum",
                                   DATA / "gap" / "gap-development.tsv", max_tokens=128)
    assert counts.docs == {"litbank": 80, "gum": 177, "gap": 2000}
    assert counts.chunks == len(docs)
    gap_tokens = counts.tokens["gap"]
    assert sum(len(d) for d in docs) == sum(counts.tokens.values())
    assert max(len(d) for d in docs[: len(docs) - 2000]) <= 128
    assert gap_tokens > 100_000


def test_malformed_gum_line_names_the_file_and_line(tmp_path):
    gum = tmp_path / "gum"
    (gum / "coref" / "gum" / "conll").mkdir(parents=True)
    (gum / "doc_manifest.tsv").write_text(
        "doc_id\tsplit\tgenre\ttext_license\tnon_commercial\tn_tokens\tn_sentences\tsentence_lengths\n"
        "GUM_x\ttrain\tnews\tCC\t0\t2\t1\t2\n", encoding="utf8")
    (gum / "coref" / "gum" / "conll" / "GUM_x.conll").write_text(
        "# begin document GUM_x\n0\tHello\t_\n1 world\n# end document\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"GUM_x.conll:3: expected 'index<TAB>token<TAB>coref'"):
        list(gum_texts(gum))
