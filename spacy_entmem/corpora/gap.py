"""GAP TSV → spaCy docs with sparse supervision (a ``gap`` span group with ``attrs["sparse"] = True``).

Character offsets are mapped to tokens with ``Doc.char_span``. A span that does not fall on token
boundaries (``Smith's`` tokenized as one token, say) is widened to the tokens it touches and counted, so
nothing is dropped silently. Malformed rows fail with the file and line.
"""
import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, List, Tuple

from spacy.language import Language
from spacy.tokens import Doc, DocBin, SpanGroup

COLUMNS = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B", "B-offset",
           "B-coref", "URL"]
GAP_KEY = "gap"


@dataclass
class GapRow:
    id: str
    text: str
    spans: List[Tuple[str, str, int]]  # (label, text, char offset) for A, B, PRONOUN
    a_coref: bool
    b_coref: bool
    line: int


@dataclass
class ConversionReport:
    docs: int = 0
    spans: int = 0
    widened: List[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"{self.docs} documents, {self.spans} spans; {len(self.widened)} spans did not align "
                 "to token boundaries and were widened to the tokens they touch"]
        lines.extend(f"  widened: {item}" for item in self.widened[:20])
        if len(self.widened) > 20:
            lines.append(f"  ... and {len(self.widened) - 20} more")
        return "\n".join(lines)


def _parse_bool(value: str, where: str, column: str) -> bool:
    if value not in ("TRUE", "FALSE"):
        raise ValueError(f"[spacy-entmem] {where}: column {column} must be TRUE or FALSE, got {value!r}")
    return value == "TRUE"


def read_gap_rows(path: Path) -> Iterator[GapRow]:
    """Rows of a GAP TSV, checked: 11 columns, integer offsets inside the text, span text at its offset."""
    with open(path, encoding="utf8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header != COLUMNS:
            raise ValueError(f"[spacy-entmem] {path}:1: not a GAP header; expected {COLUMNS}, got {header}")
        for line_no, row in enumerate(reader, start=2):
            where = f"{path}:{line_no}"
            if len(row) != len(COLUMNS):
                raise ValueError(f"[spacy-entmem] {where}: expected {len(COLUMNS)} columns, found {len(row)}")
            text = row[1]
            spans = []
            for label, text_col, offset_col in (("PRONOUN", 2, 3), ("A", 4, 5), ("B", 7, 8)):
                try:
                    offset = int(row[offset_col])
                except ValueError:
                    raise ValueError(
                        f"[spacy-entmem] {where}: {COLUMNS[offset_col]} is not an integer: {row[offset_col]!r}"
                    ) from None
                span_text = row[text_col]
                if offset < 0 or offset + len(span_text) > len(text):
                    raise ValueError(
                        f"[spacy-entmem] {where}: {COLUMNS[offset_col]} {offset} (+{len(span_text)} chars) "
                        f"is outside the text of {len(text)} characters"
                    )
                if text[offset: offset + len(span_text)] != span_text:
                    raise ValueError(
                        f"[spacy-entmem] {where}: {COLUMNS[text_col]} {span_text!r} is not at offset {offset} "
                        f"(found {text[offset: offset + len(span_text)]!r})"
                    )
                spans.append((label, span_text, offset))
            yield GapRow(
                id=row[0], text=text, spans=spans, line=line_no,
                a_coref=_parse_bool(row[6], where, "A-coref"),
                b_coref=_parse_bool(row[9], where, "B-coref"),
            )


def row_to_doc(nlp: Language, row: GapRow, report: ConversionReport, key: str = GAP_KEY) -> Doc:
    doc = nlp.make_doc(row.text)
    spans = []
    for label, span_text, offset in row.spans:
        end = offset + len(span_text)
        span = doc.char_span(offset, end, label=label)
        if span is None:
            span = doc.char_span(offset, end, label=label, alignment_mode="expand")
            report.widened.append(f"{row.id} {label} {span_text!r} -> {span.text!r}")
        spans.append(span)
        report.spans += 1
    doc.spans[key] = SpanGroup(
        doc, name=key, spans=spans,
        attrs={"sparse": True, "id": row.id, "A_coref": row.a_coref, "B_coref": row.b_coref},
    )
    report.docs += 1
    return doc


def convert_gap(nlp: Language, path: Path) -> Tuple[List[Doc], ConversionReport]:
    report = ConversionReport()
    docs = [row_to_doc(nlp, row, report) for row in read_gap_rows(path)]
    return docs, report


def convert_gap_file(nlp: Language, input_path: Path, output_path: Path, limit: int = 0) -> ConversionReport:
    """Convert ``input_path`` (its first ``limit`` examples when > 0) to a DocBin at ``output_path``."""
    docs, report = convert_gap(nlp, input_path)
    docs = docs[:limit] if limit > 0 else docs
    output_path.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs, store_user_data=True).to_disk(output_path)
    return report
