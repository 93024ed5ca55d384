"""Writing annotated documents as they come: JSONL, CoNLL-2012, or a folder of ``.spacy`` shards.

Each writer knows which documents it already holds (``is_done``), so re-running the same command skips
them. A document half written by an interrupted run (a last JSONL line without its newline, a CoNLL
document without ``#end document``, a shard without its ``.ids`` file) is dropped and written again.
"""
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Set

from spacy.tokens import Doc, DocBin, Span
from spacy.vocab import Vocab

from ..pipeline.attributes import coref_clusters, coref_mentions, coref_resolved
from ..corpora.conll2012 import write_document
from ..linguistics.sentences import sentence_lengths

FORMATS = ("jsonl", "conll", "spacy")
DOC_ID_KEY = "entmem_id"


def output_format(path: Path, requested: str = "") -> str:
    """The format named by ``requested``, else by the path: ``.jsonl``, ``.conll`` or a folder/``.spacy``."""
    if requested:
        if requested not in FORMATS:
            raise ValueError(f"[spacy-entmem] unknown output format {requested!r}; choose from {list(FORMATS)}")
        return requested
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".conll", ".gold_conll", ".conll2012"):
        return "conll"
    if suffix == ".spacy":
        raise ValueError(f"[spacy-entmem] {path}: DocBin output is a folder of .spacy shards (streamed, so "
                         "a corpus never sits in memory); give a folder name without a suffix")
    if suffix == "":
        return "spacy"
    raise ValueError(f"[spacy-entmem] {path}: cannot tell the output format from the suffix {suffix!r}; "
                     f"use .jsonl, .conll, a folder (DocBin shards), or --format")


def mention_record(span: Span) -> Dict[str, Any]:
    return {"text": span.text, "start_char": span.start_char, "end_char": span.end_char,
            "start": span.start, "end": span.end}


def doc_record(doc_id: str, doc: Doc) -> Dict[str, Any]:
    """What the JSONL output holds per document: character and token offsets (end exclusive)."""
    mentions = coref_mentions(doc)
    return {
        "id": doc_id,
        "n_tokens": len(doc),
        "clusters": [[mention_record(span) for span in group] for group in coref_clusters(doc)],
        "mentions": [mention_record(span) for span in mentions] if mentions is not None else [],
        "resolved": coref_resolved(doc),
    }


class AppendingWriter:
    """One text file, appended to; ``_complete_ids`` reads what a previous run finished (cutting off a
    torn tail) and ``_key`` maps a document id to how the file names it."""

    def __init__(self, path: Path):
        self.path = path
        self._done = set(self._complete_ids(path)) if path.exists() else set()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", encoding="utf8")

    def _complete_ids(self, path: Path) -> List[str]:
        raise NotImplementedError

    def _key(self, doc_id: str) -> str:
        return doc_id

    def _write(self, doc_id: str, doc: Doc) -> None:
        raise NotImplementedError

    def is_done(self, doc_id: str) -> bool:
        return self._key(doc_id) in self._done

    def write(self, doc_id: str, doc: Doc) -> None:
        self._write(doc_id, doc)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class JsonlWriter(AppendingWriter):
    def _complete_ids(self, path: Path) -> List[str]:
        return _keep_complete_lines(path)

    def _write(self, doc_id: str, doc: Doc) -> None:
        self._file.write(json.dumps(doc_record(doc_id, doc), ensure_ascii=False) + "\n")


def _keep_complete_lines(path: Path) -> List[str]:
    """Ids of the complete records already in ``path``; a torn last line is cut off."""
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    ids = []
    for number, line in enumerate(data[:keep].decode("utf8").splitlines(), start=1):
        try:
            ids.append(str(json.loads(line)["id"]))
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ValueError(f"[spacy-entmem] {path}:{number}: not a record this command wrote; "
                             "choose another output file") from None
    if keep < len(data):
        with path.open("r+b") as file:
            file.truncate(keep)
    return ids


