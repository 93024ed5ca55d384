"""Which annotation scheme's mentions a pipeline proposes.

Corpora disagree on what a mention is: LitBank marks people, places, organisations, facilities, vehicles and
groups; GUM marks every entity, abstract ones and events too. One finder trained on both learns neither (on GUM
dev it finds 57 % of the gold mentions). The default pipeline therefore carries one finder per scheme; the one
of the chosen scheme runs under the name ``span_finder`` (so every setting and command that names the finder
finds it), the others are left out.
"""
from spacy.language import Language

FINDER = "span_finder"
# scheme → the component that proposes its mentions in a pipeline that carries several
MENTION_SCHEMES = {"litbank": FINDER, "gum": "span_finder_gum"}
DEFAULT_SCHEME = "litbank"


def use_mention_scheme(nlp: Language, scheme: str) -> Language:
    """Make the finder of ``scheme`` the pipeline's ``span_finder`` and leave the other schemes' finders out
    (removed: a scheme is chosen once, when the pipeline is loaded). ValueError names the schemes the pipeline
    can use when ``scheme`` is unknown or its finder is missing."""
    if scheme not in MENTION_SCHEMES:
        raise ValueError(f"[spacy-entmem] unknown mention scheme {scheme!r}: expected one of {sorted(MENTION_SCHEMES)}")
    available = sorted(s for s, name in MENTION_SCHEMES.items() if name in nlp.component_names)
    finder = MENTION_SCHEMES[scheme]
    if finder not in nlp.component_names:
        raise ValueError(f"[spacy-entmem] this pipeline has no finder for the mention scheme {scheme!r} (component "
                         f"'{finder}'); it can use: {', '.join(available) or 'none'}")
    for other in set(MENTION_SCHEMES.values()) - {finder}:
        if other in nlp.component_names:
            nlp.remove_pipe(other)
    if finder in nlp.disabled:
        nlp.enable_pipe(finder)
    if finder != FINDER:
        nlp.rename_pipe(finder, FINDER)
    return nlp
