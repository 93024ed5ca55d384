"""Annotating on a Dask cluster: the same run as ``local_annotator``, with chunks of documents sent to
workers that each load the pipeline once.

Each task annotates a chunk of (id, text) pairs and returns them as ``DocBin`` bytes plus the problems
met; the client writes the chunks in input order, so the output equals the single-process run. A worker
that dies mid-task loses nothing: the scheduler gives its tasks to another worker (up to
``allowed-failures`` deaths per task, Dask's default 3). With no address a local cluster of ``n_workers``
single-threaded worker processes is started and closed afterwards.
"""
from itertools import islice
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

import spacy
from spacy.tokens import DocBin

from .inputs import InputProblem
from .runner import Annotated, Annotator

_PIPELINES: Dict[Tuple[str, Optional[str]], object] = {}  # per worker process: (model, mention scheme) → pipeline


def worker_pipeline(model: str, mention_scheme: Optional[str] = None):
    """The pipeline ``model`` (with the finder of ``mention_scheme``) in this worker process, loaded on first
    use."""
    if (model, mention_scheme) not in _PIPELINES:
        from ..cli import load_pipeline
        from ..nn import use_one_thread

        use_one_thread()  # one single-threaded worker per core
        _PIPELINES[model, mention_scheme] = load_pipeline(model, mention_scheme)
    return _PIPELINES[model, mention_scheme]


def annotate_chunk(model: str, mention_scheme: Optional[str], batch_size: int,
                   records: List[Tuple[str, str]]) -> Tuple[bytes, List[str], List[Tuple[str, str]]]:
    """Runs on a worker: the chunk's docs as DocBin bytes, their ids, and (id, reason) of the failures."""
    from .runner import local_annotator

    annotate = local_annotator(worker_pipeline(model, mention_scheme), batch_size=batch_size)
    docs, ids, problems = DocBin(store_user_data=True), [], []
    for result in annotate(records):
        if isinstance(result, InputProblem):
            problems.append((result.source, result.reason))
        else:
            ids.append(result[0])
            docs.add(result[1])
    return docs.to_bytes(), ids, problems


def dask_annotator(model: str, address: Optional[str] = None, n_workers: int = 2, batch_size: int = 16,
                   chunk_size: int = 64, in_flight_per_worker: int = 2,
                   mention_scheme: Optional[str] = None) -> Annotator:
    """An annotator running ``annotate_chunk`` tasks on the cluster at ``address`` (or a local one)."""
    if chunk_size < 1:
        raise ValueError(f"[spacy-entmem] chunk size must be >= 1, got {chunk_size}")
    if address is None and n_workers < 1:
        raise ValueError(f"[spacy-entmem] --n-process (workers of the local cluster) must be >= 1, got {n_workers}")

    def annotate(records: Iterable[Tuple[str, str]]) -> Iterator[Annotated]:
        from distributed import Client, LocalCluster

        cluster = None
        if address is None:
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        client = Client(cluster if cluster is not None else address)
        try:
            yield from _run(client, model, mention_scheme, records, batch_size, chunk_size,
                            in_flight_per_worker * max(1, len(client.scheduler_info()["workers"])))
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    return annotate


def pipeline_lang(model: str) -> str:
    """The language of a pipeline directory, read from its meta.json without loading it."""
    from pathlib import Path

    import spacy_entmem

    path = spacy_entmem.DEFAULT_PIPELINE if model in ("", "default") else Path(model)
    meta = path / "meta.json"
    return spacy.util.load_meta(meta)["lang"] if meta.exists() else spacy.load(model).lang


def _run(client, model: str, mention_scheme: Optional[str], records: Iterable[Tuple[str, str]], batch_size: int,
         chunk_size: int, max_in_flight: int) -> Iterator[Annotated]:
    """Submit chunks (at most ``max_in_flight`` at a time) and yield their results in input order."""
    vocab = spacy.blank(pipeline_lang(model)).vocab  # the language's lexeme attributes (is_alpha, ...)
    records = iter(records)
    futures = []

    def submit() -> bool:
        chunk = list(islice(records, chunk_size))
        if chunk:
            future = client.submit(annotate_chunk, model, mention_scheme, batch_size, chunk, pure=False)
            futures.append((future, [doc_id for doc_id, _ in chunk]))
        return bool(chunk)

    while len(futures) < max_in_flight and submit():
        pass
    while futures:
        future, chunk_ids = futures.pop(0)
        try:
            data, ids, problems = future.result()  # in order: the output equals a local run's
        except Exception as error:  # noqa: BLE001 (e.g. KilledWorker after repeated worker deaths)
            data, ids = DocBin().to_bytes(), []
            problems = [(doc_id, f"the cluster failed on its chunk: {type(error).__name__}: {error}")
                        for doc_id in chunk_ids]
        submit()
        for doc_id, doc in zip(ids, DocBin().from_bytes(data).get_docs(vocab)):
            yield doc_id, doc
        for doc_id, reason in problems:
            yield InputProblem(doc_id, reason)
