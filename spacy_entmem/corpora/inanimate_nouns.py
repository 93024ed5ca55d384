"""A lexicon of head nouns that name things, not people, counted from entity-typed training mentions.

The mention memory's gender feature knows a nominal's gender only from an honorific or kinship word ("the
old man", "Mrs. Bennet") and a name's from the name-gender lexicon; a mention such as "mathematics" or
"Bletchley Park" has no gender at all, so nothing stops "he" from joining it. LitBank (PER / FAC / LOC / GPE
/ VEH / ORG) and GUM (person / place / organization / object / abstract / ...) type every mention; a head
word (``mention_attributes.head_word``) that heads at least ``min_count`` non-pronoun mentions, at most
``max_person_share`` of them people and at most ``max_gendered_share`` of them in a gold cluster with a
he / she pronoun, is inanimate ("park", "college", "house", "mathematics"). Words that head people and
things alike ("party", "family", "company", "dog") fall out, and so do the things literature calls "she"
("country", "ship"). The entity_memory setting ``animacy_agreement`` reads the packaged list: a he / she
pronoun never joins a cell of such mentions.
"""
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, Iterator, List, Tuple

from spacy.tokens import Doc, SpanGroup

from ..linguistics.values import PRONOUNS
from ..linguistics.lexicon import head_word
from ..training.targets import cluster_groups
from .brackets import CorefFormatError
from .litbank import read_split_ids
from .name_genders import PRONOUN_GENDER

PACKAGED_INANIMATE_NOUNS = Path(__file__).parent.parent / "resources" / "inanimate_nouns.json"
PERSON_TYPES = {"PER", "person"}
ANN_FIELDS = 9  # MENTION, id, start sentence, start token, end sentence, end token, text, type, kind


def litbank_typed_mentions(data_dir: Path, fold: int = 0, split: str = "train") -> Iterator[Tuple[List[str], str]]:
    """(words, entity type) of every MENTION line in the ``coref/tsv/*.ann`` files of one split."""
    data_dir = Path(data_dir)
    names = read_split_ids(data_dir / "splits" / "lrec2020_tenfold", fold)[split]
    for name in names:
        path = data_dir / "coref" / "tsv" / f"{name}.ann"
        with path.open(encoding="utf8") as handle:
            for line_no, line in enumerate(handle, start=1):
                fields = line.rstrip("\n").split("\t")
                if fields[0] != "MENTION":
                    continue
                if len(fields) != ANN_FIELDS:
                    raise CorefFormatError(f"{path}, line {line_no}: a MENTION line has {ANN_FIELDS} "
                                           f"tab-separated fields, found {len(fields)}")
                yield fields[6].split(" "), fields[7]


def _clusters(docs: Iterable[Doc], prefix: str) -> Iterator[SpanGroup]:
    for doc in docs:
        yield from (doc.spans[key] for _, key in cluster_groups(doc, prefix))


def labelled_mentions(docs: Iterable[Doc], prefix: str = "coref_clusters") -> Iterator[Tuple[List[str], str]]:
    """(words, span label) of the gold cluster mentions of docs whose spans carry entity types (GUM)."""
    for group in _clusters(docs, prefix):
        for span in group:
            yield [t.text for t in span], span.label_


def gendered_cluster_heads(docs: Iterable[Doc], prefix: str = "coref_clusters") -> Iterator[Tuple[List[str], bool]]:
    """(words, whether its gold cluster holds a he / she pronoun) of every non-pronoun cluster mention."""
    for group in _clusters(docs, prefix):
        lower = [s.text.lower() for s in group]
        gendered = any(w in PRONOUN_GENDER for w in lower)
        for span, text in zip(group, lower):
            if text not in PRONOUNS:
                yield [t.text for t in span], gendered


def count_heads(mentions: Iterable[Tuple[List[str], str]],
                cluster_mentions: Iterable[Tuple[List[str], bool]] = ()) -> Dict[str, Counter]:
    """Head word → Counter of ``person`` / ``other`` over the typed non-pronoun mentions (untyped ones are
    skipped), and of ``gendered`` / ``ungendered`` over the cluster mentions."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    labelled = [(words, "person" if entity_type in PERSON_TYPES else "other")
                for words, entity_type in mentions if entity_type]
    labelled += [(words, "gendered" if gendered else "ungendered") for words, gendered in cluster_mentions]
    for words, label in labelled:
        lower = [w.lower() for w in words]
        if len(lower) == 1 and lower[0] in PRONOUNS:
            continue
        head = head_word(lower)
        if head.isalpha():
            counts[head][label] += 1
    return counts


def inanimate_heads(counts: Dict[str, Counter], min_count: int = 3, max_person_share: float = 0.05,
                    max_gendered_share: float = 0.05) -> List[str]:
    """The head words that are inanimate by the rule of the module docstring, sorted."""
    def share(c: Counter, part: str, rest: str) -> float:
        return c[part] / max(c[part] + c[rest], 1)

    return sorted(head for head, c in counts.items()
                  if c["other"] + c["person"] >= min_count and share(c, "person", "other") <= max_person_share
                  and share(c, "gendered", "ungendered") <= max_gendered_share)


def save_inanimate_nouns(words: List[str], path: Path) -> None:
    Path(path).write_text(json.dumps(sorted(words), indent=0, ensure_ascii=False) + "\n", encoding="utf8")


def load_inanimate_nouns(path: Path) -> FrozenSet[str]:
    """The words of a file written by ``save_inanimate_nouns``; a clear error for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"[spacy-entmem] cannot read the inanimate-noun list {path}: {err}") from None
    if not isinstance(data, list) or not all(isinstance(w, str) for w in data):
        raise ValueError(f"[spacy-entmem] {path}: the inanimate-noun list is a JSON list of words")
    return frozenset(data)
