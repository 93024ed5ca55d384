"""Training sentences from grammar templates: short documents whose gold clusters only the syntax decides,
for the memory to learn the parse's features from (issue 73). LitBank and GUM rarely put two people of one
gender in one clause, so a memory trained on them alone has nothing to learn binding from.

Each template names its people (a given name or "the" + a noun for people; both people of one item share a
gender, so gender cannot decide) and its pronouns, and says which person each pronoun is (or that it is a new
one, or the group of two). The phenomena: coordination (principle B across a shared subject), object control,
the subject of a small clause or of an infinitive after "make" / "let" / "help" / "want" (exceptionally case-
marked: never the main subject), datives, reflexives, principle C, possessors, a singular "they" for one person,
and "they" for two people named together.

The words are the generator's own: the names, nouns for people and verbs are checked disjoint from the
challenge suite's and the role-and-participant set's (``disjoint_from``), and the names from those of the test
sets a caller passes. Documents are written like the converted corpora: ``coref_clusters_N`` span groups, one
per entity, singletons included."""
import random
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy.language import Language
from spacy.tokens import Doc

from ..linguistics.values import FEMININE, MASCULINE

# nouns for people and verbs of the generator's own (none in the challenge suite or the role-participant set)
ROLE_NOUNS = ("florist", "jeweller", "wheelwright", "glassblower", "locksmith", "beekeeper", "cartographer", "glazier",
              "upholsterer", "saddler", "cooper", "tanner", "potter", "weaver", "thatcher", "ferryman", "boatswain",
              "stonemason", "bricklayer", "lamplighter", "auctioneer", "pawnbroker", "notary", "bailiff", "usher",
              "sexton", "organist", "choirmaster", "almoner", "bellringer", "registrar", "chaplain", "midwife",
              "optician", "chiropodist", "masseur", "groundskeeper", "gamekeeper", "shepherd", "drover")
TRANSITIVE = ("saluted", "toasted", "admired", "warned", "flattered", "snubbed", "consulted", "interrupted",
              "serenaded", "welcomed", "followed", "humoured", "forgave", "rebuked", "comforted", "recognised")
SECOND_VERBS = ("teased", "embraced", "rewarded", "envied", "pitied", "mocked", "applauded", "distrusted")
CONTROL_VERBS = ("urged", "coaxed", "encouraged", "allowed", "implored", "invited", "advised", "signalled to")
SMALL_CLAUSE = (("made", "feel {adj}"), ("let", "borrow the {thing}"), ("helped", "carry the {thing}"),
                ("noticed", "paint the {thing}"), ("overheard", "sing in the kitchen"), ("had", "fetch the {thing}"))
INFINITIVE = (("wanted", "to leave early"), ("expected", "to win the prize"), ("believed", "to be honest"),
              ("needed", "to sign the form"))
ADJECTIVES = ("proud", "foolish", "welcome", "sleepy", "nervous", "lucky")
FOUND_ADJECTIVES = ("charming", "rude", "clever", "stubborn", "generous", "tiresome")
THINGS = ("ottoman", "kettle", "lantern", "parcel", "wheelbarrow", "violin", "shovel", "basket")
EVENTS = ("arrived at the market", "sat by the fountain", "waited near the gate", "stood in the hallway")

PRONOUN_FORMS = {MASCULINE: {"subject": "he", "object": "him", "possessive": "his", "reflexive": "himself"},
                 FEMININE: {"subject": "she", "object": "her", "possessive": "her", "reflexive": "herself"}}
SLOT = re.compile(r"\[(\w+)(?::(\w+))?\]")  # [A] a person; [p:A] / [P:A] a pronoun of A ([P]: capitalised)


@dataclass
class Template:
    """Text with slots: ``[A]``, ``[B]`` people; ``[subject:A]``, ``[object:A]``, ``[possessive:A]``,
    ``[reflexive:A]`` pronouns of a person (capitalised when the slot's form is: ``[Subject:A]``); ``[they:AB]``
    a "they" of A and B named together as ``[AB]``; ``[they:A]`` a singular they; ``[x:new]`` a pronoun of a
    new person. ``{verb}``-style fields are filled from the vocabulary."""
    phenomenon: str
    text: str


