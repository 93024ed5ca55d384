"""Registered callbacks used by the training configs."""
from typing import Callable, List

from spacy.language import Language
from spacy.util import registry


@registry.callbacks("spacy_entmem.initialize_frozen.v1")
def make_initialize_frozen(components: List[str]) -> Callable[[Language], Language]:
    """``[initialize.before_init]``: initialize frozen components (e.g. a pretrained transformer used as a
    fixed feature extractor, as PeTra does with BERT) that ``spacy train`` would otherwise skip."""

    def initialize_frozen(nlp: Language) -> Language:
        for name in components:
            if name not in nlp.component_names:
                raise ValueError(f"[spacy-entmem] initialize_frozen: no component '{name}' in {nlp.component_names}")
            pipe = nlp.get_pipe(name)
            pipe.model.initialize()
            # Listeners learn their width from the upstream model once it is known.
            for listener in getattr(pipe, "listeners", []):
                if pipe.model.has_dim("nO") and listener.has_dim("nO") is None:
                    listener.set_dim("nO", pipe.model.get_dim("nO"))
        return nlp

    return initialize_frozen
