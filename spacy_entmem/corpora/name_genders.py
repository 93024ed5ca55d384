"""A gender lexicon of names, counted from training data. The mention memory's gender feature otherwise
knows the gender of a name only from an honorific or kinship word ("Mr. Darcy", "his sister") or after a
gendered pronoun joined its cell; with the lexicon, "Alan Turing" and "Marie Curie" carry a gender from their
first mention on, and a place name such as "London" is neuter.

Sources: gold clusters of annotated documents (a cluster's gender is that of its third-person pronouns when
they agree; a cluster without any is ungendered), and GAP rows (A and B have the pronoun's gender by the data
set's construction). A name is the first capitalised word of a mention after articles and titles
(``mention_attributes.given_name``). It enters the lexicon as

- masculine / feminine: seen at least ``min_count`` times in gendered clusters, one gender in at least
  ``min_purity`` of them, and at least as often gendered as ungendered (surnames shared by a family, such as
  "Bennet", and words that are both, such as "Paris", fall out);
- neuter: seen at least ``min_neuter_count`` times, never in a gendered cluster (places, organisations).

A gendered name must also not be a surname: a word seen more often as the last word of a longer name or
after a surname title ("Josiah Willard Gibbs", "Mr. Gibbs") than as the first word of a longer name stays out,
since a family name is carried by both genders ("Jennifer Thompson" is no less "Thompson" than her father).
"""
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from spacy.tokens import Doc

from ..linguistics.values import FEMININE, MASCULINE, NEUTER, PRONOUNS, UNKNOWN
from ..linguistics.lexicon import given_name, name_words
from .gap import GapRow

PACKAGED_LEXICON = Path(__file__).parent.parent / "resources" / "name_genders.json"
GENDER_NAMES = {MASCULINE: "masculine", FEMININE: "feminine", NEUTER: "neuter"}
PRONOUN_GENDER = {word: gender for word, (person, _number, gender) in PRONOUNS.items()
                  if person == 3 and gender in (MASCULINE, FEMININE)}
MAX_NAME_LENGTH = 4  # longer mentions are descriptions, not names
# titles followed by a family name ("Mr. Gibbs"); not "Sir", "Lady", "Miss", which also take given names
SURNAME_TITLES = {"mr", "mr.", "mrs", "mrs.", "ms", "ms.", "mister", "dr", "dr.", "professor", "prof", "prof."}
GIVEN, SURNAME = "given", "surname"


def cluster_gender(words: Iterable[str]) -> int:
    """MASCULINE / FEMININE when the cluster's gendered pronouns (lowercased one-word mentions) all agree,
    else UNKNOWN."""
    genders = {PRONOUN_GENDER[w] for w in words if w in PRONOUN_GENDER}
    return genders.pop() if len(genders) == 1 else UNKNOWN


def named_mentions(docs: Iterable[Doc], rows: Iterable[GapRow] = (), prefix: str = "coref_clusters"
                   ) -> Iterator[Tuple[List[str], List[bool], int]]:
    """(lowercased words, whether each is capitalised, gender) of every gold mention of at most
    ``MAX_NAME_LENGTH`` words in ``docs`` (the gender of its cluster, see ``cluster_gender``) and of the A / B
    names of GAP rows with a gendered pronoun."""
    for doc in docs:
        for key, group in doc.spans.items():
            if not key.startswith(prefix + "_"):
                continue
            gender = cluster_gender(s.text.lower() for s in group if len(s) == 1)
            for span in group:
                if len(span) <= MAX_NAME_LENGTH:
                    yield [t.lower_ for t in span], [t.is_title for t in span], gender
    for row in rows:
        texts = {label: text for label, text, _offset in row.spans}
        gender = PRONOUN_GENDER.get(texts["PRONOUN"].lower())
        for label in ("A", "B") if gender else ():
            words = texts[label].split()
            yield [w.lower() for w in words], [w.istitle() for w in words], gender


def count_names(docs: Iterable[Doc], rows: Iterable[GapRow] = (), prefix: str = "coref_clusters"
                ) -> Dict[str, Counter]:
    """Name → Counter of the genders of the clusters it names (UNKNOWN: no gendered pronoun), over the gold
    clusters of ``docs`` and the A / B names of GAP rows."""
    counts: Dict[str, Counter] = defaultdict(Counter)
    for words, capitalised, gender in named_mentions(docs, rows, prefix):
        name = given_name(words, capitalised)
        if name:
            counts[name][gender] += 1
    return counts


def count_name_positions(docs: Iterable[Doc], rows: Iterable[GapRow] = (), prefix: str = "coref_clusters"
                         ) -> Dict[str, Counter]:
    """Name word → Counter of GIVEN (first of two or more name words) and SURNAME (last of two or more, or
    the only name word after a title in ``SURNAME_TITLES``) uses, over the same mentions as ``count_names``."""
    positions: Dict[str, Counter] = defaultdict(Counter)
    for words, capitalised, _gender in named_mentions(docs, rows, prefix):
        names = name_words(words, capitalised, len(words) - 1)
        if len(names) >= 2:
            positions[names[0]][GIVEN] += 1
            positions[names[-1]][SURNAME] += 1
        elif names:
            at = words.index(names[0])
            if at and words[at - 1] in SURNAME_TITLES:
                positions[names[0]][SURNAME] += 1
    return positions


def build_lexicon(counts: Dict[str, Counter], positions: Optional[Dict[str, Counter]] = None, min_count: int = 2,
                  min_purity: float = 0.9, min_neuter_count: int = 5) -> Dict[str, int]:
    """Name → MASCULINE / FEMININE / NEUTER by the rules of the module docstring (``positions``, from
    ``count_name_positions``, keeps surnames out of the genders)."""
    lexicon = {}
    for name, genders in counts.items():
        gendered = genders[MASCULINE] + genders[FEMININE]
        top = max((MASCULINE, FEMININE), key=lambda g: genders[g])
        used = (positions or {}).get(name, Counter())
        pure = gendered >= min_count and genders[top] >= min_purity * gendered and gendered >= genders[UNKNOWN]
        if pure and used[SURNAME] <= used[GIVEN]:
            lexicon[name] = top
        elif not gendered and genders[UNKNOWN] >= min_neuter_count:
            lexicon[name] = NEUTER
    return dict(sorted(lexicon.items()))


def save_lexicon(lexicon: Dict[str, int], path: Path) -> None:
    by_gender = {label: sorted(n for n, g in lexicon.items() if g == code) for code, label in GENDER_NAMES.items()}
    Path(path).write_text(json.dumps(by_gender, indent=1, ensure_ascii=False) + "\n", encoding="utf8")


def load_lexicon(path: Path) -> Dict[str, int]:
    """Name → gender from a file written by ``save_lexicon``; a clear error for anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf8"))
    except (OSError, ValueError) as err:
        raise ValueError(f"[spacy-entmem] cannot read the name-gender lexicon {path}: {err}") from None
    codes = {label: code for code, label in GENDER_NAMES.items()}
    if not isinstance(data, dict) or set(data) - set(codes) or \
            not all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in data.values()):
        raise ValueError(f"[spacy-entmem] {path}: a name-gender lexicon maps {sorted(codes)} to lists of names")
    return {name: codes[label] for label, names in data.items() for name in names}
