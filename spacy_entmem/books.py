"""A book as a stream: its chapters (or pieces of paragraphs) read one after the other by a ``Reader``, its
entities as a CSV table, and a chart of where the main ones appear (``entmem entities``)."""
import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from spacy.language import Language

from .pipeline.entities import Entity
from .reader import Reader

DEFAULT_PIECE_WORDS = 2000  # without chapter headings, paragraphs are grouped into pieces of about this many words


@dataclass
class Chapter:
    """A piece of the book: its title (the heading line, or "part N") and its text."""

    title: str
    text: str


def split_chapters(text: str, pattern: Optional[str] = None, piece_words: int = DEFAULT_PIECE_WORDS) -> List[Chapter]:
    """The book's chapters: with ``pattern`` (a regular expression matched at the start of a line, e.g.
    ``"CHAPTER [IVXLC]+"``), a new chapter at each line that matches (text before the first is a chapter of its
    own if it holds any words); else paragraphs (split at blank lines) grouped into pieces of about
    ``piece_words`` words. An invalid pattern or one that matches no line is an error that says so."""
    if pattern:
        try:
            heading = re.compile(pattern, re.MULTILINE)
        except re.error as error:
            raise ValueError(f"[spacy-entmem] --chapters {pattern!r} is not a valid regular expression: {error}") from error
        starts = [match.start() for match in heading.finditer(text)
                  if match.start() == 0 or text[match.start() - 1] == "\n"]
        if not starts:
            raise ValueError(f"[spacy-entmem] --chapters {pattern!r} matches no line of the text")
        bounds = ([0] if text[:starts[0]].strip() else []) + starts + [len(text)]
        chapters = []
        for start, end in zip(bounds, bounds[1:]):
            body = text[start:end]
            title = body.strip().splitlines()[0].strip() if body.strip() else ""
            chapters.append(Chapter(title if start in starts else "front matter", body))
        return chapters
    if piece_words < 1:
        raise ValueError(f"[spacy-entmem] piece_words must be at least 1, got {piece_words}")
    pieces, current, words = [], [], 0
    for paragraph in re.split(r"\n\s*\n", text):
        if current and words + len(paragraph.split()) > piece_words:
            pieces.append("\n\n".join(current))
            current, words = [], 0
        current.append(paragraph)
        words += len(paragraph.split())
    if current and any(part.strip() for part in current):
        pieces.append("\n\n".join(current))
    return [Chapter(f"part {k}", piece) for k, piece in enumerate(pieces, start=1)]


def read_book(nlp: Language, chapters: Sequence[Chapter], batch_size: int = 4) -> Tuple[Reader, List[int]]:
    """A ``Reader`` that has read the chapters as one stream (its ``entities()`` are the book's), and the
    position (tokens into the stream) where each chapter starts."""
    reader = Reader(nlp)
    starts = []
    for doc in reader.pipe((chapter.text for chapter in chapters), batch_size=batch_size):
        starts.append(reader.tokens_read - len(doc))
    return reader, starts


CSV_FIELDS = ("entity_id", "name", "kind", "gender", "number", "mentions", "names", "nominals", "pronouns",
              "first_text", "first_token", "last_text", "last_token", "aliases")


def write_entities_csv(entities: Sequence[Entity], path: Path, chapters: Optional[Sequence[Chapter]] = None) -> None:
    """One row per entity (``Entity.as_row``); with ``chapters``, the chapter titles of the first and last
    mention too."""
    fields = list(CSV_FIELDS) + (["first_chapter", "last_chapter"] if chapters is not None else [])
    with open(path, "w", encoding="utf8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=fields)
        writer.writeheader()
        for entity in entities:
            row = entity.as_row()
            if chapters is not None:
                row["first_chapter"] = chapters[entity.first[0]].title
                row["last_chapter"] = chapters[entity.last[0]].title
            writer.writerow(row)


def plot_entity_chart(entities: Sequence[Entity], path: Path, chapter_starts: Sequence[int] = (),
                      chapter_titles: Sequence[str] = (), top: int = 12, title: str = "") -> List[str]:
    """Where each of the ``top`` most mentioned entities appears across the text: one row per entity, a tick at
    each mention's position in the stream (tokens), chapters marked by vertical lines. Returns the rows' names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = list(entities)[:top]
    if not shown:
        raise ValueError("[spacy-entmem] no entities to chart")
    end = max(mention.offset + mention.end for entity in shown for mention in entity.mentions)
    end = max([end] + [start + 1 for start in chapter_starts])
    figure, axes = plt.subplots(figsize=(11, 0.45 * len(shown) + 1.6))
    for row, entity in enumerate(shown):
        positions = [mention.stream_start for mention in entity.mentions]
        axes.scatter(positions, [row] * len(positions), marker="|", s=160, linewidths=1.2)
    for k, start in enumerate(chapter_starts):
        axes.axvline(start, color="0.75", linewidth=0.8, zorder=0)
        if k < len(chapter_titles) and len(chapter_starts) <= 40:
            axes.text(start, len(shown) + 0.8, f" {chapter_titles[k][:18]}", fontsize=7, color="0.4")
    labels = [f"{entity.name[:28]} ({entity.kind}, {entity.n_mentions})" for entity in shown]
    axes.set_yticks(range(len(shown)), labels)
    axes.set_ylim(len(shown) + 0.9, -0.7)
    axes.set_xlim(0, end)
    axes.set_xlabel("position in the text (tokens)")
    axes.set_title(title or "Where the main entities appear")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return [entity.name for entity in shown]
