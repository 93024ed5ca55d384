"""The shipped pipeline with some of its grammar switched off, for ablations: the decision rules that read the
parse or the speakers' turns, the parse's places and time expressions in the animacy rule, the parser itself,
and the finer switches of those rules (``SWITCHES``)."""
from contextlib import contextmanager
from typing import Iterable, Iterator, Mapping, Optional

from spacy.language import Language

from ..linguistics.switches import SWITCH_NAMES, using
from ..linguistics import syntax

GRAMMAR_RULES = ("syntactic_binding", "person_agreement", "singular_they", "reader_you")
SWITCHES = SWITCH_NAMES  # the finer parts of those rules an ablation can switch off one by one

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
    readers = [pipe for _, pipe in nlp.pipeline if isinstance(getattr(pipe, "cfg", None), dict)
               and "grammar_switches" in pipe.cfg]  # the components whose rules read the switches
    saved_switches = [pipe.cfg["grammar_switches"] for pipe in readers]
    variant = memory.grammar_switches.with_changes(principles=tuple(p for p in syntax.PRINCIPLES if p in principles),
                                                  **{name: bool(value) for name, value in switches.items()})
    for pipe in readers:
        pipe.cfg["grammar_switches"] = variant.to_config()
    place_or_time = syntax.place_or_time
    memory.cfg.update({rule: False for rule in rules_off})
    if not things:
        syntax.place_or_time = _no_place_or_time
    disabled = ["parser"] if not parser and "parser" in nlp.pipe_names else []
    try:
        with nlp.select_pipes(disable=disabled), using(variant):  # the switches of the other components too
            yield nlp
    finally:
        memory.cfg.update(saved)
        syntax.place_or_time = place_or_time
        for pipe, table in zip(readers, saved_switches):
            pipe.cfg["grammar_switches"] = table
