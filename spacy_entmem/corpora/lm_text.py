"""Raw text for the language-model objective: the training splits of LitBank, GUM and GAP as unannotated
docs, cut at sentence boundaries into chunks of at most ``max_tokens`` tokens.

Only training splits are read (LitBank fold-0 train, GUM train, GAP development), so pre-training
never sees a text that is later evaluated on.
"""
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List

from spacy.language import Language
from spacy.tokens import Doc

from .gap import read_gap_rows

Sentence = List[str]


@dataclass
class CorpusCounts:
    docs: Dict[str, int] = field(default_factory=dict)
    tokens: Dict[str, int] = field(default_factory=dict)
    chunks: int = 0

    def add(self, source: str, tokens: int) -> None:
        self.docs[source] = self.docs.get(source, 0) + 1
        self.tokens[source] = self.tokens.get(source, 0) + tokens

    def summary(self) -> str:
        parts = [f"{name}: {self.docs[name]} docs, {self.tokens[name]:,} tokens" for name in self.docs]
        return "; ".join(parts) + f" -> {self.chunks} chunks"


def litbank_texts(litbank_dir: Path, fold: int = 0, split: str = "train") -> Iterator[List[Sentence]]:
    """Sentences of the LitBank texts of one split (coref/tsv/<name>.txt: one sentence per line)."""
    ids_path = litbank_dir / "splits" / "lrec2020_tenfold" / str(fold) / f"{split}.ids"
    for line in ids_path.read_text(encoding="utf8").split():
        path = litbank_dir / "coref" / "tsv" / (line[: -len(".tsv")] + ".txt")
        if not path.exists():
            raise ValueError(f"[spacy-entmem] {ids_path}: listed text {path} does not exist")
        yield [s.split(" ") for s in path.read_text(encoding="utf8").splitlines() if s.strip()]


def gum_texts(gum_dir: Path, split: str = "train") -> Iterator[List[Sentence]]:
    """Sentences of the GUM docs of one split: tokens from coref/gum/conll, sentence lengths from
    doc_manifest.tsv."""
    manifest = gum_dir / "doc_manifest.tsv"
    with manifest.open(encoding="utf8", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["split"] == split]
    for row in rows:
        path = gum_dir / "coref" / "gum" / "conll" / f"{row['doc_id']}.conll"
        tokens = []
        for number, line in enumerate(path.read_text(encoding="utf8").splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            columns = line.split("\t")
            if len(columns) < 2:
                raise ValueError(f"[spacy-entmem] {path}:{number}: expected 'index<TAB>token<TAB>coref', got {line!r}")
            tokens.append(columns[1])
        lengths = [int(n) for n in row["sentence_lengths"].split(",")]
        if sum(lengths) != len(tokens):
            raise ValueError(f"[spacy-entmem] {path}: {len(tokens)} tokens but {manifest} gives {sum(lengths)}")
        sentences, start = [], 0
        for n in lengths:
            sentences.append(tokens[start: start + n])
            start += n
        yield sentences


def chunk_sentences(sentences: Iterable[Sentence], max_tokens: int) -> Iterator[Sentence]:
    """Group whole sentences into chunks of at most max_tokens (a longer sentence is cut)."""
    chunk: Sentence = []
    for sentence in sentences:
        while len(sentence) > max_tokens:
            if chunk:
                yield chunk
                chunk = []
            yield sentence[:max_tokens]
            sentence = sentence[max_tokens:]
        if len(chunk) + len(sentence) > max_tokens:
            yield chunk
            chunk = []
        chunk = chunk + sentence
    if chunk:
        yield chunk


def build_lm_corpus(nlp: Language, litbank_dir: Path, gum_dir: Path, gap_tsv: Path,
                    max_tokens: int = 128) -> "tuple[List[Doc], CorpusCounts]":
    if max_tokens < 1:
        raise ValueError(f"[spacy-entmem] max_tokens must be >= 1, got {max_tokens}")
    counts = CorpusCounts()
    docs: List[Doc] = []
    sources = [("litbank", litbank_texts(litbank_dir)), ("gum", gum_texts(gum_dir))]
    for name, texts in sources:
        for sentences in texts:
            counts.add(name, sum(len(s) for s in sentences))
            for words in chunk_sentences(sentences, max_tokens):
                docs.append(Doc(nlp.vocab, words=[w or "_" for w in words]))
    for row in read_gap_rows(gap_tsv):
        doc = nlp.make_doc(row.text)
        counts.add("gap", len(doc))
        docs.append(doc)
    counts.chunks = len(docs)
    return docs, counts
