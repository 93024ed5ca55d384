"""LitBank CoNLL (13 tab-separated columns, ``|``-joined coref labels) and its ten-fold splits."""
from pathlib import Path
from typing import Dict, List

from .brackets import CorefFormatError
from .conll2012 import read_conll_documents
from .docs import CorefDocument

SPLITS = ("train", "dev", "test")


def read_litbank_conll(path: Path) -> CorefDocument:
    """One LitBank ``*.conll`` file (one document, part 0)."""
    documents = list(read_conll_documents(path))
    if not documents:
        raise CorefFormatError(f"{path}, line 1: no '#begin document' header")
    return documents[0]


def read_split_ids(splits_dir: Path, fold: int) -> Dict[str, List[str]]:
    """Document names (without ``.tsv``) of train/dev/test for one fold of the lrec2020 splits."""
    folder = Path(splits_dir) / str(fold)
    if not folder.is_dir():
        raise FileNotFoundError(f"[spacy-entmem] LitBank fold {fold}: no split folder {folder}")
    result = {}
    for split in SPLITS:
        lines = (folder / f"{split}.ids").read_text(encoding="utf8").split()
        result[split] = [name[:-4] if name.endswith(".tsv") else name for name in lines]
    return result


def read_litbank(data_dir: Path, fold: int = 0) -> Dict[str, List[CorefDocument]]:
    """Train/dev/test documents of ``fold`` from a LitBank checkout laid out as ``coref/conll`` and
    ``splits/lrec2020_tenfold`` (see data/litbank/SOURCE.md)."""
    data_dir = Path(data_dir)
    conll_dir = data_dir / "coref" / "conll"
    ids = read_split_ids(data_dir / "splits" / "lrec2020_tenfold", fold)
    result = {}
    for split, names in ids.items():
        missing = [n for n in names if not (conll_dir / f"{n}.conll").exists()]
        if missing:
            raise FileNotFoundError(f"[spacy-entmem] LitBank {split} fold {fold}: no conll file for {missing[:3]}")
        result[split] = [read_litbank_conll(conll_dir / f"{n}.conll") for n in names]
    return result
