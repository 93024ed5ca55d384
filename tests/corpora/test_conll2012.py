import io

import pytest

from spacy_entmem.corpora.brackets import parse_column
from spacy_entmem.corpora.conll2012 import coref_column, write_document
from spacy_entmem.corpora.litbank import read_litbank_conll

from ..conftest import DATA


def test_nested_brackets_balance_at_one_token():
    # [[his] [mother]] ... "the king of [France]" with France also a singleton cluster
    clusters = [[(0, 2)], [(0, 1)], [(1, 2), (5, 6)], [(3, 6)]]
    assert coref_column(6, clusters) == ["(0|(1)", "(2)|0)", "_", "(3", "_", "(2)|3)"]


def test_round_trip_through_the_reader_on_a_litbank_document():
    path = sorted((DATA / "litbank" / "coref" / "conll").glob("*.conll"))[0]
    record = read_litbank_conll(path)
    clusters = [[(m.start, m.end) for m in c] for c in record.clusters()]
    out = io.StringIO()
    write_document(out, record.doc_id, record.words, record.sentence_lengths, clusters)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"#begin document ({record.doc_id}); part 000" and lines[-1] == "#end document"
    rows = [(n, line.split("\t")) for n, line in enumerate(lines, 1) if line and not line.startswith("#")]
    assert all(len(fields) == 13 for _, fields in rows)
    assert [fields[3] for _, fields in rows] == record.words
    assert sum(1 for line in lines if not line) == len(record.sentence_lengths)
    parsed = parse_column([(n, fields[12]) for n, fields in rows], "written")
    again = sorted(sorted((m.start, m.end) for m in ms) for ms in _by_cluster(parsed))
    assert again == sorted(sorted(c) for c in clusters)


def _by_cluster(mentions):
    groups = {}
    for m in mentions:
        groups.setdefault(m.cluster, []).append(m)
    return groups.values()


def test_span_outside_the_document_is_an_error():
    with pytest.raises(ValueError, match=r"span \(3, 5\) of cluster 0 is outside a document of 4 tokens"):
        coref_column(4, [[(3, 5)]])


def test_crossing_mentions_of_one_cluster_are_left_out_with_a_warning_and_read_back_exactly():
    # cluster 0: "the talented Miss" (0, 3) and "Miss Cowley" (2, 4) share "Miss"; cluster 1 is nested in both
    words = ["the", "talented", "Miss", "Cowley", "said", "she"]
    clusters = [[(0, 3), (2, 4), (5, 6)], [(2, 3)]]
    out = io.StringIO()
    with pytest.warns(UserWarning, match=r"doc1: 1 mention\(s\) cross .* \(2, 4\) of cluster 0"):
        write_document(out, "doc1", words, [6], clusters)
    rows = [(n, line.split("\t")) for n, line in enumerate(out.getvalue().splitlines(), 1)
            if line and not line.startswith("#")]
    parsed = parse_column([(n, fields[12]) for n, fields in rows], "written")
    spans = sorted((m.cluster, m.start, m.end) for m in parsed)
    assert spans == [("0", 0, 3), ("0", 5, 6), ("1", 2, 3)]
    # every written span opens and closes once: no duplicate mention when read back
    assert len(spans) == len(set(spans))


def test_without_crossing_spans_nothing_is_dropped():
    from spacy_entmem.corpora.conll2012 import drop_crossing

    clusters = [[(0, 4), (1, 2), (5, 6)], [(2, 4)]]  # nested and disjoint, and a crossing between clusters
    assert drop_crossing(clusters) == ([[(0, 4), (1, 2), (5, 6)], [(2, 4)]], [])


def test_every_document_of_a_written_file_is_read_back(tmp_path):
    from spacy_entmem.corpora.conll2012 import read_conll_documents

    path = tmp_path / "two.conll"
    with path.open("w", encoding="utf8") as out:
        write_document(out, "first", ["Anna", "came", ".", "She", "sat", "."], [3, 3], [[(0, 1), (3, 4)]])
        write_document(out, "second", ["Bo", "left", "."], [3], [[(0, 1)]])
    first, second = read_conll_documents(path)
    assert (first.doc_id, first.words, first.sentence_lengths) == ("first", ["Anna", "came", ".", "She", "sat", "."],
                                                                   [3, 3])
    assert [[(m.start, m.end) for m in c] for c in first.clusters()] == [[(0, 1), (3, 4)]]
    assert (second.doc_id, [(m.start, m.end) for m in second.mentions]) == ("second", [(0, 1)])


def test_a_token_outside_a_document_block_names_its_line(tmp_path):
    from spacy_entmem.corpora.brackets import CorefFormatError
    from spacy_entmem.corpora.conll2012 import read_conll_documents

    path = tmp_path / "loose.conll"
    row = "\t".join(["d", "0", "0", "Hi"] + ["_"] * 8 + ["(0)"])
    path.write_text(f"#begin document (d); part 000\n{row}\n#end document\n{row}\n", encoding="utf8")
    with pytest.raises(CorefFormatError, match=r"loose.conll, line 4: a token outside a '#begin document' block"):
        list(read_conll_documents(path))
