"""Write corpus records to ``.spacy`` files, one per split, and report their counts."""
from pathlib import Path
from typing import Dict, List

from spacy.tokens import DocBin
from spacy.vocab import Vocab

from .docs import CorefDocument, corpus_counts, to_doc


def write_splits(splits: Dict[str, List[CorefDocument]], output_dir: Path, vocab: Vocab) -> Dict[str, Dict[str, int]]:
    """``{output_dir}/{split}.spacy`` for each split; returns the counts of each split."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    counts = {}
    for split, records in splits.items():
        docs = [to_doc(vocab, record) for record in records]
        DocBin(docs=docs, store_user_data=True).to_disk(output_dir / f"{split}.spacy")
        counts[split] = corpus_counts(records)
    return counts
