import io

import pytest

from spacy_entmem.batch.inputs import InputProblem, TextRecord, decode_text, read_inputs


def test_decode_text_names_binary_and_undecodable_bytes():
    assert decode_text("\ufeffcafé".encode("utf8")) == "café"
    with pytest.raises(ValueError, match="binary file"):
        decode_text(b"PK\x03\x04\x00\x00")
    with pytest.raises(ValueError, match=r"not UTF-8 text: byte 0xe9 at offset 3"):
        decode_text(b"caf\xe9 au lait")


def test_folders_globs_and_jsonl_give_records_and_named_problems(tmp_path):
    (tmp_path / "corpus" / "deep").mkdir(parents=True)
    (tmp_path / "corpus" / "a.txt").write_text("Anna slept.", encoding="utf8")
    (tmp_path / "corpus" / "deep" / "b.txt").write_text("Bob woke.", encoding="utf8")
    (tmp_path / "corpus" / "notes.md").write_text("not taken", encoding="utf8")
    (tmp_path / "corpus" / "bad.txt").write_bytes(b"\xff\xfe\x00\x00")
    (tmp_path / "docs.jsonl").write_text('{"id": "j", "text": "Jo ran."}\n{"text": 3}\n\n{oops\n'
                                         '{"text": "no id"}\n', encoding="utf8")
    items = list(read_inputs([str(tmp_path / "corpus"), str(tmp_path / "docs.jsonl"), str(tmp_path / "nope.txt"),
                              str(tmp_path / "*.missing")]))
    records = [i for i in items if isinstance(i, TextRecord)]
    problems = [str(i) for i in items if isinstance(i, InputProblem)]
    assert [r.text for r in records] == ["Anna slept.", "Bob woke.", "Jo ran.", "no id"]
    assert records[0].id == str(tmp_path / "corpus" / "a.txt") and records[2].id == "j"
    assert records[3].id == f"{tmp_path / 'docs.jsonl'}:5"
    assert problems == [
        f"{tmp_path / 'corpus' / 'bad.txt'}: binary file (NUL bytes), not text",
        f'{tmp_path / "docs.jsonl"}:2: expected an object with a string "text" field',
        f"{tmp_path / 'docs.jsonl'}:4: not valid JSON (Expecting property name enclosed in double quotes at column 2)",
        f"{tmp_path / 'nope.txt'}: no such file or folder",
        f"{tmp_path / '*.missing'}: no file matches this pattern",
    ]
    globbed = list(read_inputs([str(tmp_path / "corpus" / "**" / "*.txt")]))
    assert sum(isinstance(i, TextRecord) for i in globbed) == 2


def test_stdin_jsonl_and_duplicate_ids():
    stdin = io.StringIO('{"id": 1, "text": "One."}\n{"id": "1", "text": "Again."}\n')
    items = list(read_inputs(["-"], stdin=stdin))
    assert items[0] == TextRecord("1", "One.")
    assert isinstance(items[1], InputProblem) and "duplicate document id" in items[1].reason


def test_an_empty_folder_is_a_problem_not_silence(tmp_path):
    (tmp_path / "empty").mkdir()
    (problem,) = read_inputs([str(tmp_path / "empty")])
    assert problem == InputProblem(str(tmp_path / "empty"), "folder holds no file matching '**/*.txt'")


def test_latin1_files_read_with_their_encoding_and_fail_clearly_without(tmp_path):
    (tmp_path / "old.txt").write_bytes("Élodie met René in Zürich.".encode("latin-1"))
    plain = list(read_inputs([str(tmp_path)]))
    assert isinstance(plain[0], InputProblem) and "not UTF-8 text" in plain[0].reason
    assert "--encoding" in plain[0].reason
    records = list(read_inputs([str(tmp_path)], encoding="latin-1"))
    assert records == [TextRecord(str(tmp_path / "old.txt"), "Élodie met René in Zürich.")]


def test_unknown_encodings_are_named():
    from spacy_entmem.batch.inputs import check_encoding

    assert check_encoding("latin-1") == "latin-1"
    with pytest.raises(ValueError, match="unknown --encoding 'klingon'"):
        check_encoding("klingon")


def test_documents_are_counted_where_the_inputs_say_how_many(tmp_path):
    from spacy_entmem.batch.inputs import count_documents

    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text("Anna came.", encoding="utf8")
    (tmp_path / "c.jsonl").write_text('{"text": "x"}\n', encoding="utf8")
    assert count_documents([str(tmp_path)]) == 2
    assert count_documents([str(tmp_path / "c.jsonl")]) is None and count_documents(["-"]) is None
