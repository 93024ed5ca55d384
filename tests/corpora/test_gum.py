import pytest

from spacy_entmem.corpora.brackets import CorefFormatError, Mention, parse_column
from spacy_entmem.corpora.docs import corpus_counts
from spacy_entmem.corpora.gum import gum_cluster, read_gum, read_gum_conll

from ..conftest import DATA

GUM = DATA / "gum"
# data/gum/SOURCE.md, "Measured counts": docs, tokens, sentences, mentions, clusters, singletons
EXPECTED = {
    "gum": {"train": (177, 177410, 10224, 49649, 25757, 18750), "dev": (30, 28119, 1575, 7897, 3940, 2838),
            "test": (30, 28397, 1464, 7927, 4319, 3225)},
    "ontogum": {"train": (177, 177410, 10224, 23320, 5311, 7), "dev": (30, 28119, 1575, 3818, 857, 2),
                "test": (30, 28397, 1464, 3581, 858, 1)},
}


@pytest.mark.corpus
@pytest.mark.parametrize("scheme", ["gum", "ontogum"])
def test_counts_equal_source_md(scheme):
    repairs = []
    splits = read_gum(GUM, scheme, repairs=repairs)
    for split, expected in EXPECTED[scheme].items():
        counts = corpus_counts(splits[split])
        assert tuple(counts[k] for k in ("documents", "tokens", "sentences", "mentions", "clusters",
                                         "singletons")) == expected, split
    # the one upstream quirk is repaired and reported, not silently dropped
    assert repairs == ([] if scheme == "gum" else [repairs[0]])
    if scheme == "ontogum":
        assert "GUM_news_iodine.conll" in repairs[0] and "empty token" in repairs[0]


@pytest.mark.corpus
def test_noncommercial_documents_can_be_left_out():
    """69 of the 237 staged docs (67,380 tokens) are CC BY-NC-SA."""
    kept = read_gum(GUM, "gum", exclude_noncommercial=True)
    everything = [doc for split in kept.values() for doc in split]
    assert len(everything) == 237 - 69
    assert corpus_counts(everything)["tokens"] == 233926 - 67380
    assert all(doc.meta["non_commercial"] == "0" for doc in everything)


def test_concatenated_brackets_and_same_cluster_nesting():
    # "[Emperor [Norton]]": the inner mention opens and closes on token 1, then the outer one closes
    cells = [(1, "(person-1-Emperor_Norton"), (2, "(person-1-Emperor_Norton)person-1-Emperor_Norton)"),
             (3, "_"), (4, "(abstract-1(person-3-Lord_Byron)")]
    assert parse_column(cells[:3], "x.conll", gum_cluster) == [
        Mention(0, 2, "person-1", "person"), Mention(1, 2, "person-1", "person")]
    with pytest.raises(CorefFormatError, match="line 4: cluster 'abstract-1' opened here is never closed"):
        parse_column(cells, "x.conll", gum_cluster)
    with pytest.raises(CorefFormatError, match="line 7: 'person-2\\)' closes cluster 'person-2', which is not open"):
        parse_column([(7, "person-2)")], "x.conll", gum_cluster)


def test_gum_label_is_type_and_id():
    assert gum_cluster("person-3-Lord_Byron") == ("person-3", "person")
    assert gum_cluster("abstract-13") == ("abstract-13", "abstract")


def test_bad_token_index_names_line(tmp_path):
    path = tmp_path / "GUM_x.conll"
    path.write_text("# begin document GUM_x\n0\tHello\t_\n2\tworld\t_\n# end document\n")
    with pytest.raises(CorefFormatError, match=r"GUM_x.conll, line 3: token index '2', expected 1"):
        read_gum_conll(path, "gum", [2])


def test_sentence_lengths_must_cover_the_document(tmp_path):
    import spacy

    from spacy_entmem.corpora.docs import to_doc

    path = tmp_path / "GUM_y.conll"
    path.write_text("# begin document GUM_y\n0\tHello\t(person-1)\n1\tworld\t_\n# end document\n")
    record = read_gum_conll(path, "gum", [3])
    with pytest.raises(ValueError, match="GUM_y: sentence lengths sum to 3 but the document has 2 tokens"):
        to_doc(spacy.blank("en").vocab, record)
