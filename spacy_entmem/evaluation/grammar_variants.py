"""The shipped pipeline with some of its grammar switched off, for ablations: the decision rules that read the
parse or the speakers' turns, the parse's places and time expressions in the animacy rule, the parser itself,
and the finer switches of those rules (``SWITCHES``)."""
from contextlib import contextmanager
from typing import Dict, Iterable, Iterator, Mapping, Optional, Tuple

from spacy.language import Language

from ..models import memory as memory_model
from ..nn.memory import mention_memory
from ..pipeline import mention_attributes, span_proposals, speakers, syntax, turns

GRAMMAR_RULES = ("syntactic_binding", "person_agreement", "singular_they", "reader_you")
# name → (module, its module-level flag): the parts of the rules an ablation can switch off one by one
SWITCHES: Dict[str, Tuple[object, str]] = {
    "impersonal_it": (mention_memory, "IMPERSONAL_IT"),  # person_agreement: "it" never joins an I / you cell
    "we_person": (turns, "WE_IS_A_PERSON"),  # person_agreement: we / us / our is a person of its own
    "times_are_nobody": (mention_memory, "TIMES_ARE_NOBODY"),  # animacy: "yesterday" never joins a person
    "plural_they": (mention_memory, "PLURAL_THEY_JOINS_NEAR"),  # a new "they" joins the people of a near plural
    "signature": (turns, "SIGNATURE_IS_THE_WRITER"),  # person_agreement: "Best, Mark" is the letter's writer
    "possessed_third": (turns, "POSSESSED_ARE_THIRD_PERSON"),  # person_agreement: "our accountant" is a third person
    "brackets": (syntax, "BRACKETED_CLAUSES_ALONE"),  # binding: a bracketed clause shares no subject
    "datives": (syntax, "REPAIR_DATIVES"),  # binding: a possessor that cannot be one is a dative
    "they_among_all_people": (mention_memory, "THEY_AMONG_ALL_PEOPLE"),  # singular they: one person near
    "they_person_nouns": (mention_memory, "THEY_NEEDS_PERSON_NOUN"),  # singular they: nouns for people only
    "learnt_person_nouns": (memory_model, "LEARNT_PERSON_NOUNS"),  # singular they: the learnt nouns for people
    "labelled_voices": (mention_attributes, "LABELLED_VOICES"),  # "Nurse: … / Patient: my …": the patient's I
    "person_noun_plurals": (mention_attributes, "PLURALS_OF_PERSON_NOUNS"),  # "engineers" is "engineer" plural
    "person_nouns_not_names": (mention_attributes, "PERSON_NOUNS_NOT_NAMES"),  # no name is a person noun
    "clauses_cover_nothing": (span_proposals, "CLAUSES_COVER_NOTHING"),  # finder: a clause covers no person noun
    "fragments_cover_nothing": (span_proposals, "FRAGMENTS_COVER_NOTHING"),  # finder: nor does a non-constituent
    "reported_they": (mention_memory, "REPORTED_THEY"),  # singular they: "The gardener said that they …"
    "they_joins": (mention_memory, "THEY_JOINS_ITS_PERSON"),  # singular they: joins its one person's cell
    "telling": (speakers, "TELLING_ATTRIBUTES"),  # speakers: "…," Robert told Sarah
    "addressees": (speakers, "ADDRESSEES"),  # speaker_continuity: a quoted you joins its addressee
    "later_leaders": (mention_memory, "FOLLOW_LATER_LEADERS"),  # speaker_continuity: "“I …,” said Harry"
    "speaker_genders": (mention_attributes, "SPEAKER_GENDERS"),  # a quoted I / you has its speaker's gender
}

# the pipeline as it was before the grammar work: no parser, none of the rules, none of the switches
PREVIOUS_DEFAULT = {"rules_off": GRAMMAR_RULES, "things": False, "parser": False,
                    "switches": {name: False for name in SWITCHES}}


def _no_place_or_time(doc, start: int, end: int, root_index: Optional[int] = None) -> int:
    return syntax.NOT_A_THING


@contextmanager
def grammar_variant(nlp: Language, rules_off: Iterable[str] = (), things: bool = True,
                    parser: bool = True, principles: Iterable[str] = syntax.PRINCIPLES,
                    switches: Mapping[str, bool] = {}) -> Iterator[Language]:
    """``nlp`` with the entity_memory rules in ``rules_off`` off, without places and times in the animacy rule
    unless ``things``, with its parser disabled unless ``parser``, reading only the binding ``principles`` named
    (``syntax.PRINCIPLES``), and with the ``switches`` named (``SWITCHES``) set as given; everything is restored
    on exit."""
    memory = nlp.get_pipe("entity_memory")
    saved = {rule: memory.cfg.get(rule, False) for rule in GRAMMAR_RULES}
    unknown = set(rules_off) - set(GRAMMAR_RULES)
    if unknown:
        raise ValueError(f"[spacy-entmem] unknown grammar rule(s) {sorted(unknown)}; known: {GRAMMAR_RULES}")
    unknown_principles = set(principles) - set(syntax.PRINCIPLES)
    if unknown_principles:
        raise ValueError(f"[spacy-entmem] unknown binding principle(s) {sorted(unknown_principles)}; known: "
                         f"{syntax.PRINCIPLES}")
    unknown_switches = set(switches) - set(SWITCHES)
    if unknown_switches:
        raise ValueError(f"[spacy-entmem] unknown grammar switch(es) {sorted(unknown_switches)}; known: "
                         f"{sorted(SWITCHES)}")
    flags = {name: getattr(*SWITCHES[name]) for name in SWITCHES}
    place_or_time, active = syntax.place_or_time, syntax.ACTIVE_PRINCIPLES
    syntax.ACTIVE_PRINCIPLES = frozenset(principles)
    for name, value in switches.items():
        setattr(*SWITCHES[name], bool(value))
    memory.cfg.update({rule: False for rule in rules_off})
    if not things:
        syntax.place_or_time = _no_place_or_time
    disabled = ["parser"] if not parser and "parser" in nlp.pipe_names else []
    try:
        with nlp.select_pipes(disable=disabled):
            yield nlp
    finally:
        memory.cfg.update(saved)
        syntax.place_or_time, syntax.ACTIVE_PRINCIPLES = place_or_time, active
        for name, value in flags.items():
            setattr(*SWITCHES[name], value)
