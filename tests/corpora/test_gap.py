import pytest
import spacy

from spacy_entmem.corpora.gap import COLUMNS, convert_gap, convert_gap_file
from spacy_entmem.training.targets import find_gap_group, gap_spans

from ..conftest import GAP

HEADER = "\t".join(COLUMNS)
GOOD = "t-1\tAnna met Bob. She left.\tShe\t14\tAnna\t0\tTRUE\tBob\t9\tFALSE\thttp://x"


def write(tmp_path, *lines):
    path = tmp_path / "gap.tsv"
    path.write_text("\n".join([HEADER, *lines]) + "\n", encoding="utf8")
    return path


@pytest.mark.corpus
@pytest.mark.parametrize("split,count", [("development", 2000), ("validation", 454), ("test", 2000)])
def test_counts_and_spans(split, count, tmp_path):
    nlp = spacy.blank("en")
    output = tmp_path / f"{split}.spacy"
    report = convert_gap_file(nlp, GAP / f"gap-{split}.tsv", output)
    assert report.docs == count and report.spans == 3 * count
    assert output.exists()
    docs = list(spacy.tokens.DocBin().from_disk(output).get_docs(nlp.vocab))
    assert len(docs) == count
    group = find_gap_group(docs[0])
    assert group.attrs["id"] == f"{split}-1"
    spans = gap_spans(group)
    assert set(spans) == {"A", "B", "PRONOUN"}
    assert report.widened, "GAP has names that split tokens (e.g. 'Mr' in 'Mr.'); they must be reported"
    assert all("->" in item for item in report.widened)


def test_reads_a_good_row(tmp_path):
    docs, report = convert_gap(spacy.blank("en"), write(tmp_path, GOOD))
    spans = gap_spans(docs[0].spans["gap"])
    assert (spans["A"].text, spans["B"].text, spans["PRONOUN"].text) == ("Anna", "Bob", "She")
    assert docs[0].spans["gap"].attrs["A_coref"] is True and report.widened == []


def test_misaligned_span_is_widened_and_reported(tmp_path):
    row = "t-2\tI met Smith's dog. He barked.\tHe\t19\tSmith\t6\tTRUE\tdog\t14\tFALSE\tx"
    docs, report = convert_gap(spacy.blank("en"), write(tmp_path, row))
    assert len(report.widened) == 0 or "Smith" in report.widened[0]
    assert gap_spans(docs[0].spans["gap"])["A"].text.startswith("Smith")


@pytest.mark.parametrize(
    "line,message",
    [
        ("t-1\tAnna met Bob.\tShe", r"gap.tsv:2: expected 11 columns, found 3"),
        (GOOD.replace("\t14\t", "\t400\t"), r"gap.tsv:2: Pronoun-offset 400 .* outside the text"),
        (GOOD.replace("\t14\t", "\t-1\t"), r"gap.tsv:2: Pronoun-offset -1 .* outside the text"),
        (GOOD.replace("\t14\t", "\tx\t"), r"gap.tsv:2: Pronoun-offset is not an integer"),
        (GOOD.replace("\t0\tTRUE", "\t1\tTRUE"), r"gap.tsv:2: A 'Anna' is not at offset 1"),
        (GOOD.replace("TRUE", "yes"), r"gap.tsv:2: column A-coref must be TRUE or FALSE"),
    ],
)
def test_malformed_rows_fail_with_file_and_line(tmp_path, line, message):
    with pytest.raises(ValueError, match=message):
        convert_gap(spacy.blank("en"), write(tmp_path, line))


def test_wrong_header(tmp_path):
    path = tmp_path / "gap.tsv"
    path.write_text("a\tb\n", encoding="utf8")
    with pytest.raises(ValueError, match="gap.tsv:1: not a GAP header"):
        convert_gap(spacy.blank("en"), path)
