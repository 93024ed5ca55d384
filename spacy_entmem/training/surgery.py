"""Weight surgery: give a trained mention memory (``MentionMemory.v1``) the animacy pair feature of
``MentionMemory.v2`` without changing what it computes, so that fine-tuning starts from the trained model.

The new feature's embedding is fresh and its block of the similarity MLP's first layer is zero: the pipeline
scores every (candidate, cell) pair exactly as before until training moves that block.
"""
import torch
from spacy.language import Language

from ..models.memory import find_memory_layer, torch_memory
from ..nn.memory.mention_memory import MentionMemory

V1, V2 = "spacy_entmem.MentionMemory.v1", "spacy_entmem.MentionMemory.v2"
FEATURE_WEIGHT = "similarity_mlp.memory_projs.2.weight"  # (mlp_width, n_features × feature_width)


def add_animacy_feature(nlp: Language, component: str = "entity_memory", seed: int = 0) -> Language:
    """Turn ``component``'s MentionMemory.v1 into a v2 with ``animacy_feature = true`` in place (config and
    torch module); raises ValueError if the component has no v1 mention memory."""
    pipe = nlp.get_pipe(component)
    model_config = nlp.config["components"][component]["model"]
    if model_config.get("@architectures") != V1:
        raise ValueError(f"[spacy-entmem] component '{component}' uses {model_config.get('@architectures')!r}; "
                         f"the animacy feature is added to a trained {V1}")
    old = torch_memory(pipe.model)
    if old is None:
        raise ValueError(f"[spacy-entmem] component '{component}' is not trained yet: nothing to extend")
    settings = {key: value for key, value in model_config.items() if key not in ("@architectures", "tok2vec")}
    torch.manual_seed(seed)
    layer = find_memory_layer(pipe.model)
    new = MentionMemory(layer.get_dim("nI"), **settings, animacy_feature=True)
    new.load_state_dict(extended_state(old.state_dict(), new.state_dict()))
    layer.layers[0].shims[0]._model = new
    pipe.model.attrs["animacy_feature"] = True
    nlp._pipe_configs[component]["model"] = {"@architectures": V2, **settings, "animacy_feature": True,
                                             "tok2vec": model_config["tok2vec"]}
    return nlp


def extended_state(old: dict, new: dict) -> dict:
    """The new module's state: every old weight copied; the feature block of the similarity MLP's first
    layer widened with zero columns; the new feature's embedding as initialised."""
    state = dict(new)
    for key, value in old.items():
        if key == FEATURE_WEIGHT:
            widened = torch.zeros_like(new[key])
            widened[:, : value.shape[1]] = value
            state[key] = widened
        elif key not in new or new[key].shape != value.shape:
            raise ValueError(f"[spacy-entmem] torch weight '{key}' has no counterpart of shape "
                             f"{tuple(value.shape)} in the extended memory")
        else:
            state[key] = value
    return state
