"""Which token vectors an entity memory reads. The shipped memory listens to the shipped ``tok2vec`` (a
``Tok2VecListener``); sourced into another pipeline it attaches to whatever component of that pipeline bears the
name, reads vectors it was never trained on and loses clusters. Each memory records a digest of the weights of
the tok2vec it was shipped with (``cfg["tok2vec_digest"]``, set by ``record_tok2vec_digests``); the package's
tok2vec stamps every doc with its own digest (``VECTORS_STAMP``), and a listening memory warns once when the
vectors it reads carry another stamp or none (``stamp_problem``). ``foreign_listeners`` makes the same check on
a whole pipeline, and ``add_coref`` assembles one the right way (each sourced component with its own copy of
the shipped tok2vec).
"""
import hashlib
from typing import List, Optional

from spacy.language import Language
from thinc.api import Model

DIGEST_KEY = "tok2vec_digest"
# the user_data key under which the package's tok2vec (``entmem_tok2vec``) stamps each doc with its weights' digest
VECTORS_STAMP = "entmem_tok2vec_digest"
# the shipped components that listen to the shipped tok2vec, in pipeline order; ``add_coref`` copies the tagger
# and parser only into a pipeline that has none
LISTENING_COMPONENTS = ("tagger", "parser", "span_finder", "entity_memory")


def model_digest(model: Model) -> str:
    """A digest of a thinc model's weights (every parameter of every node, by node and parameter name)."""
    digest = hashlib.sha256()
    for index, node in enumerate(model.walk()):
        for name in node.param_names:
            if node.has_param(name):
                digest.update(f"{index}:{node.name}:{name}".encode())
                digest.update(node.ops.to_numpy(node.get_param(name)).tobytes())
    return digest.hexdigest()[:16]


def listened_upstreams(component) -> List[str]:
    """The names of the components a component's model listens to (``Tok2VecListener`` nodes)."""
    from spacy.pipeline.tok2vec import Tok2VecListener

    model = getattr(component, "model", None)
    if not isinstance(model, Model):
        return []
    return sorted({node.upstream_name for node in model.walk() if isinstance(node, Tok2VecListener)})


def vectors_digest(nlp: Language, component) -> Optional[str]:
    """The digest of the tok2vec whose vectors an entity memory reads in ``nlp``: the component it listens to,
    or its own copy (after ``replace_listeners``); None where it listens to a name ``nlp`` has no tok2vec for."""
    from ..models.memory import ATTRIBUTES_LAYER, SPANS_LAYER, find_layer

    upstreams = listened_upstreams(component)
    for upstream in upstreams:
        for name in (nlp.pipe_names if upstream == "*" else [upstream]):
            if name in nlp.component_names and hasattr(nlp.get_pipe(name), "listener_map"):
                return model_digest(nlp.get_pipe(name).model)
    if upstreams:
        return None
    inputs = find_layer(component.model, ATTRIBUTES_LAYER) or find_layer(component.model, SPANS_LAYER)
    return model_digest(inputs.layers[0]) if inputs is not None else None


def record_tok2vec_digests(nlp: Language) -> List[str]:
    """Record in each entity memory's cfg the digest of the tok2vec whose vectors it reads in ``nlp`` (for
    shipping); the names of the memories recorded."""
    from .entity_memory import EntityMemory

    recorded = []
    for name in nlp.component_names:
        component = nlp.get_pipe(name)
        digest = vectors_digest(nlp, component) if isinstance(component, EntityMemory) else None
        if digest is not None:
            component.cfg[DIGEST_KEY] = digest
            recorded.append(name)
    return recorded


def foreign_listeners(nlp: Language) -> List[str]:
    """One message per active entity memory of ``nlp`` that listens to another tok2vec than the one it was
    shipped with (empty when all is well, or where no digest was recorded)."""
    from .entity_memory import EntityMemory

    problems = []
    for name, component in nlp.pipeline:
        expected = getattr(component, "cfg", {}).get(DIGEST_KEY) if isinstance(component, EntityMemory) else None
        actual = vectors_digest(nlp, component) if expected else None
        if expected and actual != expected:
            problems.append(foreign_vectors_message(name, listened_upstreams(component)))
    return problems


def add_coref(nlp: Language, mention_scheme: Optional[str] = None) -> Language:
    """Add the shipped coreference components to ``nlp`` (``spacy.blank("en")``, ``en_core_web_sm``, ...): the
    span finder and the entity memory, and the shipped tagger and parser where ``nlp`` has none, each with its
    own copy of the shipped tok2vec, so the clusters are the shipped pipeline's. ``mention_scheme`` as in
    ``load_default``. Returns ``nlp``."""
    from .. import DEFAULT_PIPELINE
    from .mention_schemes import DEFAULT_SCHEME, load_with_scheme

    shipped = load_with_scheme(DEFAULT_PIPELINE, mention_scheme or DEFAULT_SCHEME)
    wanted = [name for name in LISTENING_COMPONENTS
              if name not in ("tagger", "parser") or name not in nlp.pipe_names]
    taken = [name for name in ("span_finder", "entity_memory") if name in nlp.component_names]
    if taken:
        raise ValueError(f"[spacy-entmem] add_coref: the pipeline already has components named {taken}")
    for name in wanted:
        shipped.replace_listeners("tok2vec", name, ["model.tok2vec"])
    for name in wanted:
        nlp.add_pipe(name, source=shipped)
    return nlp


def foreign_vectors_message(name: str, upstreams: List[str]) -> str:
    return (f"[spacy-entmem] component '{name}' listens to {', '.join(repr(u) for u in upstreams)}, a tok2vec other "
            "than the one it was trained with: it reads other token vectors and its clusters will differ. Give it "
            "its own copy of its tok2vec: spacy_entmem.add_coref(nlp), or shipped.replace_listeners('tok2vec', "
            "name, ['model.tok2vec']) before sourcing")
