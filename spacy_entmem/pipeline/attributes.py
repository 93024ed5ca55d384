"""neuralcoref-style extension attributes, as getters over ``doc.spans`` and the memory log so they
survive ``DocBin`` and multiprocessing. Cluster span groups are recognised by their ``attrs``."""
import weakref
from typing import Dict, List, Optional, Tuple

import numpy

from spacy.tokens import Doc, Span, SpanGroup, Token

from ..linguistics.lexicon import NOUN_TAG_NUMBER, follows_sentence_boundary
from ..linguistics.values import PLURAL
from ..linguistics.values import PRONOUNS as PERSON_NUMBER_GENDER
from .memory_log import ACTIONS

ROLE = "entity_memory"  # SpanGroup.attrs key: "cluster" or "mentions"
PRONOUNS = {
    "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself", "he", "him", "his", "himself",
    "she", "her", "hers", "herself", "it", "its", "itself", "we", "us", "our", "ours", "ourselves",
    "they", "them", "their", "theirs", "themselves", "this", "that", "these", "those", "who", "whom",
    "whose", "which",
}
POSSESSIVES = {"my", "your", "his", "her", "its", "our", "their", "whose"}
# what ``coref_resolved`` replaces, with its number: the third-person personal pronouns of the memory's table,
# not reflexives
PRONOUN_NUMBERS = {word: number for word, (person, number, _gender) in PERSON_NUMBER_GENDER.items()
                   if person == 3 and not word.endswith(("self", "selves"))}


def coref_clusters(doc: Doc) -> List[SpanGroup]:
    groups = [g for g in doc.spans.values() if g.attrs.get(ROLE) == "cluster"]
    return sorted(groups, key=lambda g: g.attrs.get("index", 0))


def coref_mentions(doc: Doc) -> Optional[SpanGroup]:
    for group in doc.spans.values():
        if group.attrs.get(ROLE) == "mentions":
            return group
    return None


def main_mention(group: SpanGroup) -> Span:
    """The cluster's representative mention (``choose_main``, stored in the group's ``attrs["main"]``)."""
    index = group.attrs.get("main", 0)
    return group[index] if 0 <= index < len(group) else group[0]


PROPER_TAGS = {"NNP", "NNPS"}
DETERMINER_TAGS = {"DT", "PDT", "PRP$", "WP$"}
PRE_HEAD_STOPS = {"IN", "POS", ",", "CC", "HYPH", "-LRB-", "WDT", "WP"}  # where a noun phrase's pre-head part ends


def _pre_head(span: Span) -> List[Token]:
    """A mention's words up to its head by tags: those before any preposition, possessive, comma or
    conjunction, leading determiners left out ("the University" of "the University of Chicago"). The memory's
    attributes find the head by words alone (``mention_attributes.head_word``: no tagger needed, and what the
    memory was trained on); these output attributes run on tagged docs and read the tags."""
    words = []
    for token in span:
        if token.tag_ in PRE_HEAD_STOPS:
            break
        if words or token.tag_ not in DETERMINER_TAGS:
            words.append(token)
    return words


def is_proper_mention(span: Span) -> bool:
    """Whether a mention is a name by its tags: its words up to the head all NNP / NNPS ("Mr. Darcy", "the
    University of Chicago"; not "the Thompson report", "his wife Michelle"). False without tags."""
    words = _pre_head(span)
    return bool(words) and all(token.tag_ in PROPER_TAGS for token in words)


def mention_number(span: Span) -> int:
    """SINGULAR or PLURAL by the tags of a nominal mention (its head word's; "X and Y" is plural), 0 where the
    tags do not tell (no tags, a pronoun, a head that is not a noun)."""
    if any(token.tag_ == "CC" for token in span):
        return PLURAL
    words = _pre_head(span)
    return NOUN_TAG_NUMBER.get(words[-1].tag_, 0) if words else 0


def choose_main(spans: List[Span]) -> int:
    """The representative mention, as CoreNLP picks it: the first name (``is_proper_mention``), else the first
    mention that is not a pronoun, else the first."""
    for wanted in (is_proper_mention, lambda span: span.text.lower() not in PRONOUNS):
        for i, span in enumerate(spans):
            if wanted(span):
                return i
    return 0


POSSESSIVE_ONLY = {"my", "your", "his", "its", "our", "their", "whose"}  # "her" is also an object
NOT_A_NOUN_AFTER_HER = {
    "to", "and", "or", "but", "in", "of", "at", "with", "for", "by", "from", "as", "that", "than", "on", "up",
    "down", "out", "off", "away", "back", "again", "so", "if", "when", "too", "very", "a", "an", "the", "this",
    "it", "is", "was", "be", "had", "have", "not",
}
ARTICLES = {"the", "a", "an", "this", "that", "these", "those"}


