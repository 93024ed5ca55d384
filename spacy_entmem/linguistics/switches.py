"""The grammar's switches: the finer parts of the rules that read the parse, the speakers' turns and the
lexicons, each of which an ablation can turn off (``evaluation.grammar_variants``).

They are settings of the components that read them (``entity_memory`` and the mention finder:
``grammar_switches``, a table of the ones that differ from the default), saved and loaded with the pipeline's
config. A component makes its switches the active ones while it runs (``using``); the rule code reads the
active ones (``active``). Outside any component every switch has its default (all on, all binding principles)."""
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields, replace
from functools import wraps
from typing import Any, Callable, Iterator, Mapping, Tuple

PRINCIPLES = ("A", "B", "C", "i-within-i")


@dataclass(frozen=True)
class GrammarSwitches:
    impersonal_it: bool = True  # person agreement: "it" never joins an I / you cell
    we_person: bool = True  # person agreement: we / us / our is a person of its own
    times_are_nobody: bool = True  # animacy: "yesterday" never joins a person
    plural_they: bool = True  # a new "they" joins the people of a near plural
    signature: bool = True  # person agreement: "Best, Mark" is the letter's writer, proposed and joined to its I
    possessed_third: bool = True  # person agreement: "our accountant" is a third person
    brackets: bool = True  # binding: a bracketed clause shares no subject
    datives: bool = True  # binding: a possessor that cannot be one is a dative
    they_among_all_people: bool = True  # singular they: one person near, among all people
    they_person_nouns: bool = True  # singular they: nouns for people only
    learnt_person_nouns: bool = True  # nouns for people: the learnt and WordNet lists beside the typed heads
    labelled_voices: bool = True  # "Nurse: … / Patient: my …": the patient's I
    person_noun_plurals: bool = True  # "engineers" is "engineer" plural
    person_nouns_not_names: bool = True  # no name is a person noun
    clauses_cover_nothing: bool = True  # finder: a clause covers no person noun
    fragments_cover_nothing: bool = True  # finder: nor does a non-constituent
    reported_they: bool = True  # singular they: "The gardener said that they …"
    they_joins: bool = True  # singular they: joins its one person's cell
    telling: bool = True  # speakers: "…," Robert told Sarah
    addressees: bool = True  # speaker continuity: a quoted you joins its addressee
    later_leaders: bool = True  # speaker continuity: "“I …,” said Harry"
    speaker_genders: bool = True  # a quoted I / you has its speaker's gender
    small_clause_subjects: bool = True  # binding: "let her use", "made him feel": the main verb's co-argument
    names_not_plural: bool = True  # plural agreement: a singular name never joins a cell of plurals only
    of_names_apart: bool = True  # "the Witch of the North" never joins a cell of "the Witch of the East"
    office_titles: bool = True  # a title of office ("Mayor Elena Ortiz") is no given name: it gives no gender
    vocatives: bool = True  # speaker continuity: a vocative said to the narrator ("“…,” said I. “Jim, …”") joins it
    narrator_unnamed: bool = True  # person agreement: an unquoted name never joins an unnamed narrator's I
    alternating_turns: bool = True  # speakers: an unattributed turn of a two-person exchange is the speaker two back
    full_names_apart: bool = True  # a name of two or more name words never joins a cell whose names share none
    principles: Tuple[str, ...] = PRINCIPLES  # the binding principles read

    @classmethod
    def from_config(cls, settings: Mapping[str, Any], where: str = "grammar_switches") -> "GrammarSwitches":
        """The switches a config table names (the others at their defaults); a clear error naming ``where``
        for an unknown name or a value of the wrong type."""
        known = {field.name for field in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ValueError(f"[spacy-entmem] {where}: unknown grammar switch(es) {unknown}; known: {sorted(known)}")
        values = dict(settings)
        for name, value in values.items():
            if name == "principles":
                if isinstance(value, str) or not set(value) <= set(PRINCIPLES):
                    raise ValueError(f"[spacy-entmem] {where}.principles: a list of binding principles among "
                                     f"{list(PRINCIPLES)}, not {value!r}")
                values[name] = tuple(p for p in PRINCIPLES if p in set(value))
            elif not isinstance(value, bool):
                raise ValueError(f"[spacy-entmem] {where}.{name}: true or false, not {value!r}")
        return cls(**values)

    def to_config(self) -> dict:
        """The switches that differ from the default, as a config table (what ``from_config`` reads back)."""
        default = GrammarSwitches()
        table = {k: v for k, v in asdict(self).items() if v != getattr(default, k)}
        if "principles" in table:
            table["principles"] = list(table["principles"])
        return table

    def with_changes(self, **changes: Any) -> "GrammarSwitches":
        return replace(self, **changes)


DEFAULT_SWITCHES = GrammarSwitches()
SWITCH_NAMES = tuple(field.name for field in fields(GrammarSwitches) if field.name != "principles")
_ACTIVE: ContextVar[GrammarSwitches] = ContextVar("grammar_switches", default=DEFAULT_SWITCHES)


def active() -> GrammarSwitches:
    """The switches of the component now running (the defaults outside one)."""
    return _ACTIVE.get()


@contextmanager
def using(switches: GrammarSwitches) -> Iterator[GrammarSwitches]:
    """Make ``switches`` the active ones within the block (restored on exit, also on an error)."""
    token = _ACTIVE.set(switches)
    try:
        yield switches
    finally:
        _ACTIVE.reset(token)


def with_own_switches(method: Callable) -> Callable:
    """Run a component's method with the component's ``grammar_switches`` active."""
    @wraps(method)
    def wrapped(self, *args, **kwargs):
        with using(self.grammar_switches):
            return method(self, *args, **kwargs)
    return wrapped


def switched_off(*names: str):
    """The defaults with the switches ``names`` off, made active within a ``with`` block (for ablations and
    tests): ``with switched_off("times_are_nobody"): ...``."""
    unknown = sorted(set(names) - set(SWITCH_NAMES))
    if unknown:
        raise ValueError(f"[spacy-entmem] unknown grammar switch(es) {unknown}; known: {sorted(SWITCH_NAMES)}")
    return using(DEFAULT_SWITCHES.with_changes(**{name: False for name in names}))
