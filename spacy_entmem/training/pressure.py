"""Training documents under memory pressure: a corpus's documents joined a few at a time, so that one training
document holds far more entities than the memory has cells and teacher forcing meets full memories, evictions and
long gaps (``concatenated``: the gold clusters kept apart; the learnt eviction policy, ``training.eviction``, reads
documents joined the same way).

    python -m spacy_entmem.training.pressure corpus/litbank/train.spacy corpus/pressure/train/litbank.spacy \
        --per-stream 3

Documents are joined in their corpus order; a last group may be shorter.
"""
import argparse
import warnings
from pathlib import Path
from typing import List, Optional, Sequence


def concatenated(docs: Sequence, per_stream: int) -> List:
    """The docs joined ``per_stream`` at a time into one doc each (memory pressure: more entities than cells);
    gold clusters kept, moved to their place and numbered on (``coref_clusters_N`` across the joined documents)."""
    from spacy.tokens import Doc, Span

    from .targets import cluster_groups

    joined = []
    for start in range(0, len(docs), per_stream):
        group = list(docs[start:start + per_stream])
        doc = Doc.from_docs(group, ensure_whitespace=True)
        for key in [key for key in doc.spans if key.startswith("coref_clusters")]:
            del doc.spans[key]  # (from_docs joins the groups of one key across documents: different entities)
        offset, number = 0, 0
        for part in group:
            for _, key in cluster_groups(part):
                number += 1
                doc.spans[f"coref_clusters_{number}"] = [Span(doc, s.start + offset, s.end + offset)
                                                         for s in part.spans[key]]
            offset += len(part)
        joined.append(doc)
    return joined


def write_joined(source: Path, target: Path, per_stream: int) -> int:
    """Write ``source``'s documents joined ``per_stream`` at a time to ``target``; returns how many were written."""
    import spacy
    from spacy.tokens import DocBin

    if per_stream < 1:
        raise ValueError(f"[spacy-entmem] --per-stream must be at least 1, not {per_stream}")
    vocab = spacy.blank("en").vocab
    docs = list(DocBin().from_disk(source).get_docs(vocab))
    with warnings.catch_warnings():  # (W102: a document's id in its user data is not carried into the joined one)
        warnings.filterwarnings("ignore", message=r"\[W102\]")
        joined = concatenated(docs, per_stream)
    target.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=joined, store_user_data=True).to_disk(target)
    return len(joined)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="a .spacy corpus with gold coref_clusters_N groups")
    parser.add_argument("target", type=Path)
    parser.add_argument("--per-stream", type=int, default=3, help="documents joined into one")
    args = parser.parse_args(argv)
    n = write_joined(args.source, args.target, args.per_stream)
    print(f"{args.source} -> {args.target}: {n} documents of up to {args.per_stream} joined")


if __name__ == "__main__":
    main()
