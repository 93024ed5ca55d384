"""GAP-style pronoun queries from fully annotated coreference documents (LitBank, GUM): more training rows for
the pronoun resolver, in GAP's own format.

GAP (Webster et al. 2018) pairs a third-person singular pronoun with two names of its gender, A before B, and
says for each whether the pronoun refers to it. From a document with gold clusters the same query is read off:
for a he / she pronoun (he, him, his, she, her, hers: GAP's forms, no reflexive) whose entity is known to be of
that gender, the most recent earlier name of its entity and the most recent earlier name of another entity of
the same gender (a "yes" and a "no"), or two other entities' names (two "no"s, GAP's "neither"). A cluster's
gender is that of its he / she pronouns, taken only where they all agree; a name is a mention whose words are
all capitalised, not a pronoun and not opening with an article. The text of a query runs from the sentence of
its first name to the end of the pronoun's sentence, with line breaks and tabs made spaces (offsets unchanged).
With ``QuerySettings.other_gender`` the second name is one of the other gender instead (a mixed pair).
"""
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..linguistics.values import FEMININE, MASCULINE, PRONOUNS
from ..linguistics.lexicon import LEADING_WORDS
from ..linguistics.sentences import sentence_lengths
from ..training.targets import gold_clusters
from .docs import DOC_ID
from .gap import GapRow
from .gender_swap import write_gap_rows

Mention = Tuple[int, int]
GENDERED_PRONOUNS = {word: gender for word, (person, number, gender) in PRONOUNS.items()
                     if person == 3 and gender in (MASCULINE, FEMININE)}
# the forms GAP asks about (and its scorer knows): no reflexives
QUERY_PRONOUNS = frozenset("he him his she her hers".split())


@dataclass
class QuerySettings:
    """How queries are read from a document: the longest text (tokens), how far before the pronoun a name may
    stand (tokens), the share of "neither" queries kept and the seed that picks them; with ``other_gender`` the
    second name is one of the other gender (a mixed pair, which GAP never asks about; no "neither" queries)."""

    max_tokens: int = 160
    max_distance: int = 120
    keep_neither: float = 0.3
    seed: int = 0
    other_gender: bool = False

    def __post_init__(self):
        if not 0.0 <= self.keep_neither <= 1.0:
            raise ValueError(f"[spacy-entmem] QuerySettings.keep_neither must be in [0, 1], got {self.keep_neither}")
        if self.max_distance < 1 or self.max_tokens < 1:
            raise ValueError("[spacy-entmem] QuerySettings.max_tokens and max_distance must be positive")


def cluster_gender(doc: Doc, cluster: Sequence[Mention]) -> Optional[int]:
    """MASCULINE or FEMININE if the cluster holds he / she pronouns of one gender only, else None."""
    genders = {GENDERED_PRONOUNS[doc[start].lower_] for start, end in cluster
               if end - start == 1 and doc[start].lower_ in GENDERED_PRONOUNS}
    return genders.pop() if len(genders) == 1 else None


def is_name(doc: Doc, mention: Mention) -> bool:
    """Whether a mention looks like a proper name: at most four words, each capitalised (or a '.' / '-'), the first
    no pronoun and no article ("Miss Bingley", "Mr. Darcy", "Jane"; not "The doctor", "She")."""
    start, end = mention
    words = doc[start:end]
    if not 1 <= len(words) <= 4 or words[0].lower_ in PRONOUNS or words[0].lower_ in LEADING_WORDS:
        return False
    return all(word.is_title or word.text in {".", "-"} for word in words) and words[-1].is_alpha


