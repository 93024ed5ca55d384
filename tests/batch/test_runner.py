from pathlib import Path

import pytest
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.util import minibatch

import spacy_entmem
from spacy_entmem.batch.inputs import InputProblem, TextRecord
from spacy_entmem.batch.outputs import doc_record
from spacy_entmem.batch.runner import annotate_stream, character_limit, english_share, local_annotator

SAMPLES = sorted((Path(spacy_entmem.__file__).parent / "samples").glob("*.txt"))


class FailsOnBoom(Pipe):
    """Fails on a doc holding 'BOOM'; in ``pipe`` the whole batch goes to the error handler, as spaCy's
    trainable components do."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, doc):
        if "BOOM" in doc.text:
            raise ValueError("boom in this doc")
        return doc

    def pipe(self, stream, *, batch_size: int = 128):
        for docs in minibatch(stream, batch_size):
            try:
                yield from [self(doc) for doc in docs]
            except ValueError as error:
                self.get_error_handler()(self.name, self, docs, error)


@Language.factory("entmem_test_fails_on_boom")
def make_fails_on_boom(nlp, name):
    return FailsOnBoom(name)


def run(nlp, items, batch_size=16, n_process=1, **kwargs):
    written = []
    summary = annotate_stream(local_annotator(nlp, batch_size, n_process), items,
                              lambda doc_id, doc: written.append((doc_id, doc)), progress=False, **kwargs)
    return summary, written


def test_a_document_the_pipeline_fails_on_is_reported_and_its_batch_kept(nlp):
    nlp.add_pipe("entmem_test_fails_on_boom")
    try:
        texts = ["Anna slept.", "Bob woke.", "It went BOOM.", "Cleo ran.", "Dan sat."]
        summary, written = run(nlp, [TextRecord(str(i), t) for i, t in enumerate(texts)], batch_size=2)
    finally:
        nlp.remove_pipe("entmem_test_fails_on_boom")
    assert [doc_id for doc_id, _ in written] == ["0", "1", "4", "3"]  # 3 shared a batch with 2: retried alone
    assert summary.failures == [InputProblem("2", "the pipeline failed: ValueError: boom in this doc")]
    assert summary.written == 4 and summary.words == 12


def test_input_problems_long_texts_and_finished_documents(nlp):
    items = [TextRecord("short", "Anna slept."), InputProblem("x.bin", "binary file (NUL bytes), not text"),
             TextRecord("long", "Anna slept. " * 5), TextRecord("done", "Bob woke.")]
    summary, written = run(nlp, items, is_done=lambda doc_id: doc_id == "done", max_length=character_limit(20))
    assert [doc_id for doc_id, _ in written] == ["short"]
    assert [str(p) for p in summary.failures] == [
        "x.bin: binary file (NUL bytes), not text",
        "long: 60 characters, over --max-length 20 (0 lifts the limit)"]
    assert summary.skipped == 1
    assert "1 documents annotated" in summary.describe() and "2 failed" in summary.describe()
    with pytest.raises(ValueError, match="--max-length must be >= 0"):
        character_limit(-1)
    assert character_limit(0) > 10**15
    with pytest.raises(ValueError, match="--n-process must be >= 1"):
        local_annotator(nlp, n_process=0)
    with pytest.raises(ValueError, match="--batch-size must be >= 1"):
        local_annotator(nlp, batch_size=0)
    long_text = "Anna slept." + " " * 1_000_000 + "She woke."  # over spaCy's own limit: annotated, no E088
    _, (only,) = run(nlp, [TextRecord("huge", long_text)])
    assert [t.text for t in only[1] if not t.is_space] == ["Anna", "slept", ".", "She", "woke", "."]


def test_two_processes_give_the_same_records_as_one(nlp):
    items = [TextRecord(str(p), p.read_text(encoding="utf8")) for p in SAMPLES] * 1
    items += [TextRecord("empty", ""), TextRecord("one", "Hi")]
    _, alone = run(nlp, items, batch_size=2)
    _, forked = run(nlp, items, batch_size=2, n_process=2)
    assert [doc_record(i, d) for i, d in forked] == [doc_record(i, d) for i, d in alone]
    assert any(doc_record(i, d)["clusters"] for i, d in alone)


def test_text_that_is_not_english_is_annotated_with_a_warning(nlp):
    german = ("Die Katze saß auf der Matte, und der Hund schlief unter dem Tisch, während die Kinder im Garten "
              "spielten und ihre Mutter in der Küche Kuchen backte. Später kamen die Nachbarn zu Besuch.")
    english = ("The cat sat on the mat, and the dog slept under the table while the children played in the "
               "garden and their mother baked a cake in the kitchen. Later the neighbours came to visit.")
    summary, written = run(nlp, [TextRecord("de", german), TextRecord("en", english), TextRecord("short", "Hallo")])
    assert [doc_id for doc_id, _ in written] == ["de", "en", "short"]
    assert [w.source for w in summary.warnings] == ["de"]
    assert "does not look like English" in summary.warnings[0].reason and not summary.failures
    assert english_share(english) > 0.3 and english_share("Hallo") is None


def test_empty_documents_are_written_and_counted_in_the_summary():
    written = []
    items = [TextRecord("a", "Anna came."), TextRecord("blank", "  \n"), TextRecord("none", "")]
    summary = annotate_stream(lambda records: ((doc_id, spacy_entmem.load_default().make_doc(text))
                                               for doc_id, text in records),
                              items, lambda doc_id, doc: written.append(doc_id), progress=False)
    assert written == ["a", "blank", "none"] and summary.empty == 2
    assert "2 empty (written with no clusters)" in summary.describe()


def test_no_progress_bar_off_a_terminal(capsys):
    annotate_stream(lambda records: iter(()), [TextRecord("a", "x")], lambda doc_id, doc: None, progress=True,
                    total=1)
    assert "\r" not in capsys.readouterr().err  # pytest's stderr is no terminal
