"""Reading a corpus to annotate: text files, folders, JSONL files and stdin, one record per document.

Every source yields either a :class:`TextRecord` or an :class:`InputProblem` naming the source (path, or
path and line) and the reason, so a bad file is reported and skipped instead of ending the run.
"""
import codecs
import glob
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator, Optional, Set, Union

BINARY_SNIFF_BYTES = 8192
JSONL_SUFFIXES = {".jsonl", ".ndjson"}


@dataclass(frozen=True)
class TextRecord:
    id: str
    text: str


@dataclass(frozen=True)
class InputProblem:
    source: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}: {self.reason}"


Item = Union[TextRecord, InputProblem]


def decode_text(data: bytes, encoding: str = "utf-8") -> str:
    """Text in ``encoding`` (UTF-8 by default; a UTF-8 byte-order mark is dropped); ValueError saying why when
    the bytes are not such text."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise ValueError("binary file (NUL bytes), not text")
    codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    try:
        return data.decode(codec)
    except UnicodeDecodeError as error:
        name = "UTF-8" if codec == "utf-8-sig" else encoding
        raise ValueError(f"not {name} text: byte 0x{data[error.start]:02x} at offset {error.start} "
                         f"({error.reason}; --encoding names another)") from None


def check_encoding(encoding: str) -> str:
    """``encoding`` if Python knows it, else ValueError naming it."""
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"[spacy-entmem] unknown --encoding {encoding!r} (e.g. utf-8, latin-1, cp1252)") from None
    return encoding


def read_text_file(path: Path, encoding: str = "utf-8") -> Item:
    try:
        return TextRecord(str(path), decode_text(path.read_bytes(), encoding))
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return InputProblem(str(path), reason)


def read_jsonl_lines(lines: Iterable[str], source: str) -> Iterator[Item]:
    """One document per line: ``{"id": ..., "text": ...}``; ``id`` defaults to ``source:line``."""
    for number, line in enumerate(lines, start=1):
        where = f"{source}:{number}"
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            yield InputProblem(where, f"not valid JSON ({error.msg} at column {error.colno})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            yield InputProblem(where, 'expected an object with a string "text" field')
            continue
        doc_id = record.get("id", where)
        yield TextRecord(str(doc_id), record["text"])


def read_jsonl_file(path: Path, encoding: str = "utf-8") -> Iterator[Item]:
    try:
        lines = decode_text(path.read_bytes(), encoding).splitlines()
    except (OSError, ValueError) as error:
        yield InputProblem(str(path), getattr(error, "strerror", None) or str(error))
        return
    yield from read_jsonl_lines(lines, str(path))


def expand_source(source: str, pattern: str) -> Iterator[Union[Path, InputProblem]]:
    """The files a command-line source names: the file itself, a folder's files matching ``pattern``
    (recursive with ``**``), or the matches of a quoted glob."""
    path = Path(source)
    if path.is_dir():
        matches = sorted(p for p in path.glob(pattern) if p.is_file())
        if not matches:
            yield InputProblem(source, f"folder holds no file matching {pattern!r}")
        yield from matches
    elif path.exists():
        yield path
    elif glob.has_magic(source):
        matches = sorted(Path(p) for p in glob.glob(source, recursive=True) if Path(p).is_file())
        if not matches:
            yield InputProblem(source, "no file matches this pattern")
        yield from matches
    else:
        yield InputProblem(source, "no such file or folder")


def read_inputs(sources: Iterable[str], pattern: str = "**/*.txt", stdin: Optional[IO[str]] = None,
                encoding: str = "utf-8") -> Iterator[Item]:
    """Every document of every source, in order; ``-`` reads JSONL from stdin. Files are read in ``encoding``.
    A document id seen before is a problem (resuming relies on unique ids)."""
    seen: Set[str] = set()
    for source in sources:
        if source == "-":
            items: Iterable[Item] = read_jsonl_lines(stdin if stdin is not None else sys.stdin, "<stdin>")
        else:
            items = _read_paths(expand_source(source, pattern), encoding)
        for item in items:
            if isinstance(item, TextRecord):
                if item.id in seen:
                    yield InputProblem(item.id, "duplicate document id (already read from an earlier input)")
                    continue
                seen.add(item.id)
            yield item


def _read_paths(paths: Iterable[Union[Path, InputProblem]], encoding: str = "utf-8") -> Iterator[Item]:
    for path in paths:
        if isinstance(path, InputProblem):
            yield path
        elif path.suffix.lower() in JSONL_SUFFIXES:
            yield from read_jsonl_file(path, encoding)
        else:
            yield read_text_file(path, encoding)


def count_documents(sources: Iterable[str], pattern: str = "**/*.txt") -> Optional[int]:
    """How many documents the sources hold when that is known without reading them (text files and folders of
    them), for a progress bar's total; None when a JSONL file or stdin is among them."""
    total = 0
    for source in sources:
        if source == "-":
            return None
        for path in expand_source(source, pattern):
            if isinstance(path, Path) and path.suffix.lower() in JSONL_SUFFIXES:
                return None
            total += 1
    return total
