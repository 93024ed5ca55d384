"""Many streams at once: each stream (a book's chapters, a conversation's turns) read by one ``Reader`` in one
worker, never split across workers, the streams spread over worker processes on this machine or a Dask cluster.

A task reads one whole stream and returns its docs as ``DocBin`` bytes and its entity table; results come back
in the streams' input order, so the output equals reading the streams one after the other in one process.
"""
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from multiprocessing import get_context
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

import spacy
from spacy.tokens import Doc, DocBin

from ..pipeline.entities import Entity, EntityTable
from .dask_engine import pipeline_lang, worker_pipeline


@dataclass
class Stream:
    """One stream: an id, its texts in reading order and, for a dialogue, the speaker of each text."""

    id: str
    texts: Sequence[str]
    speakers: Optional[Sequence[Optional[str]]] = None

    def __post_init__(self) -> None:
        if self.speakers is not None and len(self.speakers) != len(self.texts):
            raise ValueError(f"[spacy-entmem] stream {self.id!r}: {len(self.texts)} texts but {len(self.speakers)} "
                             "speakers")


@dataclass
class StreamResult:
    """A stream read: its id, its annotated docs (in order) and its entities (``Reader.entities()``)."""

    id: str
    docs: List[Doc]
    entities: List[Entity]


def read_stream_task(model: str, mention_scheme: Optional[str], stream: Stream) -> Tuple[str, bytes, list]:
    """Runs in a worker: the whole stream read by one ``Reader`` (docs as DocBin bytes, the entity table)."""
    return read_stream(worker_pipeline(model, mention_scheme), stream)


def read_stream(nlp, stream: Stream) -> Tuple[str, bytes, list]:
    """The whole stream read by one ``Reader`` over ``nlp``: its id, docs as DocBin bytes, its entity table."""
    from ..reader import Reader

    reader = Reader(nlp)
    docs = DocBin(store_user_data=True)
    for doc in reader.pipe(stream.texts, speakers=stream.speakers):
        docs.add(doc)
    return stream.id, docs.to_bytes(), reader.table.to_list()


def read_streams(streams: Iterable[Stream], model: str = "default", n_process: int = 1, engine: str = "local",
                 address: Optional[str] = None, mention_scheme: Optional[str] = None,
                 in_flight_per_worker: int = 2) -> Iterator[StreamResult]:
    """Each stream read whole by one worker (``n_process`` processes here, or a Dask cluster at ``address`` /
    a local one of ``n_process`` workers with ``engine="dask"``); results in the streams' order. With
    ``n_process`` > 1 the workers are new processes that import the calling script again: in a script, call it
    under ``if __name__ == "__main__":`` (Python's rule for multiprocessing), else the pool breaks
    (BrokenProcessPool)."""
    if engine not in ("local", "dask"):
        raise ValueError(f"[spacy-entmem] engine must be 'local' or 'dask', got {engine!r}")
    if n_process < 1:
        raise ValueError(f"[spacy-entmem] n_process must be >= 1, got {n_process}")
    vocab = spacy.blank(pipeline_lang(model)).vocab
    if engine == "dask":
        results = _dask_results(streams, model, mention_scheme, n_process, address, in_flight_per_worker)
    elif n_process == 1:
        from ..cli import load_pipeline

        nlp = load_pipeline(model, mention_scheme)
        results = (read_stream(nlp, stream) for stream in streams)
    else:
        results = _process_results(streams, model, mention_scheme, n_process, in_flight_per_worker)
    for stream_id, data, table in results:
        yield StreamResult(stream_id, list(DocBin().from_bytes(data).get_docs(vocab)),
                           EntityTable.from_list(table).entities())


def _process_results(streams: Iterable[Stream], model: str, mention_scheme: Optional[str], n_process: int,
                     in_flight_per_worker: int) -> Iterator[Tuple[str, bytes, list]]:
    """Streams read by worker processes (spawned: no torch thread pool forked), at most a few per worker in
    flight, yielded in input order."""
    streams = iter(streams)
    with ProcessPoolExecutor(max_workers=n_process, mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(read_stream_task, model, mention_scheme, s)
                   for s in islice(streams, n_process * in_flight_per_worker)]
        while futures:
            result = futures.pop(0).result()
            futures.extend(pool.submit(read_stream_task, model, mention_scheme, s) for s in islice(streams, 1))
            yield result


def _dask_results(streams: Iterable[Stream], model: str, mention_scheme: Optional[str], n_workers: int,
                  address: Optional[str], in_flight_per_worker: int) -> Iterator[Tuple[str, bytes, list]]:
    from distributed import Client, LocalCluster

    cluster = None if address else LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                                dashboard_address=None)
    client = Client(cluster if cluster is not None else address)
    try:
        streams = iter(streams)
        limit = in_flight_per_worker * max(1, len(client.scheduler_info()["workers"]))
        futures = [client.submit(read_stream_task, model, mention_scheme, s, pure=False)
                   for s in islice(streams, limit)]
        while futures:
            result = futures.pop(0).result()
            futures.extend(client.submit(read_stream_task, model, mention_scheme, s, pure=False)
                           for s in islice(streams, 1))
            yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
