"""The shipped pipeline with some of its grammar switched off, for ablations: the decision rules that read the
parse or the speakers' turns, the parse's places and time expressions in the animacy rule, the parser itself."""
from contextlib import contextmanager
from typing import Iterable, Iterator, Optional

from spacy.language import Language

from ..nn.memory import mention_memory
from ..pipeline import syntax

GRAMMAR_RULES = ("syntactic_binding", "person_agreement", "singular_they")


def _no_place_or_time(doc, start: int, end: int, root_index: Optional[int] = None) -> int:
    return syntax.NOT_A_THING


@contextmanager
def grammar_variant(nlp: Language, rules_off: Iterable[str] = (), things: bool = True,
                    parser: bool = True, principles: Iterable[str] = syntax.PRINCIPLES,
                    impersonal_it: bool = True) -> Iterator[Language]:
    """``nlp`` with the entity_memory rules in ``rules_off`` off, without places and times in the animacy rule
    unless ``things``, with its parser disabled unless ``parser``, reading only the binding ``principles`` named
    (``syntax.PRINCIPLES``), and with ``person_agreement`` leaving "it" alone unless ``impersonal_it``; everything
    is restored on exit."""
    memory = nlp.get_pipe("entity_memory")
    saved = {rule: memory.cfg.get(rule, False) for rule in GRAMMAR_RULES}
    unknown = set(rules_off) - set(GRAMMAR_RULES)
    if unknown:
        raise ValueError(f"[spacy-entmem] unknown grammar rule(s) {sorted(unknown)}; known: {GRAMMAR_RULES}")
    unknown_principles = set(principles) - set(syntax.PRINCIPLES)
    if unknown_principles:
        raise ValueError(f"[spacy-entmem] unknown binding principle(s) {sorted(unknown_principles)}; known: "
                         f"{syntax.PRINCIPLES}")
    place_or_time, active, it = syntax.place_or_time, syntax.ACTIVE_PRINCIPLES, mention_memory.IMPERSONAL_IT
    syntax.ACTIVE_PRINCIPLES = frozenset(principles)
    mention_memory.IMPERSONAL_IT = impersonal_it
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
        mention_memory.IMPERSONAL_IT = it
