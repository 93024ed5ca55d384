"""How many of a book's memory entities hold two names of one head whose "of" complements share no word ("the Witch
of the North" and "the Wicked Witch of the East" in one entity): what the ``of_names_apart`` switch keeps apart.

    python benchmarks/books.py --novels ../shared/data/novels --tables TABLES tests/fixtures/data/books/*.json
    python benchmarks/complement_mixes.py TABLES/*.json

Reads the mention records ``books.py --tables`` saved (one JSON per book) and prints, per book, the count and the
complements each such entity mixes. A name's head and complement are read as the memory reads them
(``linguistics.lexicon.head_index``, ``complement_words``), on the mention's words split at spaces and punctuation.
"""
import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

from spacy_entmem.linguistics.lexicon import complement_words, head_index


def complement(text: str):
    """(head word, complement words) of a name mention's text, or None where it has no "of" complement."""
    words = re.findall(r"[\w'-]+|[^\w\s]", text)
    lower = [word.lower() for word in words]
    head = head_index(lower)
    found = complement_words(lower, [word[:1].isupper() for word in words], head)
    return (lower[head], frozenset(found)) if found else None


def mixes(rows) -> dict:
    """entity id → the complements of one head, disjoint from each other, that its name mentions hold."""
    held = defaultdict(set)
    for row in rows:  # (entity, text index, start, end, offset, text, mention type, ...)
        if row[6] == "name" and complement(row[5]) is not None:
            held[row[0]].add(complement(row[5]))
    return {entity: sorted(" ".join(sorted(words)) for _, words in names) for entity, names in held.items()
            if any(a[0] == b[0] and a[1].isdisjoint(b[1]) for a in names for b in names)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tables", nargs="+", type=Path)
    for path in parser.parse_args().tables:
        found = mixes(json.loads(path.read_text(encoding="utf8")))
        print(f"{path.stem}: {len(found)} entities mixing \"of\" complements {list(found.values())[:5]}")


if __name__ == "__main__":
    main()
