"""Put a component trained in another pipeline (a mention finder trained over the default's frozen tok2vec,
say) into a pipeline in place of its own, after checking that the encoder it listens to is the same."""
from pathlib import Path
from typing import Any, Dict

import numpy

from spacy.language import Language
from thinc.api import Model


def same_weights(a: Model, b: Model, atol: float = 1e-6) -> bool:
    """Whether two thinc models have the same layers and parameters of the same shapes and values, up to
    float32 rounding (``atol``): averaging the checkpoints of a run whose encoder was frozen gives back its
    weights to the last bit or so."""
    nodes_a, nodes_b = list(a.walk()), list(b.walk())
    if [n.name for n in nodes_a] != [n.name for n in nodes_b]:
        return False
    for x, y in zip(nodes_a, nodes_b):
        if x.param_names != y.param_names:
            return False
        for param in x.param_names:
            if x.has_param(param) != y.has_param(param):
                return False
            if x.has_param(param) and not same_array(x.ops.to_numpy(x.get_param(param)),
                                                     y.ops.to_numpy(y.get_param(param)), atol):
                return False
    return True


def same_array(x: numpy.ndarray, y: numpy.ndarray, atol: float) -> bool:
    """Same shape (no broadcasting) and every value within ``atol``."""
    return x.shape == y.shape and numpy.allclose(x, y, rtol=0, atol=atol)


def check_upstream(nlp: Language, source: Language, name: str) -> None:
    """ValueError unless every component that ``source``'s ``name`` listens to is in ``nlp`` with the same
    weights (the component was trained on their output)."""
    if name not in source.pipe_names:
        raise ValueError(f"[spacy-entmem] the source pipeline has no component '{name}' "
                         f"(it has {source.pipe_names})")
    for upstream in source.pipe_names[:source.pipe_names.index(name)]:
        if name not in getattr(source.get_pipe(upstream), "listening_components", []):
            continue
        if upstream not in nlp.component_names:
            raise ValueError(f"[spacy-entmem] '{name}' listens to '{upstream}', which the pipeline lacks")
        if not same_weights(nlp.get_pipe(upstream).model, source.get_pipe(upstream).model):
            raise ValueError(f"[spacy-entmem] '{name}' was trained over another '{upstream}' than the "
                             "pipeline's (its weights differ): its scores would not carry over")


def replace_component(nlp: Language, source: Language, name: str) -> Language:
    """``nlp`` with its component ``name`` replaced by ``source``'s (same position); see ``check_upstream``."""
    if name not in nlp.pipe_names:
        raise ValueError(f"[spacy-entmem] the pipeline has no component '{name}' (it has {nlp.pipe_names})")
    check_upstream(nlp, source, name)
    position = nlp.pipe_names.index(name)
    nlp.remove_pipe(name)
    nlp.add_pipe(name, source=source, before=nlp.pipe_names[position] if position < len(nlp.pipe_names) else None)
    return nlp


def add_component(nlp: Language, source: Language, name: str, new_name: str, before: str) -> Language:
    """``nlp`` with ``source``'s component ``name`` added as ``new_name`` before ``before``; see
    ``check_upstream``."""
    if new_name in nlp.component_names:
        raise ValueError(f"[spacy-entmem] the pipeline already has a component '{new_name}'")
    check_upstream(nlp, source, name)
    nlp.add_pipe(name, name=new_name, source=source, before=before)
    return nlp


def set_component_settings(pipeline: Path, settings: Dict[str, Dict[str, Any]]) -> None:
    """Write component → {key: value} into a saved pipeline's config.cfg and each component's cfg (the
    config is what a component's settings are read from at load time)."""
    import srsly
    from thinc.api import Config

    config = Config().from_disk(pipeline / "config.cfg", interpolate=False)
    for component, values in settings.items():
        if not (pipeline / component / "cfg").exists():
            continue
        cfg = srsly.read_json(pipeline / component / "cfg")
        cfg.update(values)
        srsly.write_json(pipeline / component / "cfg", cfg)
        config["components"][component].update(values)
    config.to_disk(pipeline / "config.cfg")
