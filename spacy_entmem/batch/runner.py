"""Annotating a stream of documents with a pipeline: skip what the output already holds, keep going past
bad documents, report progress, and say at the end what failed."""
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from spacy.lang.en.stop_words import STOP_WORDS
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
    empty: int = 0  # documents with no text but white space (written like the others)
    words: int = 0
    seconds: float = 0.0
    failures: List[InputProblem] = field(default_factory=list)
    warnings: List[InputProblem] = field(default_factory=list)

    def words_per_second(self) -> float:
        return self.words / self.seconds if self.seconds > 0 else 0.0

    def describe(self) -> str:
        text = (f"{self.written} documents annotated ({self.words:,} words, {self.seconds:.1f} s, "
                f"{self.words_per_second():,.0f} words/s)")
        if self.skipped:
            text += f"; {self.skipped} already in the output, skipped"
        if self.empty:
            text += f"; {self.empty} empty (written with no clusters)"
        if self.failures:
            text += f"; {len(self.failures)} failed"
        if self.warnings:
            text += f"; {len(self.warnings)} with warnings"
        return text


def set_error_handler(nlp, handler) -> None:
    """``nlp.set_error_handler`` for the components that take one: spaCy's parser (a Cython class, 3.8) has no
    ``error_handler`` slot and raises AttributeError there, so its failures are not caught per batch."""
    nlp.default_error_handler = handler
    for _, pipe in nlp.pipeline:
        try:
            pipe.set_error_handler(handler)
        except AttributeError:
            continue


def character_limit(max_length: int) -> int:
    """The longest document in characters for ``--max-length`` (0: no limit: the memory reads any length
    in bounded memory)."""
    if max_length < 0:
        raise ValueError(f"[spacy-entmem] --max-length must be >= 0 (0: no limit), got {max_length}")
    return max_length or UNLIMITED_LENGTH


def drop_failed_batch(proc_name, proc, docs, error) -> None:
    """spaCy error handler: a batch that fails in a component is left out here and retried doc by doc
    afterwards, so one bad document neither ends the run nor takes its batch with it."""


WORD = re.compile(r"[^\W\d_]+")
MIN_WORDS_TO_JUDGE = 30
MIN_ENGLISH_SHARE = 0.08  # English running text: ~40 % of its words are function words


def english_share(text: str) -> Optional[float]:
    """Share of the words that are English function words (spaCy's English stop list); None for texts
    too short to judge."""
    words = WORD.findall(text.lower())
    if len(words) < MIN_WORDS_TO_JUDGE:
        return None
    return sum(word in STOP_WORDS for word in words) / len(words)


def count_words(doc: Doc) -> int:
    return sum(1 for token in doc if not token.is_space)


Annotated = Union[Tuple[str, Doc], InputProblem]
Annotator = Callable[[Iterable[Tuple[str, str]]], Iterator[Annotated]]


def local_annotator(nlp: Language, batch_size: int = 16, n_process: int = 1) -> Annotator:
    """(id, text) pairs → (id, doc) in input order, on this machine (``n_process`` worker processes); the
    documents of a batch that failed in the pipeline come last, retried one by one, and a document that
    fails alone comes back as an :class:`InputProblem`."""
    if batch_size < 1:
        raise ValueError(f"[spacy-entmem] --batch-size must be >= 1, got {batch_size}")
    if n_process < 1:
        raise ValueError(f"[spacy-entmem] --n-process must be >= 1, got {n_process}")

    nlp.max_length = UNLIMITED_LENGTH  # lengths are checked against --max-length before (annotate_stream)

    def annotate(records: Iterable[Tuple[str, str]]) -> Iterator[Annotated]:
        pending: Dict[str, str] = {}

        def texts() -> Iterator[Tuple[str, str]]:
            for doc_id, text in records:
                pending[doc_id] = text
                yield text, doc_id

        set_error_handler(nlp, drop_failed_batch)
        try:
            for doc, doc_id in nlp.pipe(texts(), as_tuples=True, batch_size=batch_size, n_process=n_process):
                del pending[doc_id]
                yield doc_id, doc
        finally:
            set_error_handler(nlp, raise_error)
        for doc_id, text in pending.items():  # left out by a failing batch: one at a time, errors named
            try:
                yield doc_id, nlp(text)
            except Exception as error:  # noqa: BLE001 (reported, the run goes on)
                yield InputProblem(doc_id, f"the pipeline failed: {type(error).__name__}: {error}")

    return annotate


def annotate_stream(
    annotator: Annotator,
    items: Iterable[Item],
    write: Callable[[str, Doc], None],
    is_done: Callable[[str], bool] = lambda doc_id: False,
    max_length: int = UNLIMITED_LENGTH,
    progress: bool = True,
    total: Optional[int] = None,
) -> RunSummary:
    """Annotate every record of ``items`` with ``annotator`` and hand each doc to ``write``; problems in the
    inputs, texts over ``max_length`` characters and documents the pipeline fails on are collected in the
    summary, and documents ``is_done`` knows are skipped."""
    summary = RunSummary()
    # off a terminal (a log file, a pipe) no bar: tqdm's carriage returns and escape codes would fill it
    bar = tqdm(total=total, unit="doc", file=sys.stderr, disable=not progress or not sys.stderr.isatty(),
               dynamic_ncols=True)
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
            elif len(item.text) > max_length:
                report(InputProblem(item.id, f"{len(item.text):,} characters, over --max-length "
                                             f"{max_length:,} (0 lifts the limit)"))
            else:
                summary.empty += not item.text.strip()
                share = english_share(item.text[:20000])
                if share is not None and share < MIN_ENGLISH_SHARE:
                    warning = InputProblem(item.id, f"does not look like English ({share:.0%} English function "
                                                    "words); annotated, but the pipeline is English-only")
                    summary.warnings.append(warning)
                    bar.write(f"⚠ {warning}", file=sys.stderr)
                yield item.id, item.text

    for result in annotator(to_annotate()):
        if isinstance(result, InputProblem):
            report(result)
            continue
        doc_id, doc = result
        write(doc_id, doc)
        summary.written += 1
        summary.words += count_words(doc)
        summary.seconds = time.perf_counter() - start
        bar.set_postfix_str(f"{summary.words_per_second():,.0f} words/s", refresh=False)
        bar.update(1)
    summary.seconds = time.perf_counter() - start
    bar.close()
    return summary
