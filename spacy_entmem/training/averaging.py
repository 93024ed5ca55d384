"""Checkpoint averaging: the element-wise mean of the weights of several pipelines that share a config and a
starting point (the checkpoints of one run, or runs from the same checkpoint with other seeds), as one pipeline.

Weights live in two places: thinc parameters (tok2vec, span finder) and the torch modules behind thinc's
``PyTorchShim`` (the memories). Both are averaged; integer buffers (counters) are taken from the first pipeline.
"""
from typing import List, Sequence

import torch
from spacy.language import Language
from thinc.api import Model


def average_pipelines(nlps: Sequence[Language]) -> Language:
    """Average the weights of ``nlps`` into the first of them (modified in place and returned). Raises
    ValueError naming the component and weight where the pipelines differ in structure."""
    if not nlps:
        raise ValueError("[spacy-entmem] average_pipelines needs at least one pipeline")
    first = nlps[0]
    for k, nlp in enumerate(nlps[1:], start=1):
        if nlp.pipe_names != first.pipe_names:
            raise ValueError(f"[spacy-entmem] pipeline {k} has components {nlp.pipe_names}, "
                             f"pipeline 0 has {first.pipe_names}")
    for name in first.pipe_names:
        if not isinstance(getattr(first.get_pipe(name), "model", None), Model):
            continue
        _average_models(name, [nlp.get_pipe(name).model for nlp in nlps])
    return first


def _average_models(component: str, models: List[Model]) -> None:
    walks = [list(model.walk()) for model in models]
    for k, walk in enumerate(walks[1:], start=1):
        if [node.name for node in walk] != [node.name for node in walks[0]]:
            raise ValueError(f"[spacy-entmem] component '{component}': the layers of pipeline {k} differ from "
                             f"pipeline 0's")
    for nodes in zip(*walks):
        node = nodes[0]
        for param in node.param_names:
            if not node.has_param(param):
                continue
            values = [n.get_param(param) for n in nodes]
            if any(v.shape != values[0].shape for v in values):
                raise ValueError(f"[spacy-entmem] component '{component}', layer '{node.name}', weight "
                                 f"'{param}': shapes {[v.shape for v in values]} differ")
            node.set_param(param, sum(values) / len(values))
        for shims in zip(*(n.shims for n in nodes)):
            modules = [getattr(shim, "_model", None) for shim in shims]
            if isinstance(modules[0], torch.nn.Module):
                _average_modules(component, modules)


def _average_modules(component: str, modules: List[torch.nn.Module]) -> None:
    states = [module.state_dict() for module in modules]
    averaged = {}
    for key, value in states[0].items():
        others = [state.get(key) for state in states]
        if any(o is None or o.shape != value.shape for o in others):
            raise ValueError(f"[spacy-entmem] component '{component}', torch weight '{key}': missing or of "
                             f"another shape in some pipeline")
        averaged[key] = torch.stack(others).mean(dim=0) if value.is_floating_point() else value.clone()
    modules[0].load_state_dict(averaged)
