"""Which annotation scheme's mentions a pipeline proposes.

Corpora disagree on what a mention is: LitBank marks people, places, organisations, facilities, vehicles and
groups; GUM marks every entity, abstract ones and events too. One finder trained on both learns neither (on GUM
dev it finds 57 % of the gold mentions). The default pipeline therefore carries a finder per scheme, and may
carry a memory fine-tuned on a scheme's candidates. A scheme's own component is named ``{role}_{scheme}``
(``span_finder_gum``); the chosen scheme's run under the role's name (``span_finder``, ``entity_memory``), so
every setting and command that names them finds them, and the other schemes' are left out. A scheme without a
component of its own for a role uses the pipeline's (the default scheme's) one.
"""
from pathlib import Path
from typing import Iterable, List, Union

import spacy
from spacy.language import Language

FINDER, MEMORY = "span_finder", "entity_memory"
ROLES = (FINDER, MEMORY)
MENTION_SCHEMES = ("litbank", "gum")
DEFAULT_SCHEME = "litbank"
# the pronoun resolver's own memory (disabled) where the pipeline annotates with another one: the resolver's
# ``memory`` setting names it
QUERY_MEMORY = "entity_memory_queries"
# the resolver, trained on what the default scheme's memory writes over the default finder's candidates, and its
# memory: left out when a scheme has its own memory
DEFAULT_MEMORY_READERS = ("pronoun_resolver", QUERY_MEMORY)


def scheme_component(role: str, scheme: str) -> str:
    """The name of ``scheme``'s own component for ``role`` (the role's name for the default scheme)."""
    return role if scheme == DEFAULT_SCHEME else f"{role}_{scheme}"


def available_schemes(nlp: Language) -> List[str]:
    """The schemes whose finder the pipeline has."""
    return [s for s in MENTION_SCHEMES if scheme_component(FINDER, s) in nlp.component_names]


def check_scheme(scheme: str) -> None:
    if scheme not in MENTION_SCHEMES:
        raise ValueError(f"[spacy-entmem] unknown mention scheme {scheme!r}: expected one of {sorted(MENTION_SCHEMES)}")


def left_out(scheme: str, names: Iterable[str]) -> List[str]:
    """The components among ``names`` that ``scheme`` does not run: the other schemes' own, and the default
    ones that ``scheme`` has its own of."""
    names = list(names)
    unused = [scheme_component(role, other) for other in MENTION_SCHEMES if other not in (scheme, DEFAULT_SCHEME)
              for role in ROLES if scheme_component(role, other) in names]
    if scheme != DEFAULT_SCHEME:
        unused += [role for role in ROLES if role in names and scheme_component(role, scheme) in names]
        if scheme_component(MEMORY, scheme) in names:
            unused += [name for name in DEFAULT_MEMORY_READERS if name in names]
    return unused


def use_mention_scheme(nlp: Language, scheme: str) -> Language:
    """Make the components of ``scheme`` the pipeline's ``span_finder`` (and ``entity_memory`` where the scheme
    has one) and leave the other schemes' out (removed: a scheme is chosen once, when the pipeline is loaded).
    ValueError names the schemes the pipeline can use when ``scheme`` is unknown or its finder is missing."""
    check_scheme(scheme)
    if scheme_component(FINDER, scheme) not in nlp.component_names:
        raise ValueError(f"[spacy-entmem] this pipeline has no finder for the mention scheme {scheme!r} (component "
                         f"'{scheme_component(FINDER, scheme)}'); it can use: "
                         f"{', '.join(available_schemes(nlp)) or 'none'}")
    for name in left_out(scheme, nlp.component_names):
        nlp.remove_pipe(name)
    for role in ROLES:
        own = scheme_component(role, scheme)
        if own == role or own not in nlp.component_names:
            continue
        if own in nlp.disabled:
            nlp.enable_pipe(own)
        nlp.rename_pipe(own, role)
    return nlp


def load_with_scheme(path: Union[str, Path], scheme: str, **kwargs) -> Language:
    """``spacy.load(path, **kwargs)`` running the components of ``scheme``; the components it does not run are
    not loaded at all (their weights cost a fifth of the loading time)."""
    check_scheme(scheme)
    config = Path(path) / "config.cfg"
    names = spacy.util.load_config(config)["nlp"]["pipeline"] if config.exists() else []
    exclude = [*kwargs.pop("exclude", []), *left_out(scheme, names)]
    return use_mention_scheme(spacy.load(path, exclude=exclude, **kwargs), scheme)
