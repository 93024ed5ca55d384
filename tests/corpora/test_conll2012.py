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
