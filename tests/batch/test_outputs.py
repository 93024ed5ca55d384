import json

import pytest
import spacy
from spacy.tokens import SpanGroup

from spacy_entmem.pipeline.attributes import ROLE
from spacy_entmem.batch.outputs import (ConllWriter, DocBinShards, JsonlWriter, doc_record, output_format,
                                        read_shards, sentence_lengths)


@pytest.fixture
def clustered_doc():
    nlp = spacy.blank("en")
    doc = nlp("Anna met Bob.\nShe said he was late.")
    doc.spans["coref_clusters_1"] = SpanGroup(doc, name="coref_clusters_1", spans=[doc[0:1], doc[5:6]],
                                              attrs={ROLE: "cluster", "index": 1, "main": 0})
    doc.spans["coref_mentions"] = SpanGroup(doc, name="coref_mentions", spans=[doc[0:1], doc[2:3], doc[5:6]],
                                            attrs={ROLE: "mentions"})
    return doc


def test_doc_record_has_character_and_token_offsets(clustered_doc):
    record = doc_record("d1", clustered_doc)
    assert record["clusters"] == [[{"text": "Anna", "start_char": 0, "end_char": 4, "start": 0, "end": 1},
                                   {"text": "She", "start_char": 14, "end_char": 17, "start": 5, "end": 6}]]
    assert [m["text"] for m in record["mentions"]] == ["Anna", "Bob", "She"]
    assert record["resolved"].startswith("Anna met Bob.\nAnna said")


def test_output_format_from_suffix_and_errors(tmp_path):
    assert output_format(tmp_path / "a.jsonl") == "jsonl"
    assert output_format(tmp_path / "a.conll") == "conll"
    assert output_format(tmp_path / "shards") == "spacy"
    assert output_format(tmp_path / "a.txt", "jsonl") == "jsonl"
    with pytest.raises(ValueError, match="cannot tell the output format"):
        output_format(tmp_path / "a.csv")
    with pytest.raises(ValueError, match="DocBin output is a folder of .spacy shards"):
        output_format(tmp_path / "a.spacy")
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        output_format(tmp_path / "a.jsonl", "xml")


def test_jsonl_writer_resumes_and_cuts_a_torn_line(tmp_path, clustered_doc):
    path = tmp_path / "out.jsonl"
    writer = JsonlWriter(path)
    writer.write("d1", clustered_doc)
    writer.close()
    with path.open("a", encoding="utf8") as file:
        file.write('{"id": "d2", "clus')  # an interrupted run
    again = JsonlWriter(path)
    assert again.is_done("d1") and not again.is_done("d2")
    again.write("d2", clustered_doc)
    again.close()
    assert [json.loads(line)["id"] for line in path.read_text(encoding="utf8").splitlines()] == ["d1", "d2"]
    path.write_text("hello\n", encoding="utf8")
    with pytest.raises(ValueError, match=r"out.jsonl:1: not a record this command wrote"):
        JsonlWriter(path)


def test_conll_writer_resumes_and_writes_whitespace_safely(tmp_path, clustered_doc):
    path = tmp_path / "out.conll"
    writer = ConllWriter(path)
    writer.write("my doc", clustered_doc)
    writer.close()
    text = path.read_text(encoding="utf8")
    assert text.startswith("#begin document (my_doc); part 000\n")
    assert "\n\n" in text and all(len(line.split("\t")) == 13 for line in text.splitlines() if "\t" in line)
    assert "my_doc\t0\t0\tAnna\t" + "\t".join(["_"] * 8) + "\t(0)" in text
    path.write_text(text + "#begin document (half); part 000\nhalf\t0\t0\tX", encoding="utf8")
    again = ConllWriter(path)
    assert again.is_done("my doc") and not again.is_done("half")
    again.close()
    assert path.read_text(encoding="utf8") == text


def test_sentence_lengths_without_a_parser_split_at_final_punctuation_and_newlines(clustered_doc):
    assert sentence_lengths(clustered_doc) == [5, 6]
    assert sentence_lengths(clustered_doc[0:0].as_doc()) == []


def test_docbin_shards_commit_with_their_ids_and_resume(tmp_path, clustered_doc):
    folder = tmp_path / "shards"
    writer = DocBinShards(folder, shard_size=2)
    for i in range(3):
        writer.write(f"d{i}", clustered_doc.copy())
    writer.close()
    assert sorted(p.name for p in folder.iterdir()) == ["part-00000.ids", "part-00000.spacy",
                                                        "part-00001.ids", "part-00001.spacy"]
    (folder / "part-00002.spacy").write_bytes(b"torn")  # no .ids: an interrupted shard
    again = DocBinShards(folder, shard_size=2)
    assert all(again.is_done(f"d{i}") for i in range(3)) and not again.is_done("d3")
    assert not (folder / "part-00002.spacy").exists()
    again.write("d3", clustered_doc.copy())
    again.close()
    docs = read_shards(folder, clustered_doc.vocab)
    assert [d.user_data["entmem_id"] for d in docs] == ["d0", "d1", "d2", "d3"]
    assert [s.text for s in docs[3].spans["coref_clusters_1"]] == ["Anna", "She"]
    with pytest.raises(ValueError, match="shard size must be >= 1"):
        DocBinShards(tmp_path / "x", shard_size=0)
