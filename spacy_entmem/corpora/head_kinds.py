"""A lexicon of head nouns → the kind of entity they name (person, place, organisation), counted from the
entity-typed mentions of the training splits (LitBank's PER / LOC / GPE / FAC / ORG / VEH, GUM's person / place
/ organization / ...).

The entity table (``pipeline.entities``) reads it to tell "the soldier", "the servants" (people) from "the
village" (a place) and "the committee" (an organisation), where no pronoun or title says. A head word that heads
at least ``min_count`` typed non-pronoun mentions, at least ``min_share`` of them of one kind, names that kind;
words that head several kinds alike ("party", "house") fall out.
"""
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

from ..linguistics.values import PRONOUNS
from ..linguistics.lexicon import head_word

PERSON, PLACE, ORGANISATION, OTHER = "person", "place", "organisation", "other"
KIND_OF_TYPE = {"PER": PERSON, "LOC": PLACE, "GPE": PLACE, "FAC": PLACE, "ORG": ORGANISATION, "VEH": OTHER,
                "person": PERSON, "place": PLACE, "organization": ORGANISATION}
PACKAGED_HEAD_KINDS = Path(__file__).parent.parent / "resources" / "head_kinds.json"


def count_head_kinds(mentions: Iterable[Tuple[List[str], str]]) -> Dict[str, Counter]:
    """Head word → Counter of kinds over typed non-pronoun mentions (an untyped one is skipped; a type not in
    ``KIND_OF_TYPE`` counts as other)."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for words, entity_type in mentions:
        lower = [word.lower() for word in words]
        if not entity_type or (len(lower) == 1 and lower[0] in PRONOUNS):
            continue
        head = head_word(lower)
        if head.isalpha():
            counts[head][KIND_OF_TYPE.get(entity_type, OTHER)] += 1
    return counts


def head_kinds(counts: Dict[str, Counter], min_count: int = 3, min_share: float = 0.8) -> Dict[str, str]:
    """The heads whose most frequent kind (person, place or organisation) holds at least ``min_share`` of at
    least ``min_count`` mentions."""
    kinds = {}
    for head, counter in counts.items():
        total = sum(counter.values())
        kind, n = counter.most_common(1)[0]
        if total >= min_count and kind != OTHER and n / total >= min_share:
            kinds[head] = kind
    return dict(sorted(kinds.items()))


def save_head_kinds(kinds: Dict[str, str], path: Path) -> None:
    Path(path).write_text(json.dumps(kinds, indent=0, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf8")


def load_head_kinds(path: Path) -> Dict[str, str]:
    """The lexicon of a file written by ``save_head_kinds``; a clear error for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"[spacy-entmem] cannot read the head-kind lexicon {path}: {error}") from None
    if not isinstance(data, dict) or not all(v in (PERSON, PLACE, ORGANISATION) for v in data.values()):
        raise ValueError(f"[spacy-entmem] {path}: the head-kind lexicon is a JSON object of word → person / place / "
                         "organisation")
    return data
