"""Warm-starting a memory whose token vectors gained features: copy a trained memory's weights into one built
for wider inputs, the new input columns of its encoder set to zero, so that the widened memory computes
exactly what the trained one did until training moves them (e.g. transformer features concatenated after the
tok2vec's, ``configs/experiments/coref_hybrid_trf.cfg``).

Only the encoder's input weights may differ in shape (the memory reads its token vectors in one place, the
GRU's input layer); every other weight must match.
"""
from typing import Callable, Dict

import spacy
import torch
from spacy.language import Language
from spacy.util import registry

from ..models.memory import torch_memory
from ..linguistics.cell_rules import PAIR_FEATURE_SIZES
from ..nn.memory.mention_memory import zero_padded_columns

WIDENED_WEIGHT = "encoder.weight_ih_l0"


def widen_state(trained: Dict[str, torch.Tensor], target: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """``trained``'s weights in ``target``'s shapes: the encoder's input weights padded with zero columns
    on the right. Raises ValueError naming the weight where the two cannot be matched."""
    unmatched = sorted(set(target) ^ set(trained))
    if unmatched:
        raise ValueError(f"[spacy-entmem] widen memory: weights {unmatched} are in only one of the two memories")
    state = {}
    for key, value in target.items():
        old = trained[key]
        padded = zero_padded_columns(old, value) if key == WIDENED_WEIGHT and old.shape != value.shape else None
        if old.shape == value.shape:
            state[key] = old.clone()
        elif padded is not None:
            state[key] = padded
        else:
            raise ValueError(f"[spacy-entmem] widen memory: weight '{key}' is {tuple(old.shape)} in the trained "
                             f"memory and {tuple(value.shape)} in the new one (only '{WIDENED_WEIGHT}' may "
                             f"gain input columns)")
    return state


def widen_memory(target: torch.nn.Module, trained: torch.nn.Module) -> None:
    """Load ``trained``'s weights into ``target`` (built for inputs at least as wide)."""
    target.load_state_dict(widen_state(trained.state_dict(), target.state_dict()))


@registry.callbacks("spacy_entmem.widen_memory.v1")
def make_widen_memory(source: str, component: str = "entity_memory") -> Callable[[Language], Language]:
    """``[initialize.after_init]``: copy the memory of the pipeline at ``source`` into ``component`` (built for
    wider token vectors whose first columns are the ones ``source``'s memory read)."""

    def widen(nlp: Language) -> Language:
        if component not in nlp.component_names:
            raise ValueError(f"[spacy-entmem] widen_memory: no component '{component}' in {nlp.component_names}")
        trained_nlp = spacy.load(source)
        if component not in trained_nlp.component_names:
            raise ValueError(f"[spacy-entmem] widen_memory: the pipeline at {source} has no component "
                             f"'{component}'")
        target = torch_memory(nlp.get_pipe(component).model)
        trained = torch_memory(trained_nlp.get_pipe(component).model)
        if target is None or trained is None:
            raise ValueError(f"[spacy-entmem] widen_memory: '{component}' is not initialized in "
                             f"{'the new pipeline' if target is None else source}")
        widen_memory(target, trained)
        return nlp

    return widen


def train_new_features_only(memory: torch.nn.Module) -> None:
    """Leave only the parse's pair features trainable in a ``MentionMemory`` with ``parse_features``: their
    embeddings and their columns of the similarity MLP's first layer (the other columns' gradients masked to
    zero); every other weight keeps its trained value."""
    if not getattr(memory, "parse_features", False):
        raise ValueError("[spacy-entmem] train_new_features_only: the memory has no parse features (architecture "
                         "spacy_entmem.MentionMemory.v2 has)")
    for parameter in memory.parameters():
        parameter.requires_grad_(False)
    for embedding in memory.pair_embeddings[len(PAIR_FEATURE_SIZES):]:
        embedding.weight.requires_grad_(True)
    weight = memory.similarity_mlp.memory_projs[2].weight
    mask = torch.zeros_like(weight)
    mask[:, len(PAIR_FEATURE_SIZES) * memory.pair_embeddings[0].embedding_dim:] = 1.0
    weight.requires_grad_(True)
    weight.register_hook(lambda grad: grad * mask)


@registry.callbacks("spacy_entmem.train_new_features_only.v1")
def make_train_new_features_only(component: str = "entity_memory") -> Callable[[Language], Language]:
    """``[initialize.after_init]``: train only the parse's pair features of ``component``'s memory
    (``train_new_features_only``), e.g. after loading a memory without them (their weights start at zero)."""

    def only_new_features(nlp: Language) -> Language:
        if component not in nlp.component_names:
            raise ValueError(f"[spacy-entmem] train_new_features_only: no component '{component}' in "
                             f"{nlp.component_names}")
        memory = torch_memory(nlp.get_pipe(component).model)
        if memory is None:
            raise ValueError(f"[spacy-entmem] train_new_features_only: '{component}' is not initialized")
        train_new_features_only(memory)
        return nlp

    return only_new_features
