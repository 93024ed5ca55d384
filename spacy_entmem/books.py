"""A book as a stream: its chapters (or pieces of paragraphs) read one after the other by a ``Reader``, its
entities as a CSV table, and a chart of where the main ones appear (``entmem entities``)."""
import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.language import Language

from .pipeline.entities import Entity
from .reader import Reader

MIN_CHAPTER_WORDS = 20  # a heading with fewer words after it is a table-of-contents line, not a chapter
DEFAULT_PIECE_WORDS = 2000  # without chapter headings, paragraphs are grouped into pieces of about this many words


@dataclass
class Chapter:
    """A piece of the book: its title (the heading line, or "part N") and its text."""

    title: str
    text: str


def split_chapters(text: str, pattern: Optional[str] = None, piece_words: int = DEFAULT_PIECE_WORDS,
                   min_words: int = MIN_CHAPTER_WORDS) -> List[Chapter]:
    """The book's chapters: with ``pattern`` (a regular expression matched at the start of a line, e.g.
    ``"CHAPTER [IVXLC]+"``), a new chapter at each line that matches and has at least ``min_words`` words before
    the next such line, or a quarter of the longest chapter's words if fewer, at least one (headings with fewer
    between them, a table of contents, an empty chapter or "VOLUME THREE", stay with the text before them; text
    before the first chapter is a chapter of its own if it holds any words); else paragraphs (split at blank
    lines) grouped into pieces of about ``piece_words`` words. Nothing is lost: the chapters' texts joined are
    the text. An invalid pattern or one that matches no line is an error that says so."""
    if pattern:
        try:
            heading = re.compile(pattern, re.MULTILINE)
        except re.error as error:
            raise ValueError(f"[spacy-entmem] --chapters {pattern!r} is not a valid regular expression: {error}") from error
        found = [match.start() for match in heading.finditer(text)
                 if match.start() == 0 or text[match.start() - 1] == "\n"]
        if not found:
            raise ValueError(f"[spacy-entmem] --chapters {pattern!r} matches no line of the text")
        words = [len(_body(text[start:following]).split()) for start, following in zip(found, found[1:] + [len(text)])]
        least = max(1, min(min_words, max(words) // 4))  # (a short text's chapters are short: a quarter of its longest)
        starts = [start for start, count in zip(found, words) if count >= least]
        if not starts:
            raise ValueError(f"[spacy-entmem] --chapters {pattern!r}: no heading it matches has text after it")
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


# a heading that names who tells the chapter in the first person, read in a chapter's first lines: "Narrative
# Continued by the Doctor", "Told by Nelly Dean", "Esther's Narrative", "Jonathan Harker's Journal"; the narrator
# named must hold a capitalised word ("the Doctor", not "What Was Told by the fire")
WHO = r"(?P<who>(?:[Tt]he |[Mm]y )?[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,3})"
NARRATOR_HEADINGS = (  # (the words of the heading in any case, the narrator's name as written)
    re.compile(r"\b(?i:(?:narrative|story|tale|account)\s+(?P<how>continued|resumed|begun|told|related|written)\s+by)"
               r"\s+" + WHO),
    re.compile(r"^(?i:(?P<how>told|related|narrated)\s+by)\s+" + WHO),
    re.compile(r"^" + WHO + r"['’][sS]\s+(?i:narrative|journal|diary|statement)\b"),
)
HEADING_LINES = 3  # the lines of a chapter (blank ones skipped) where a narrator's heading is looked for


def heading_narrator(chapter: Chapter) -> Optional[Tuple[str, bool]]:
    """Who a chapter's heading says tells it ("Narrative Continued by the Doctor: How the Ship Was Abandoned" →
    "the Doctor"), and whether the heading says the narration goes back to them ("Narrative Resumed by Jim
    Hawkins"); None for a chapter whose first ``HEADING_LINES`` lines name no narrator."""
    lines = [line.strip() for line in chapter.text.splitlines() if line.strip()][:HEADING_LINES]
    for line in lines:
        for pattern in NARRATOR_HEADINGS:
            match = pattern.search(line)
            if match:
                who = " ".join(match.group("who").split())
                return who.title() if who.isupper() else who, (match.groupdict().get("how") or "").lower() == "resumed"
    return None


def chapter_speakers(chapters: Sequence[Chapter]) -> List[Optional[str]]:
    """Per chapter, who says its unquoted I (``Reader.pipe``'s speakers): the narrator its heading names
    (``heading_narrator``); in a book where a heading says the narration is resumed by someone, that narrator also
    for the chapters whose heading names nobody (the book's own narrator, whom the other headings interrupt);
    else None (an unnamed narrator, as without headings)."""
    named = [heading_narrator(chapter) for chapter in chapters]
    resumed = next((found[0] for found in named if found is not None and found[1]), None)
    return [found[0] if found is not None else resumed for found in named]


def _body(chapter: str) -> str:
    """A chapter's text without its heading line."""
    return chapter.split("\n", 1)[1] if "\n" in chapter else ""


# Project Gutenberg's markers around a book's text ("*** START OF THIS PROJECT GUTENBERG EBOOK LITTLE WOMEN ***", "***
# END OF THE PROJECT GUTENBERG EBOOK …", or the line "End of Project Gutenberg's …" before it): before the first is
# the header, from the second on the licence
GUTENBERG_START = re.compile(r"^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK.*$", re.MULTILINE | re.IGNORECASE)
GUTENBERG_END = re.compile(r"^(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK|End of (?:the )?Project "
                           r"Gutenberg)", re.MULTILINE | re.IGNORECASE)


@dataclass
class Boilerplate:
    """What ``gutenberg_body`` left out: the lines of the header before the start marker and of the licence from
    the end marker on (0 where there is none)."""

    header_lines: int = 0
    licence_lines: int = 0

    def __bool__(self) -> bool:
        return bool(self.header_lines or self.licence_lines)


def gutenberg_body(text: str) -> Tuple[str, Boilerplate]:
    """A Project Gutenberg file's book without the header before its start marker (the marker line included) and
    the licence from its end marker on, and how many lines each was; a text without the markers is returned as it
    is. The licence names "Project Gutenberg" and its volunteers as people and places; the header, the book's title
    and author."""
    start = GUTENBERG_START.search(text)
    begin = start.end() if start else 0
    end = GUTENBERG_END.search(text, begin)
    finish = end.start() if end else len(text)
    return text[begin:finish], Boilerplate(len(text[:begin].splitlines()), len(text[finish:].splitlines()))


MOJIBAKE = re.compile("[\u00c2\u00c3\u00c5\u00e2][\u0080-\u00bf\u0152-\u0178\u02c6-\u02dc\u2013-\u2122]{1,2}")


def repair_mojibake(text: str) -> Tuple[str, int]:
    """UTF-8 punctuation and letters that were decoded as cp1252 once ("â€”" → "—", "Ã©" → "é"), put back; and how
    many were. Sequences that do not decode stay as they are."""
    repaired = 0

    def fix(match: "re.Match") -> str:
        nonlocal repaired
        for end in (len(match.group()), 2):  # three bytes ("â€”"), else two ("Ã©")
            try:
                out = _cp1252_bytes(match.group()[:end]).decode("utf8") + match.group()[end:]
            except (UnicodeEncodeError, UnicodeDecodeError):
                continue
            repaired += 1
            return out
        return match.group()

    return MOJIBAKE.sub(fix, text), repaired


def _cp1252_bytes(text: str) -> bytes:
    """``text`` encoded as cp1252, the five bytes cp1252 leaves undefined (0x81, 0x8d, 0x8f, 0x90, 0x9d: decoded
    to the control characters of the same number) included."""
    return b"".join(bytes([ord(ch)]) if 0x80 <= ord(ch) <= 0x9f else ch.encode("cp1252") for ch in text)


def fit_chapters(chapters: Sequence[Chapter], max_chars: int, piece_words: int = DEFAULT_PIECE_WORDS) -> List[Chapter]:
    """The chapters, each one longer than ``max_chars`` characters (spaCy's ``nlp.max_length``) cut into pieces of
    paragraphs ("CHAPTER 9 (part 2)"), and a paragraph still too long cut at the last space before the limit."""
    fitted = []
    for chapter in chapters:
        if len(chapter.text) <= max_chars:
            fitted.append(chapter)
            continue
        pieces = []
        for piece in split_chapters(chapter.text, None, piece_words):
            text = piece.text
            while len(text) > max_chars:
                cut = text.rfind(" ", 0, max_chars)
                cut = cut if cut > 0 else max_chars
                pieces.append(text[:cut])
                text = text[cut:]
            pieces.append(text)
        fitted.extend(Chapter(f"{chapter.title} (part {k})", text) for k, text in enumerate(pieces, start=1))
    return fitted


def read_book(nlp: Language, chapters: Sequence[Chapter], batch_size: int = 4) -> Tuple[Reader, List[int]]:
    """A ``Reader`` that has read the chapters as one stream (its ``entities()`` are the book's), and the
    position (tokens into the stream) where each chapter starts. A chapter whose heading names its narrator is
    read with that narrator as its speaker (``chapter_speakers``)."""
    reader = Reader(nlp)
    starts = []
    for doc in reader.pipe((chapter.text for chapter in chapters), speakers=chapter_speakers(chapters),
                           batch_size=batch_size):
        starts.append(reader.tokens_read - len(doc))
    return reader, starts


CSV_FIELDS = ("entity_id", "name", "kind", "gender", "number", "mentions", "names", "nominals", "pronouns",
              "first_text", "first_token", "last_text", "last_token", "aliases", "entity_ids")


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
    """Where each of the ``top`` most mentioned entities appears, chapter by chapter: one row per entity, one
    cell per chapter (text of the stream), shaded by how many mentions it has there and labelled with the count.
    Returns the rows' names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = list(entities)[:top]
    if not shown:
        raise ValueError("[spacy-entmem] no entities to chart")
    n_chapters = max([len(chapter_starts), len(chapter_titles)]
                     + [mention.text_index + 1 for entity in shown for mention in entity.mentions])
    counts = chapter_counts(shown, n_chapters)
    figure, axes = plt.subplots(figsize=(min(max(7.0, 4 + 0.45 * n_chapters), 30), 0.45 * len(shown) + 1.8))
    image = axes.imshow(numpy.log1p(counts), aspect="auto", cmap="Blues", vmin=0)
    if n_chapters <= 60:
        for row, values in enumerate(counts):
            for column, count in enumerate(values):
                if count:
                    dark = image.norm(numpy.log1p(count)) > 0.6
                    axes.text(column, row, str(count), ha="center", va="center", fontsize=7,
                              color="white" if dark else "0.15")
    labels = [f"{entity.name[:28]} ({entity.kind}, {entity.n_mentions})" for entity in shown]
    axes.set_yticks(range(len(shown)), labels)
    step = max(1, n_chapters // 40)
    ticks = list(range(0, n_chapters, step))
    names = [(chapter_titles[k] if k < len(chapter_titles) else str(k + 1))[:18] for k in ticks]
    axes.set_xticks(ticks, names, rotation=60, ha="right", fontsize=7)
    axes.set_xlabel("chapter (mentions in each)")
    axes.set_title(title or "Where the main entities appear")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return [entity.name for entity in shown]


def chapter_counts(entities: Sequence[Entity], n_chapters: int) -> numpy.ndarray:
    """(entities, chapters) how many mentions each entity has in each text of the stream."""
    counts = numpy.zeros((len(entities), n_chapters), dtype=int)
    for row, entity in enumerate(entities):
        for mention in entity.mentions:
            counts[row, mention.text_index] += 1
    return counts