def is_possessive_pronoun(token: Token) -> bool:
    """Whether a pronoun token is a possessive determiner ("his", "her book"): the tagger's PRP$ when the
    doc has tags, else the word ("her" only when a word that may start a noun phrase follows)."""
    if token.doc.has_annotation("TAG") and token.tag_:
        return token.tag_ == "PRP$" or token.tag_ == "WP$"
    word = token.lower_
    if word in POSSESSIVE_ONLY:
        return True
    if word != "her" or token.i + 1 >= len(token.doc):
        return False
    following = token.doc[token.i + 1]
    return following.is_alpha and following.lower_ not in NOT_A_NOUN_AFTER_HER


def _base_name(main: Span) -> str:
    """The main mention's text without a trailing possessive ('s, ’s or a lone apostrophe)."""
    tokens = list(main)
    if len(tokens) > 1 and tokens[-1].lower_ in ("'s", "’s", "'", "’"):
        tokens = tokens[:-1]
    return "".join(t.text_with_ws for t in tokens).strip()


def _possessive(text: str, main: Span) -> str:
    """A main mention's possessive: "Turing" → "Turing's"; a plural in -s takes the apostrophe alone ("the
    Smiths'": one that ended in a lone apostrophe, or whose head is tagged plural)."""
    plural = main[-1].lower_ in ("'", "’") or mention_number(main) == PLURAL
    return text + ("'" if text.endswith("s") and plural else "'s")


def _at_sentence_start(token: Token) -> bool:
    """Whether a token begins its doc or a sentence (parsed, or by the punctuation before it, as the memory's
    attributes read it)."""
    return token.i == 0 or bool(token.is_sent_start) or follows_sentence_boundary(token.doc[token.i - 1].text)


def _main_text(main: Span, sentence_initial: bool, owners: Dict[int, Span]) -> str:
    """The main mention's words as they read in a pronoun's place: a leading article or possessive pronoun
    takes the case of that place ("The doctor" → "the doctor" mid-sentence), and a leading possessive pronoun
    that is itself resolved (``owners``: pronoun position → its cluster's main mention) becomes the owner's
    possessive ("Its chairman" → "the committee's chairman"), one level deep."""
    text = _base_name(main)
    first = main[0]
    owner = owners.get(first.i)
    if owner is not None and is_possessive_pronoun(first) and not (owner.start <= first.i < owner.end):
        rest = text[len(first.text_with_ws):]
        return _possessive(_main_text(owner, sentence_initial, {}), owner) + first.whitespace_ + rest
    if first.lower_ in ARTICLES or first.lower_ in POSSESSIVES:
        text = (text[0].upper() if sentence_initial else text[0].lower()) + text[1:]
    return text


def _replacement(pronoun: Token, main: Span, owners: Dict[int, Span]) -> str:
    text = _main_text(main, _at_sentence_start(pronoun), owners)
    return _possessive(text, main) if is_possessive_pronoun(pronoun) else text


def coref_resolved(doc: Doc) -> str:
    """The text with each third-person personal pronoun of a cluster replaced by the cluster's main mention:
    possessive pronouns become the main mention's possessive ("his" → "Turing's", never "Turing's's"), object
    and subject pronouns the main mention itself. First- and second-person pronouns ("I am" would become
    "Harry am"), reflexives and relative pronouns keep their words, as do all other mentions. In a tagged doc a
    pronoun is replaced only by a main mention with a noun head of its number ("they" stays where the main
    mention is "the committee", or "home" tagged as an adverb)."""
    owners = {}  # each replaceable pronoun's position → its cluster's main mention
    tagged = doc.has_annotation("TAG")
    for group in coref_clusters(doc):
        main = main_mention(group)
        if main.text.lower() in PRONOUNS:
            continue  # a cluster of pronouns only: nothing to resolve them to
        number = mention_number(main)
        for span in group:
            word = span.text.lower()
            if len(span) == 1 and word in PRONOUN_NUMBERS and not (main.start <= span.start < main.end) \
                    and (number == PRONOUN_NUMBERS[word] or not tagged):
                owners[span.start] = main
    replacements = {i: _replacement(doc[i], main, owners) for i, main in owners.items()}
    return "".join(replacements[t.i] + t.whitespace_ if t.i in replacements else t.text_with_ws for t in doc)


