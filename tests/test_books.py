"""A book as a stream: chapters, the entity CSV and the chart."""
import csv
from pathlib import Path

import pytest

import spacy_entmem
from spacy_entmem.books import (Boilerplate, Chapter, gutenberg_body, plot_entity_chart, read_book, split_chapters,
                                write_entities_csv)

BOOK = Path(spacy_entmem.__file__).parent / "samples" / "books" / "pride_and_prejudice.txt"
TEXT = "Title page\n\nCHAPTER I\nAnna met Ben.\n\nCHAPTER II\nBen wrote to Anna.\nShe answered him.\n"


def test_chapters_start_at_the_lines_the_pattern_matches():
    chapters = split_chapters(TEXT, r"CHAPTER [IVX]+")
    assert [c.title for c in chapters] == ["front matter", "CHAPTER I", "CHAPTER II"]
    assert "".join(c.text for c in chapters) == TEXT  # nothing is lost
    assert [c.title for c in split_chapters(TEXT[len("Title page\n\n"):], r"CHAPTER [IVX]+")] == ["CHAPTER I", "CHAPTER II"]
    with pytest.raises(ValueError, match="matches no line"):  # only at a line's start
        split_chapters("x CHAPTER I\nfoo", "CHAPTER I")


GUTENBERG = ("The Project Gutenberg EBook of X\n\nTitle: X\n\n*** START OF THIS PROJECT GUTENBERG EBOOK X ***\n\n"
             "CHAPTER I\nAnna met Ben.\n\nEnd of Project Gutenberg's X\n\n*** END OF THIS PROJECT GUTENBERG EBOOK X ***\n"
             "\nProject Gutenberg volunteers and Michael Hart wrote it.\n")


def test_a_project_gutenberg_file_is_its_book_without_the_header_and_licence():
    body, left_out = gutenberg_body(GUTENBERG)
    assert body == "\n\nCHAPTER I\nAnna met Ben.\n\n"
    assert (left_out.header_lines, left_out.licence_lines) == (5, 5)
    assert gutenberg_body("CHAPTER I\nAnna met Ben.") == ("CHAPTER I\nAnna met Ben.", Boilerplate())
    assert not gutenberg_body("No markers.")[1]
    # the newer marker ("THE", "eBook"), and a start marker only
    body, left_out = gutenberg_body("Header\n*** START OF THE PROJECT GUTENBERG eBOOK Y ***\nText.\n")
    assert body == "\nText.\n" and (left_out.header_lines, left_out.licence_lines) == (2, 0)


def test_without_headings_paragraphs_are_grouped_into_pieces():
    text = "\n\n".join(f"Paragraph {k} has five words." for k in range(10))
    pieces = split_chapters(text, None, piece_words=12)
    assert [c.title for c in pieces] == [f"part {k}" for k in range(1, 6)]
    assert all(len(c.text.split()) == 10 for c in pieces)  # two paragraphs each: a paragraph is never split


def test_bad_chapter_patterns_say_what_is_wrong():
    with pytest.raises(ValueError, match="not a valid regular expression"):
        split_chapters(TEXT, "CHAPTER [")
    with pytest.raises(ValueError, match="matches no line"):
        split_chapters(TEXT, "PART [0-9]+")
    with pytest.raises(ValueError, match="piece_words must be at least 1"):
        split_chapters(TEXT, None, 0)


