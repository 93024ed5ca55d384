"""The Dask engine on a local cluster of two workers: same records as the single-process run, and a
worker killed mid-run loses no document."""
import os
import signal

import pytest

from spacy_entmem.batch.inputs import TextRecord
from spacy_entmem.batch.outputs import doc_record
from spacy_entmem.batch.runner import annotate_stream, local_annotator

from .test_runner import SAMPLES, run

distributed = pytest.importorskip("distributed")

from spacy_entmem.batch.dask_engine import _run, annotate_chunk, dask_annotator  # noqa: E402


def corpus():
    texts = [p.read_text(encoding="utf8") for p in SAMPLES]
    return [TextRecord(f"d{i}", texts[i % len(texts)] + f" Doc {i}.") for i in range(12)] + [TextRecord("e", "")]


def collect(annotator, items):
    written = []
    summary = annotate_stream(annotator, items, lambda i, d: written.append(doc_record(i, d)), progress=False)
    return summary, written


def test_two_dask_workers_give_the_records_of_one_process(nlp):
    _, alone = run(nlp, corpus())
    summary, clustered = collect(dask_annotator("default", n_workers=2, batch_size=4, chunk_size=3), corpus())
    assert clustered == [doc_record(i, d) for i, d in alone]
    assert summary.written == 13 and not summary.failures


def suicidal_chunk(model, mention_scheme, batch_size, records, marker):
    """annotate_chunk, except that the first worker to reach it dies (the marker file says it happened)."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return annotate_chunk(model, mention_scheme, batch_size, records)


def test_a_worker_killed_mid_run_loses_no_document(nlp, tmp_path, monkeypatch):
    from distributed import Client, LocalCluster

    marker = str(tmp_path / "killed")
    monkeypatch.setattr("spacy_entmem.batch.dask_engine.annotate_chunk",
                        lambda model, scheme, batch_size, records: suicidal_chunk(model, scheme, batch_size, records,
                                                                                  marker))
    records = [(r.id, r.text) for r in corpus()]
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        results = list(_run(client, "default", None, records, batch_size=4, chunk_size=3, max_in_flight=4))
    assert os.path.exists(marker)  # a worker did die
    _, alone = run(nlp, corpus())
    assert [doc_record(i, d) for i, d in results] == [doc_record(i, d) for i, d in alone]


def test_invalid_engine_settings():
    with pytest.raises(ValueError, match="chunk size must be >= 1"):
        dask_annotator("default", chunk_size=0)
    with pytest.raises(ValueError, match="workers of the local cluster"):
        dask_annotator("default", n_workers=0)
