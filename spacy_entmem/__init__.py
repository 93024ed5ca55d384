"""spacy-entmem: spaCy components that read documents left to right with a bounded entity memory."""
from pathlib import Path

from .evaluation import scorers  # noqa: F401  (registers functions)
from .models import causal_lm_features, contextual_listener, entity_lm, memory, static_vectors  # noqa: F401
from .pipeline import chunked_tok2vec, entity_lm_scorer, numpy_blas, pronoun_resolver, span_proposals  # noqa: F401
from .training import callbacks, widening  # noqa: F401
from .pipeline.attributes import main_mention, register_extensions
from .pipeline.entity_lm_scorer import EntityLMScorer
from .pipeline.entity_memory import EntityMemory
from .pipeline.mention_schemes import DEFAULT_SCHEME, load_with_scheme
from .pipeline.pronoun_resolver import PronounResolver, resolve_pronoun

__version__ = "0.1.0"
DEFAULT_PIPELINE = Path(__file__).parent / "pipelines" / "default"

register_extensions()


def load_default(mention_scheme: str = DEFAULT_SCHEME, **kwargs):
    """Load the default trained pipeline shipped with the package (offline). ``mention_scheme`` says which
    mentions it proposes: "litbank" (people, places, organisations, facilities, vehicles, groups) or "gum"
    (every entity, abstract ones and events too); ``kwargs`` go to ``spacy.load``."""
    if not (DEFAULT_PIPELINE / "config.cfg").exists():
        raise OSError(f"[spacy-entmem] the default pipeline is missing from {DEFAULT_PIPELINE}")
    return load_with_scheme(DEFAULT_PIPELINE, mention_scheme, **kwargs)


__all__ = ["EntityMemory", "EntityLMScorer", "PronounResolver", "load_default", "resolve_pronoun", "main_mention", "register_extensions", "DEFAULT_PIPELINE"]