TEMPLATES = (
    Template("coordination", "[A] {verb} [B] and {verb2} [object:B]."),
    Template("coordination", "[A] {verb} [B] at the fair and then {verb2} [object:B]."),
    Template("object control", "[A] {control} [B] to wait for [object:A]."),
    Template("object control", "[A] {control} [B] to write to [object:A] soon."),
    Template("small clause", "[B] {event}. [A] {small} [object:B] {small_rest}."),
    Template("small clause", "[A] {small} [object:new] {small_rest}."),
    Template("infinitive subject", "[B] {event}. [A] {infinitive} [object:B] {infinitive_rest}."),
    Template("small clause", "[B] {event}. [A] found [object:B] {found_adj}."),
    Template("dative", "[B] {event}. [A] gave [object:B] the {thing}."),
    Template("reflexive", "[A] {verb} [reflexive:A] in the mirror."),
    Template("reflexive", "[B] said that [A] had {verb} [reflexive:A]."),
    Template("principle C", "[A] {event}. [Subject:A] said that [B] was tired."),
    Template("possessor", "[A] {verb} [possessive:A] neighbour."),
    Template("singular they", "The [R] {event}. [They:R] wanted the {thing}."),
    Template("two people", "[AB] {event}. [They:AB] looked for the {thing}."),
)


def check_disjoint(words: Iterable[str], used: Iterable[str], what: str) -> None:
    """A clear error naming the words the generator shares with a held-out set."""
    shared = sorted({w.lower() for w in words} & {w.lower() for w in used})
    if shared:
        raise ValueError(f"[spacy-entmem] grammar templates: {what} shared with a held-out set: {shared}")


class TemplateGenerator:
    """Renders ``TEMPLATES`` into documents with gold clusters."""

    def __init__(self, names: Dict[int, Sequence[str]], seed: int = 0):
        if not names.get(MASCULINE) or not names.get(FEMININE):
            raise ValueError("[spacy-entmem] grammar templates need masculine and feminine given names")
        self.names, self.random = names, random.Random(seed)

    def person(self, gender: int, taken: Set[str]) -> str:
        """A given name or "the" + a noun for people, not already in the item."""
        while True:
            word = (self.random.choice(self.names[gender]).capitalize() if self.random.random() < 0.5
                    else "the " + self.random.choice(ROLE_NOUNS))
            if word not in taken:
                taken.add(word)
                return word

    def fields(self) -> Dict[str, str]:
        small, small_rest = self.random.choice(SMALL_CLAUSE)
        infinitive, infinitive_rest = self.random.choice(INFINITIVE)
        thing = self.random.choice(THINGS)
        return {"verb": self.random.choice(TRANSITIVE), "verb2": self.random.choice(SECOND_VERBS),
                "control": self.random.choice(CONTROL_VERBS), "small": small,
                "small_rest": small_rest.format(adj=self.random.choice(ADJECTIVES), thing=thing),
                "infinitive": infinitive, "infinitive_rest": infinitive_rest,
                "found_adj": self.random.choice(FOUND_ADJECTIVES), "thing": thing,
                "event": self.random.choice(EVENTS)}

    def render(self, template: Template) -> Tuple[str, List[Tuple[int, int, str]]]:
        """(text, [(start char, end char, entity)]) of one item."""
        gender = self.random.choice((MASCULINE, FEMININE))
        taken: Set[str] = set()
        people = {"A": self.person(gender, taken), "B": self.person(gender, taken),
                  "R": self.random.choice(ROLE_NOUNS)}  # a role noun: "The [R]" writes its article
        people["AB"] = f"{people['A']} and {people['B']}"
        text, mentions, position = "", [], 0
        source = template.text.format(**self.fields())
        for match in SLOT.finditer(source):
            text += source[position:match.start()]
            position = match.end()
            kind, who = match.group(1), match.group(2)
            if who is None:  # a person
                word = people[kind]
                entity = kind
                if kind == "AB":  # the group, and each of its two people
                    mentions.append((len(text), len(text) + len(people["A"]), "A"))
                    b_start = len(text) + len(people["A"]) + len(" and ")
                    mentions.append((b_start, b_start + len(people["B"]), "B"))
            elif kind.lower() == "they":
                word, entity = "they", who
            else:
                word = PRONOUN_FORMS[gender][kind.lower()]
                entity = who if who != "new" else "new"
            if kind[:1].isupper() and kind not in ("A", "B", "R", "AB") or not text or text.endswith(". "):
                word = word[:1].upper() + word[1:]
            start = len(text)
            if kind == "R":  # "The [R]": the article is in the text before the slot
                start = text.rfind("The ")
            mentions.append((start, len(text) + len(word), entity))
            text += word
        text += source[position:]
        return text, mentions

    def docs(self, nlp: Language, n: int) -> List[Doc]:
        """``n`` documents (the templates in turn), tokenised by ``nlp``'s tokenizer, with gold clusters."""
        out = []
        for i in range(n):
            text, mentions = self.render(TEMPLATES[i % len(TEMPLATES)])
            doc = nlp.make_doc(text)
            entities: Dict[str, list] = {}
            for start, end, entity in mentions:
                span = doc.char_span(start, end)
                if span is None:
                    raise ValueError(f"[spacy-entmem] grammar template {i}: {text[start:end]!r} in {text!r} does "
                                     "not fall on token boundaries")
                entities.setdefault(entity, []).append(span)
            for k, spans in enumerate(entities.values(), start=1):
                doc.spans[f"coref_clusters_{k}"] = sorted(spans, key=lambda s: s.start)
            out.append(doc)
        return out


