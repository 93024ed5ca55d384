"""GUM / OntoGUM coreference conll (``index<TAB>token<TAB>coref``, no sentence breaks) with sentence
lengths and splits from ``doc_manifest.tsv``."""
import csv
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .brackets import CorefFormatError, parse_column
from .docs import CorefDocument

SCHEMES = ("gum", "ontogum")
EMPTY_TOKEN_REPLACEMENT = "|"  # OntoGUM's GUM_news_iodine token 379 is empty; GUM has "|" there


def gum_cluster(label: str) -> Tuple[str, str]:
    """``person-3-Lord_Byron`` → cluster ``person-3``, mention label ``person``."""
    parts = label.split("-")
    return "-".join(parts[:2]), parts[0]


def read_manifest(path: Path) -> Dict[str, Dict[str, str]]:
    with Path(path).open(encoding="utf8", newline="") as handle:
        return {row["doc_id"]: row for row in csv.DictReader(handle, delimiter="\t")}


def read_gum_conll(path: Path, scheme: str, sentence_lengths: List[int], doc_id: Optional[str] = None,
                   repairs: Optional[List[str]] = None) -> CorefDocument:
    if scheme not in SCHEMES:
        raise ValueError(f"[spacy-entmem] unknown GUM scheme {scheme!r}; expected one of {SCHEMES}")
    words: List[str] = []
    cells: List[Tuple[int, str]] = []
    with Path(path).open(encoding="utf8") as handle:
        for line_no, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3:
                raise CorefFormatError(f"{path}, line {line_no}: expected 3 tab-separated columns, found {len(fields)}")
            if not fields[0].isdigit() or int(fields[0]) != len(words):
                raise CorefFormatError(
                    f"{path}, line {line_no}: token index {fields[0]!r}, expected {len(words)}"
                )
            word = fields[1]
            if not word:
                word = EMPTY_TOKEN_REPLACEMENT
                if repairs is not None:
                    repairs.append(f"{path}, line {line_no}: empty token replaced by {word!r}")
            words.append(word)
            cells.append((line_no, fields[2]))
    cluster_of = gum_cluster if scheme == "gum" else (lambda label: (label, ""))
    mentions = parse_column(cells, str(path), cluster_of)
    return CorefDocument(doc_id or Path(path).stem, words, sentence_lengths, mentions)


def read_gum(data_dir: Path, scheme: str = "gum", exclude_noncommercial: bool = False,
             repairs: Optional[List[str]] = None) -> Dict[str, List[CorefDocument]]:
    """train/dev/test documents of the official split (as listed in ``doc_manifest.tsv``)."""
    data_dir = Path(data_dir)
    manifest = read_manifest(data_dir / "doc_manifest.tsv")
    conll_dir = data_dir / "coref" / scheme / "conll"
    result: Dict[str, List[CorefDocument]] = {"train": [], "dev": [], "test": []}
    for doc_id, row in manifest.items():
        if exclude_noncommercial and row["non_commercial"] == "1":
            continue
        if row["split"] not in result:
            raise CorefFormatError(f"{data_dir / 'doc_manifest.tsv'}: {doc_id} has unknown split {row['split']!r}")
        lengths = [int(x) for x in row["sentence_lengths"].split(",")]
        record = read_gum_conll(conll_dir / f"{doc_id}.conll", scheme, lengths, doc_id, repairs)
        record.meta = {"genre": row["genre"], "non_commercial": row["non_commercial"]}
        result[row["split"]].append(record)
    return result
