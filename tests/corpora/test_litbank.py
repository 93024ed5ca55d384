import pytest
import spacy

from spacy_entmem.corpora.brackets import CorefFormatError
from spacy_entmem.corpora.docs import GOLD_MENTIONS_KEY, corpus_counts, to_doc
from spacy_entmem.corpora.litbank import read_litbank, read_litbank_conll

from ..conftest import DATA

LITBANK = DATA / "litbank"


@pytest.fixture(scope="module")
def litbank_fold0():
    return read_litbank(LITBANK, fold=0)


@pytest.mark.corpus
def test_counts_equal_source_md(litbank_fold0):
    """data/litbank/SOURCE.md: 100 docs, 210,532 tokens, 8,562 sentences, 29,103 mentions, 7,927 clusters
    of which 5,763 singletons; fold 0 test has 20,638 tokens and dev 20,438 (= test of fold 9)."""
    everything = [doc for split in litbank_fold0.values() for doc in split]
    assert corpus_counts(everything) == {
        "documents": 100, "tokens": 210532, "sentences": 8562, "mentions": 29103, "clusters": 7927,
        "singletons": 5763,
    }
    assert [len(litbank_fold0[s]) for s in ("train", "dev", "test")] == [80, 10, 10]
    assert corpus_counts(litbank_fold0["test"])["tokens"] == 20638
    assert corpus_counts(litbank_fold0["dev"])["tokens"] == 20438
    assert max(len(c) for doc in everything for c in doc.clusters()) == 261


def test_nested_mentions_survive_conversion(litbank_fold0):
    record = litbank_fold0["train"][0]
    doc = to_doc(spacy.blank("en").vocab, record)
    spans = [(s.start, s.end) for key in doc.spans if key.startswith("coref_clusters_") for s in doc.spans[key]]
    assert len(spans) == len(record.mentions)
    nested = [(a, b) for a in spans for b in spans if a != b and a[0] <= b[0] and b[1] <= a[1]]
    assert nested, "LitBank documents nest mentions (e.g. [his] mother)"
    assert len(doc.spans[GOLD_MENTIONS_KEY]) == len(set(spans))
    assert doc.user_data["doc_id"] == record.doc_id


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.conll"
    path.write_text("#begin document (bad); part 0\n" + "bad\t0\t0\tHello\t_\t_\t(0)\n#end document\n")
    with pytest.raises(CorefFormatError, match=r"bad.conll, line 2: expected 13 tab-separated columns, found 7"):
        read_litbank_conll(path)


def test_unclosed_bracket_names_its_line(tmp_path):
    row = lambda i, word, coref: "\t".join(["d", "0", str(i), word] + ["_"] * 8 + [coref]) + "\n"  # noqa: E731
    path = tmp_path / "open.conll"
    path.write_text("#begin document (d); part 0\n" + row(0, "The", "(4") + row(1, "king", "") + "\n#end document\n")
    with pytest.raises(CorefFormatError, match=r"open.conll, line 2: cluster '4' opened here is never closed"):
        read_litbank_conll(path)


def test_missing_fold_is_reported():
    with pytest.raises(FileNotFoundError, match="LitBank fold 12"):
        read_litbank(LITBANK, fold=12)