def test_a_book_is_read_as_one_stream_with_its_csv_and_chart(tmp_path):
    nlp = spacy_entmem.load_default()
    chapters = split_chapters(BOOK.read_text(encoding="utf8"), r"CHAPTER \d+")
    assert [c.title for c in chapters] == ["CHAPTER 1", "CHAPTER 2"]
    reader, starts = read_book(nlp, chapters)
    assert starts[0] == 0 and starts[1] == len(nlp.make_doc(chapters[0].text))
    entities = reader.entities()
    across = [e for e in entities if e.first[0] == 0 and e.last[0] == 1]
    assert across, "no entity of chapter 1 is mentioned again in chapter 2"
    write_entities_csv(entities, tmp_path / "book.csv", chapters)
    with open(tmp_path / "book.csv", encoding="utf8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(entities) and rows[0]["name"] == entities[0].name
    assert {rows[0]["first_chapter"], rows[0]["last_chapter"]} <= {"CHAPTER 1", "CHAPTER 2"}
    shown = plot_entity_chart(entities, tmp_path / "book.png", starts, [c.title for c in chapters], top=5)
    assert shown == [e.name for e in entities[:5]]
    assert (tmp_path / "book.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no entities to chart"):
        plot_entity_chart([], tmp_path / "none.png")


def test_a_table_of_contents_and_empty_chapters_stay_with_the_text_before_them():
    text = ("Contents\nChapter 1 Away\n\nChapter 2 Home\n\nChapter 1 Away\nAnna left.\n\nChapter 2 Home\n\n"
            "Chapter 3 Back\nBen came.\n")
    chapters = split_chapters(text, r"Chapter \d+ ", min_words=1)
    assert [c.title for c in chapters] == ["front matter", "Chapter 1 Away", "Chapter 3 Back"]
    long = text.replace("Anna left.", "Anna left. " * 20)  # 40 words: "Ben came." (2) is no chapter of its own
    assert [c.title for c in split_chapters(long, r"Chapter \d+ ")] == ["front matter", "Chapter 1 Away"]
    assert "".join(c.text for c in chapters) == text  # nothing is lost
    assert chapters[1].text.endswith("Chapter 2 Home\n\n")  # the empty chapter's heading stays before the next
    with pytest.raises(ValueError, match="no heading it matches has text after it"):
        split_chapters("Chapter 1 A\nChapter 2 B\n", r"Chapter \d+ ", min_words=1)


def test_mis_decoded_punctuation_and_letters_are_put_back():
    from spacy_entmem.books import repair_mojibake

    text = "Marseilles\u00e2\u20ac\u201dThe Arrival. \u00e2\u20ac\u0153Yes,\u00e2\u20ac\u009d said Morrel; caf\u00c3\u00a9."
    assert repair_mojibake(text) == ("Marseilles—The Arrival. “Yes,” said Morrel; café.", 4)
    assert repair_mojibake("plain text — already right") == ("plain text — already right", 0)


def test_the_chart_counts_mentions_chapter_by_chapter():
    from spacy_entmem.books import chapter_counts
    from spacy_entmem.pipeline.entities import MentionRecord, summarise

    records = [MentionRecord(0, chapter, 0, 1, 0, "Jo", "name", 2, 1, "person") for chapter in (0, 0, 2)]
    assert chapter_counts([summarise(0, records)], 4).tolist() == [[2, 0, 1, 0]]


@pytest.mark.corpus  # the shared novels: ENTMEM_DATA=../shared/data
def test_little_women_lists_each_sister_once_and_keeps_the_march_elders_apart():
    from tests.conftest import DATA

    from spacy_entmem.evaluation.character_keys import load_key, score_entities

    key = load_key(Path(__file__).parent / "fixtures" / "data" / "books" / "little_women.json")
    chapters = split_chapters((DATA / "novels" / key.book).read_text(encoding="utf8"), key.chapters)[:3]
    reader, _ = read_book(spacy_entmem.load_default(), chapters)  # the front matter and chapters one and two
    people = reader.entities("person")
    names = [entity.name for entity in people]
    for sister in ("Jo", "Meg", "Beth", "Amy"):
        assert names.count(sister) == 1, (sister, names[:20])
    rows = {entity.name: entity for entity in people}
    assert "Mrs. March" in rows and not {"Meg", "Jo", "Amy"} & set(rows["Mrs. March"].aliases)
    score = score_entities(people, key, main=("Jo", "Meg", "Beth", "Amy"))
    assert all(c.largest_share > 0.5 for c in score.characters) and len(score.merged) <= 1
    raw = reader.entities("person", merge_characters=False)
    assert len(raw) > len(people)  # the table merged some of the memory's entities into characters


def test_a_chapter_longer_than_the_pipeline_reads_is_cut_into_pieces_and_nothing_is_lost():
    from spacy_entmem.books import Chapter, fit_chapters

    paragraphs = "\n\n".join("word " * 30 for _ in range(6))  # six paragraphs of 150 characters
    chapters = [Chapter("CHAPTER 1", "short"), Chapter("CHAPTER 2", paragraphs), Chapter("CHAPTER 3", "x " * 400)]
    fitted = fit_chapters(chapters, max_chars=400, piece_words=60)
    assert [c.title for c in fitted][:3] == ["CHAPTER 1", "CHAPTER 2 (part 1)", "CHAPTER 2 (part 2)"]
    assert all(len(c.text) <= 400 for c in fitted)
    words = lambda cs: " ".join(c.text for c in cs).split()  # noqa: E731
    assert words(fitted) == words(chapters)  # every word read once (a paragraph of 800 characters: cut at spaces)


def test_a_heading_that_names_the_narrator_makes_them_the_speaker_of_the_chapter():
    from spacy_entmem.books import Chapter, chapter_speakers, heading_narrator

    assert heading_narrator(Chapter("16", "16\n\nNarrative Continued by the Doctor: How the Ship Was Abandoned\n\nIT "
                                          "was")) == ("the Doctor", False)
    assert heading_narrator(Chapter("19", "19\n\nNarrative Resumed by Jim Hawkins: The Garrison\n")) == (
        "Jim Hawkins", True)
    assert heading_narrator(Chapter("III", "CHAPTER III\nESTHER'S NARRATIVE\n\nI have")) == ("Esther", False)
    assert heading_narrator(Chapter("2", "Chapter 2\nWhat Was Told by the fire\n\nI went")) is None
    assert heading_narrator(Chapter("5", "TOLD BY NELLY DEAN\n")) == ("Nelly Dean", False)
    # the narrator's name must hold a capitalised word: no narrator is "the fire" or "the captain"
    assert heading_narrator(Chapter("6", "Told by the fire\n")) is None
    assert heading_narrator(Chapter("7", "the captain's journal\n")) is None
    assert heading_narrator(Chapter("4", "CHAPTER 4\n\nThe Boy\n\nHe said he was told by Nelly Dean")) is None
    chapters = [Chapter(str(k), f"{k}\n\n{heading}\n\nI went.") for k, heading in enumerate(
        ["The Inn", "Narrative Continued by the Doctor", "Narrative Resumed by Jim Hawkins", "The Island"])]
    # "resumed by" names the book's own narrator: the chapters no heading names are Jim's
    assert chapter_speakers(chapters) == ["Jim Hawkins", "the Doctor", "Jim Hawkins", "Jim Hawkins"]
    assert chapter_speakers(chapters[:2]) == [None, "the Doctor"]


def test_a_chapter_told_by_another_narrator_keeps_its_i_apart_from_the_books_narrator():
    nlp = spacy_entmem.load_default()
    chapters = [Chapter("1", "1\n\nThe Inn\n\nI met Anna Smith at the inn. I liked her."),
                Chapter("2", "2\n\nNarrative Continued by Anna Smith\n\nI left the inn early. I walked home.")]
    reader, _ = read_book(nlp, chapters)
    rows = {row.name: row for row in reader.entities("person")}
    anna = rows["Anna Smith"]
    narrator = next(row for row in rows.values() if row is not anna and any(
        m.text == "I" for m in row.mentions))
    assert [m.text for m in anna.mentions if m.text == "I"] == ["I", "I"]  # chapter 2's two I's are Anna's
    assert [m.text for m in narrator.mentions if m.text == "I"] == ["I", "I"]  # chapter 1's stay the narrator's