class DocIndex:
    """Lookups over one doc's clusters and memory log, built once: each mention span's cluster, each
    token's clusters, and the memory step that ends at each token."""

    def __init__(self, doc: Doc, clusters: List[SpanGroup]):
        self.span_cluster: Dict[Tuple[int, int], SpanGroup] = {}
        self.token_clusters: Dict[int, List[SpanGroup]] = {}
        for group in clusters:
            for span in group:
                self.span_cluster.setdefault((span.start, span.end), group)
                for i in range(span.start, span.end):
                    members = self.token_clusters.setdefault(i, [])
                    if not members or members[-1] is not group:
                        members.append(group)
        # each mention's entity id (the memory's, stable across a stream; else the cluster's)
        self.span_entity: Dict[Tuple[int, int], int] = {
            key: group.attrs["entity_id"] for key, group in self.span_cluster.items() if "entity_id" in group.attrs}
        mentions = coref_mentions(doc)
        if mentions is not None and len(mentions.attrs.get("entity_ids", ())) == len(mentions):
            self.span_entity.update(((span.start, span.end), entity)
                                    for span, entity in zip(mentions, mentions.attrs["entity_ids"]))
        log = doc._.entity_memory_log
        self.token_step = None
        if log is not None and "spans" in log:  # span models: the first step whose candidate ends at the token
            ends = numpy.asarray(log["spans"]).reshape(-1, 2)[:, 1] - 1
            self.token_step = numpy.full(len(doc), -1, dtype="int64")
            unique_ends, first_steps = numpy.unique(ends, return_index=True)
            inside = (unique_ends >= 0) & (unique_ends < len(doc))
            self.token_step[unique_ends[inside]] = first_steps[inside]


_INDEXES: "weakref.WeakKeyDictionary[Doc, Tuple[tuple, DocIndex]]" = weakref.WeakKeyDictionary()


def doc_index(doc: Doc) -> DocIndex:
    """The doc's :class:`DocIndex`, rebuilt only when its cluster groups or memory log change."""
    clusters = coref_clusters(doc)
    log = doc._.entity_memory_log
    signature = (tuple((id(g), len(g)) for g in clusters), id(log), len(doc))
    cached = _INDEXES.get(doc)
    if cached is None or cached[0] != signature:
        cached = (signature, DocIndex(doc, clusters))
        _INDEXES[doc] = cached
    return cached[1]


def span_entity_id(span: Span) -> Optional[int]:
    """The id of the entity the span is a mention of (None: not a mention): the memory's id, which a
    ``spacy_entmem.Reader`` keeps stable across the texts of a stream."""
    return doc_index(span.doc).span_entity.get((span.start, span.end))


def span_cluster(span: Span) -> Optional[SpanGroup]:
    return doc_index(span.doc).span_cluster.get((span.start, span.end))


def token_clusters(token: Token) -> List[SpanGroup]:
    return list(doc_index(token.doc).token_clusters.get(token.i, ()))


def _log_value(token: Token, key: str):
    log = token.doc._.entity_memory_log
    if log is None or key not in log:
        return None
    if "spans" not in log:
        return log[key][token.i]
    step = doc_index(token.doc).token_step[token.i]  # span model: the innermost candidate ending here
    return log[key][step] if step >= 0 else None


def token_action(token: Token) -> Optional[str]:
    value = _log_value(token, "action")
    return None if value is None else ACTIONS[int(value)]


def token_cell(token: Token) -> Optional[int]:
    value = _log_value(token, "cell")
    return None if value is None or int(value) < 0 else int(value)


def token_entity_prob(token: Token) -> Optional[float]:
    value = _log_value(token, "entity")
    return None if value is None else float(value)


def _doc_entities(doc: Doc):
    from .entities import doc_entities  # reads the memory's lexicons: imported when first asked

    return doc_entities(doc)


def register_extensions() -> None:
    """Register every attribute once (idempotent)."""
    doc_attrs = {
        "coref_clusters": coref_clusters,
        "coref_mentions": coref_mentions,
        "has_coref": lambda doc: bool(coref_clusters(doc)),
        "coref_resolved": coref_resolved,
        "entities": _doc_entities,
    }
    for name, getter in doc_attrs.items():
        if not Doc.has_extension(name):
            Doc.set_extension(name, getter=getter)
    for name in ("entity_memory_log", "entity_count", "speaker"):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    span_attrs = {"coref_cluster": span_cluster, "is_coref": lambda span: span_cluster(span) is not None,
                  "entity_id": span_entity_id}
    for name, getter in span_attrs.items():
        if not Span.has_extension(name):
            Span.set_extension(name, getter=getter)
    token_attrs = {
        "coref_clusters": token_clusters,
        "in_coref": lambda token: bool(token_clusters(token)),
        "memory_action": token_action,
        "memory_cell": token_cell,
        "entity_prob": token_entity_prob,
    }
    for name, getter in token_attrs.items():
        if not Token.has_extension(name):
            Token.set_extension(name, getter=getter)
