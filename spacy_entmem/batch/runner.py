"""Annotating a stream of documents with a pipeline: skip what the output already holds, keep going past
bad documents, report progress, and say at the end what failed."""
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import raise_error
from tqdm import tqdm

from .inputs import InputProblem, Item

UNLIMITED_LENGTH = 2**62


@dataclass
class RunSummary:
    written: int = 0
    skipped: int = 0
    words: int = 0
    seconds: float = 0.0
    failures: List[InputProblem] = field(default_factory=list)

    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        text = (f"{self.written} documents annotated ({self.words:,} words, {self.seconds:.1f} s, "
                f"{self.words_per_second():,.0f} words/s)")
        if self.skipped:
            text += f"; {self.skipped} already in the output, skipped"
        if self.failures:
            text += f"; {len(self.failures)} failed"
        return text


def set_max_length(nlp: Language, max_length: int) -> None:
    """``max_length`` characters per document; 0 lifts spaCy's limit (the memory reads any length in
    bounded memory)."""
    if max_length < 0:
        raise ValueError(f"[spacy-entmem] --max-length must be >= 0 (0: no limit), got {max_length}")
    nlp.max_length = max_length or UNLIMITED_LENGTH


def drop_failed_batch(proc_name, proc, docs, error) -> None:
    """spaCy error handler: a batch that fails in a component is left out here and retried doc by doc
    afterwards, so one bad document neither ends the run nor takes its batch with it."""


def count_words(doc: Doc) -> int:
    return sum(1 for token in doc if not token.is_space)


def annotate_stream(
    nlp: Language,
    items: Iterable[Item],
    write: Callable[[str, Doc], None],
    is_done: Callable[[str], bool] = lambda doc_id: False,
    batch_size: int = 16,
    n_process: int = 1,
    progress: bool = True,
    total: Optional[int] = None,
) -> RunSummary:
    """Annotate every record of ``items`` and hand each doc to ``write`` in input order (the documents of a
    batch that failed in the pipeline come last, retried one by one); problems in the inputs, texts over
    ``nlp.max_length`` and documents the pipeline fails on are collected in the summary."""
    if batch_size < 1:
        raise ValueError(f"[spacy-entmem] --batch-size must be >= 1, got {batch_size}")
    if n_process < 1:
        raise ValueError(f"[spacy-entmem] --n-process must be >= 1, got {n_process}")
    summary = RunSummary()
    pending: Dict[str, str] = {}
    bar = tqdm(total=total, unit="doc", file=sys.stderr, disable=not progress, dynamic_ncols=True)
    start = time.perf_counter()

    def report(problem: InputProblem) -> None:
        summary.failures.append(problem)
        bar.write(f"✘ {problem}", file=sys.stderr)
        bar.update(1)

    def to_annotate() -> Iterator[Tuple[str, str]]:
        for item in items:
            if isinstance(item, InputProblem):
                report(item)
            elif is_done(item.id):
                summary.skipped += 1
                bar.update(1)
            elif len(item.text) > nlp.max_length:
                report(InputProblem(item.id, f"{len(item.text):,} characters, over --max-length "
                                             f"{nlp.max_length:,} (0 lifts the limit)"))
            else:
                pending[item.id] = item.text
                yield item.text, item.id

    def done(doc: Doc, doc_id: str) -> None:
        del pending[doc_id]
        write(doc_id, doc)
        summary.written += 1
        summary.words += count_words(doc)
        summary.seconds = time.perf_counter() - start
        bar.set_postfix_str(f"{summary.words_per_second():,.0f} words/s", refresh=False)
        bar.update(1)

    nlp.set_error_handler(drop_failed_batch)
    for doc, doc_id in nlp.pipe(to_annotate(), as_tuples=True, batch_size=batch_size, n_process=n_process):
        done(doc, doc_id)
    nlp.set_error_handler(raise_error)
    for doc_id, text in list(pending.items()):  # left out by a failing batch: one at a time, errors named
        try:
            done(nlp(text), doc_id)
        except Exception as error:  # noqa: BLE001 (reported, the run goes on)
            del pending[doc_id]
            report(InputProblem(doc_id, f"the pipeline failed: {type(error).__name__}: {error}"))
    summary.seconds = time.perf_counter() - start
    bar.close()
    return summary
