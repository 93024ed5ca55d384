"""spacy-entmem: spaCy components that read documents left to right with a bounded entity memory."""
from pathlib import Path

from .evaluation import scorers  # noqa: F401  (registers functions)
from .models import contextual_listener, entity_lm, memory, static_vectors  # noqa: F401
from .pipeline import chunked_tok2vec, entity_lm_scorer, span_proposals  # noqa: F401
from .training import callbacks  # noqa: F401
from .pipeline.attributes import main_mention, register_extensions
from .pipeline.entity_lm_scorer import EntityLMScorer
from .pipeline.entity_memory import EntityMemory

__version__ = "0.1.0"
DEFAULT_PIPELINE = Path(__file__).parent / "pipelines" / "default"

register_extensions()


def load_default(mention_scheme: str = "litbank", **kwargs):
    """Load the default trained pipeline shipped with the package (offline). ``mention_scheme`` says which
    mentions it proposes: "litbank" (people, places, organisations, facilities, vehicles, groups) or "gum"
    (every entity, abstract ones and events too); ``kwargs`` go to ``spacy.load``."""
    import spacy

    from .pipeline.mention_schemes import use_mention_scheme

    if not (DEFAULT_PIPELINE / "config.cfg").exists():
        raise OSError(f"[spacy-entmem] the default pipeline is missing from {DEFAULT_PIPELINE}")
    return use_mention_scheme(spacy.load(DEFAULT_PIPELINE, **kwargs), mention_scheme)


__all__ = ["EntityMemory", "EntityLMScorer", "load_default", "main_mention", "register_extensions", "DEFAULT_PIPELINE"]