def generator_words() -> Set[str]:
    """The generator's own content words (for the disjointness checks)."""
    words = set(ROLE_NOUNS) | set(TRANSITIVE) | set(SECOND_VERBS) | set(THINGS)
    words |= {w for verb in CONTROL_VERBS for w in verb.split() if w != "to"}
    words |= {verb for verb, _ in SMALL_CLAUSE} | {verb for verb, _ in INFINITIVE}
    return words - {"made", "let", "had", "helped", "found", "gave", "said", "wanted", "needed"}


def disjoint_names(name_genders: Dict[str, int], held_out: Iterable[str], per_gender: int = 60,
                   seed: int = 0) -> Dict[int, List[str]]:
    """Per gender, ``per_gender`` given names of the lexicon that are not in ``held_out`` (the names of the
    challenge suite and the test sets)."""
    held = {w.lower() for w in held_out}
    rng = random.Random(seed)
    out = {}
    for gender in (MASCULINE, FEMININE):
        pool = sorted(n for n, g in name_genders.items() if g == gender and n not in held and n.isalpha()
                      and len(n) > 2)
        rng.shuffle(pool)
        out[gender] = pool[:per_gender]
    return out


def capitalised_words(texts: Iterable[str]) -> Set[str]:
    """Lower-cased capitalised words of ``texts`` (what a held-out set's names are taken to be)."""
    return {w.lower() for text in texts for w in re.findall(r"\b[A-Z][a-z]+\b", text)}


def words_of(texts: Iterable[str]) -> Set[str]:
    return {w.lower() for text in texts for w in re.findall(r"[A-Za-z]+", text)}


def render_check(generator: Optional[TemplateGenerator] = None) -> List[str]:
    """One rendering of every template (for reading)."""
    generator = generator or TemplateGenerator({MASCULINE: ["tobias"], FEMININE: ["greta"]})
    return [generator.render(template)[0] for template in TEMPLATES]


def template_corpus(nlp: Language, n: int, name_genders: Dict[str, int], held_out_texts: Sequence[str],
                    seed: int = 0) -> List[Doc]:
    """``n`` template documents whose names are none of the capitalised words of ``held_out_texts`` and whose
    nouns for people and verbs are none of their words (the challenge suite's and the role-participant set's
    items; a test corpus's texts add names only, see ``names_only``)."""
    check_disjoint(generator_words(), words_of(held_out_texts), "nouns for people or verbs")
    return TemplateGenerator(disjoint_names(name_genders, capitalised_words(held_out_texts)), seed).docs(nlp, n)