def conll_name(doc_id: str) -> str:
    """A CoNLL-2012 document name: the id with white space replaced (the format splits on it)."""
    return re.sub(r"\s", "_", doc_id) or "_"


BEGIN = re.compile(r"#begin document \((.*)\); part \d+$")


class ConllWriter(AppendingWriter):
    def _complete_ids(self, path: Path) -> List[str]:
        return _keep_complete_documents(path)

    def _key(self, doc_id: str) -> str:
        return conll_name(doc_id)

    def _write(self, doc_id: str, doc: Doc) -> None:
        words = [re.sub(r"\s", "_", token.text) for token in doc]
        clusters = [[(span.start, span.end) for span in group] for group in coref_clusters(doc)]
        write_document(self._file, conll_name(doc_id), words, sentence_lengths(doc), clusters)


def _keep_complete_documents(path: Path) -> List[str]:
    """Names of the documents ``path`` holds up to their ``#end document``; a torn last one is cut off."""
    names, keep, offset, current = [], 0, 0, None
    with path.open("rb") as file:
        for raw in file:
            offset += len(raw)
            line = raw.decode("utf8").rstrip("\n")
            match = BEGIN.match(line)
            if match:
                current = match.group(1)
            elif line == "#end document" and current is not None and raw.endswith(b"\n"):
                names.append(current)
                keep, current = offset, None
    if keep < path.stat().st_size:
        with path.open("r+b") as file:
            file.truncate(keep)
    return names


class DocBinShards:
    """``part-00000.spacy`` … of ``shard_size`` docs each (a folder spaCy's corpus reader takes as is),
    each committed by its ``.ids`` file (one id per line), written after the shard."""

    def __init__(self, folder: Path, shard_size: int = 1000):
        if shard_size < 1:
            raise ValueError(f"[spacy-entmem] shard size must be >= 1, got {shard_size}")
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"[spacy-entmem] {folder}: DocBin output must be a folder (it holds shards)")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.shard_size = folder, shard_size
        self._done: Set[str] = set()
        committed = sorted(folder.glob("part-*.ids"))
        for ids in committed:
            self._done.update(line for line in ids.read_text(encoding="utf8").splitlines() if line)
        for shard in folder.glob("part-*.spacy"):
            if not shard.with_suffix(".ids").exists():
                shard.unlink()
        self._next = 1 + max((int(p.stem.split("-")[1]) for p in committed), default=-1)
        self._docs: List[Doc] = []
        self._ids: List[str] = []

    def is_done(self, doc_id: str) -> bool:
        return one_line(doc_id) in self._done

    def write(self, doc_id: str, doc: Doc) -> None:
        doc.user_data[DOC_ID_KEY] = doc_id
        self._docs.append(doc)
        self._ids.append(doc_id)
        if len(self._docs) >= self.shard_size:
            self._flush()

    def _flush(self) -> None:
        if not self._docs:
            return
        stem = self.folder / f"part-{self._next:05d}"
        DocBin(docs=self._docs, store_user_data=True).to_disk(stem.with_suffix(".spacy"))
        stem.with_suffix(".ids").write_text("".join(one_line(i) + "\n" for i in self._ids),
                                            encoding="utf8")
        self._done.update(self._ids)
        self._next += 1
        self._docs, self._ids = [], []

    def close(self) -> None:
        self._flush()


def one_line(doc_id: str) -> str:
    return doc_id.replace("\r", " ").replace("\n", " ")


def read_shards(folder: Path, vocab: Vocab) -> List[Doc]:
    """Every doc of a shard folder, in order, with its id in ``doc.user_data["entmem_id"]``."""
    docs: List[Doc] = []
    for shard in sorted(folder.glob("part-*.spacy")):
        docs.extend(DocBin().from_disk(shard).get_docs(vocab))
    return docs


def open_writer(path: Path, fmt: str = "", shard_size: int = 1000):
    fmt = output_format(path, fmt)
    if fmt == "jsonl":
        return JsonlWriter(path)
    if fmt == "conll":
        return ConllWriter(path)
    return DocBinShards(path, shard_size)
