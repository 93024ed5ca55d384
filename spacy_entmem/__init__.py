"""spacy-entmem: spaCy components that read documents left to right with a bounded entity memory."""
from pathlib import Path

from . import architectures, callbacks, chunked_tok2vec, scorers, span_proposals, static_vectors  # noqa: F401  (registers functions)
from .attributes import main_mention, register_extensions
from .component import EntityMemory

__version__ = "0.1.0"
DEFAULT_PIPELINE = Path(__file__).parent / "pipelines" / "default"

register_extensions()


def load_default(**kwargs):
    """Load the default trained pipeline shipped with the package (offline)."""
    import spacy

    if not (DEFAULT_PIPELINE / "config.cfg").exists():
        raise OSError(f"[spacy-entmem] the default pipeline is missing from {DEFAULT_PIPELINE}")
    return spacy.load(DEFAULT_PIPELINE, **kwargs)


__all__ = ["EntityMemory", "load_default", "main_mention", "register_extensions", "DEFAULT_PIPELINE"]