def query_rows(doc: Doc, clusters: Sequence[Sequence[Mention]], doc_id: str,
               settings: QuerySettings = QuerySettings()) -> Iterator[GapRow]:
    """The GAP-style queries of one document (see the module's docstring)."""
    rng = random.Random(f"{settings.seed}:{doc_id}")
    starts = _sentence_starts(doc)
    entity_of = {mention: i for i, cluster in enumerate(clusters) for mention in cluster}
    gender = [cluster_gender(doc, cluster) for cluster in clusters]
    names = sorted((m, entity_of[m]) for m in entity_of if gender[entity_of[m]] is not None and is_name(doc, m))
    for (start, end), entity in sorted(entity_of.items()):
        word = doc[start].lower_
        if end - start != 1 or word not in QUERY_PRONOUNS or gender[entity] != GENDERED_PRONOUNS[word]:
            continue
        latest: Dict[int, Mention] = {}  # entity -> its latest name before the pronoun, within reach
        for mention, name_entity in names:
            if mention[1] > start:
                break
            mixed = gender[name_entity] != gender[entity]
            if start - mention[0] <= settings.max_distance and (name_entity == entity or
                                                                 mixed == settings.other_gender):
                latest[name_entity] = mention
        own = latest.pop(entity, None)
        if not latest or (own is None and (settings.other_gender or len(latest) < 2)):
            continue
        if own is None and rng.random() >= settings.keep_neither:
            continue
        others = sorted(latest.values(), key=lambda m: m[0], reverse=True)
        pair = sorted([own, others[0]] if own is not None else others[:2])
        row = _row(doc, (start, end), pair, own, starts, f"{doc_id}-{start}", settings.max_tokens)
        if row is not None:
            yield row


def _sentence_starts(doc: Doc) -> List[int]:
    """The sentence start of every token."""
    starts, position = [], 0
    for length in sentence_lengths(doc):
        starts.extend([position] * length)
        position += length
    return starts


def _row(doc: Doc, pronoun: Mention, pair: List[Mention], own: Optional[Mention], starts: List[int], row_id: str,
         max_tokens: int) -> Optional[GapRow]:
    """One query as a GapRow: text from the first name's sentence to the pronoun's sentence end."""
    first = starts[pair[0][0]]
    last = pronoun[1]
    while last < len(doc) and starts[last] == starts[pronoun[0]]:
        last += 1
    if last - first > max_tokens:  # cut the first name's sentence, never the name
        first = min(pair[0][0], last - max_tokens)
        if last - first > max_tokens:
            return None
    offset = doc[first].idx
    text = doc[first:last].text.replace("\n", " ").replace("\t", " ").replace("\r", " ")

    def span(mention: Mention, label: str) -> Tuple[str, str, int]:
        chars = doc[mention[0]:mention[1]]
        return label, text[chars.start_char - offset: chars.end_char - offset], chars.start_char - offset

    a, b = pair
    return GapRow(id=row_id, text=text, spans=[span(pronoun, "PRONOUN"), span(a, "A"), span(b, "B")],
                  a_coref=a == own, b_coref=b == own, line=0)


def corpus_query_rows(docs: Iterable[Doc], clusters: Iterable[Sequence[Sequence[Mention]]],
                      settings: QuerySettings = QuerySettings()) -> Iterator[GapRow]:
    """The queries of several documents; ids are ``<doc_id or index>-<pronoun token>``."""
    for index, (doc, doc_clusters) in enumerate(zip(docs, clusters)):
        doc_id = (doc.user_data or {}).get(DOC_ID) or str(index)
        yield from query_rows(doc, doc_clusters, str(doc_id), settings)


def write_corpus_queries(vocab: Vocab, corpora: Sequence[Path], output_tsv: Path,
                         settings: QuerySettings = QuerySettings(), prefix: str = "coref_clusters") -> Counter:
    """Write the queries of ``.spacy`` corpora with gold clusters (``<prefix>_N`` span groups), read as one, as a
    GAP TSV; counts of rows by answer ("A", "B", "neither")."""
    docs = [doc for corpus in corpora for doc in DocBin().from_disk(corpus).get_docs(vocab)]
    clusters = [gold_clusters(doc, prefix) for doc in docs]
    if not any(clusters):
        raise ValueError(f"[spacy-entmem] {', '.join(map(str, corpora))}: none of the {len(docs)} documents has "
                         f"'{prefix}_N' span groups (gold clusters)")
    rows = list(corpus_query_rows(docs, clusters, settings))
    output_tsv.parent.mkdir(parents=True, exist_ok=True)
    write_gap_rows(output_tsv, rows)
    return Counter("A" if row.a_coref else "B" if row.b_coref else "neither" for row in rows)
