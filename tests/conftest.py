import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# One OpenMP / BLAS thread per pytest-xdist worker (set before torch and numpy load; xdist names the worker
# before it reads this file): the README runs one worker per core, and two workers each running a two-thread
# OpenMP pool on two cores oversubscribe them (the EntityNLM marginal tests: 7 s each with one thread per worker,
# 212 s with two). A run without xdist keeps every thread (one process: 6:44 with two threads, 2026-11-27).
if "PYTEST_XDIST_WORKER" in os.environ:
    for _threads in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_threads, "1")

import pytest  # noqa: E402
import torch  # noqa: E402
import spacy  # noqa: E402
from spacy.training import Example  # noqa: E402

import spacy_entmem  # noqa: E402,F401
from spacy_entmem.corpora.gap import convert_gap  # noqa: E402

# Small attributed excerpts of the corpora, committed (tests/fixtures/README.md); ENTMEM_DATA points the
# opt-in corpus tests (marker ``corpus``) at whole corpora laid out as ../shared/data is
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "data"
DATA = Path(os.environ["ENTMEM_DATA"]).resolve() if os.environ.get("ENTMEM_DATA") else FIXTURES
GAP = DATA / "gap"
CORPUS_NOTE = ("needs whole corpora: ENTMEM_DATA=../shared/data (a local copy laid out as ../shared/data is, or "
               "`spacy project assets`); the committed excerpts in tests/fixtures/data are too small")


def pytest_collection_modifyitems(config, items):
    """Tests marked ``corpus`` run only where ENTMEM_DATA names whole corpora."""
    if os.environ.get("ENTMEM_DATA"):
        return
    for item in items:
        if item.get_closest_marker("corpus"):
            item.add_marker(pytest.mark.skip(reason=CORPUS_NOTE))

TINY_MODEL = {
    "@architectures": "spacy_entmem.PeTra.v1",
    "hidden_width": 16,
    "mlp_width": 16,
    "n_cells": 4,
    "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 32, "upstream": "*"},
}
TINY_TOK2VEC = {
    "model": {
        "@architectures": "spacy.Tok2Vec.v2",
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": ["NORM", "SHAPE"],
                  "rows": [500, 50], "include_static_vectors": False},
        "encode": {"@architectures": "spacy.MaxoutWindowEncoder.v2", "width": 32, "depth": 1,
                   "window_size": 1, "maxout_pieces": 2},
    }
}


def tiny_pipeline(**component_config):
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config=TINY_TOK2VEC)
    nlp.add_pipe("entity_memory", config={"model": TINY_MODEL, **component_config})
    return nlp


@pytest.fixture(scope="session")
def gap_validation_docs():
    docs, _ = convert_gap(spacy.blank("en"), GAP / "gap-validation.tsv")
    return docs


def train_pipeline(nlp, examples, steps: int = 4, learn_rate: float = 0.001, batch_size: int = 16):
    """Initialize and train ``nlp`` on ``examples``; the component's loss after each pass."""
    spacy.util.fix_random_seed(0)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = learn_rate
    losses_per_step = []
    for _ in range(steps):
        losses = {}
        for i in range(0, len(examples), batch_size):
            nlp.update(examples[i: i + batch_size], sgd=optimizer, losses=losses)
        losses_per_step.append(losses["entity_memory"])
    return losses_per_step


def train_tiny(docs, steps: int = 4, learn_rate: float = 0.001, **component_config):
    spacy.util.fix_random_seed(0)
    nlp = tiny_pipeline(**component_config)
    examples = [Example(nlp.make_doc(doc.text), doc) for doc in docs]
    return nlp, train_pipeline(nlp, examples, steps, learn_rate)


@pytest.fixture(scope="session")
def trained_nlp(gap_validation_docs):
    nlp, _ = train_tiny(gap_validation_docs[:32], steps=2)
    return nlp


def truncate_record(record, max_tokens: int):
    """A corpus record cut to its first whole sentences within ``max_tokens``, keeping the mentions inside."""
    n, kept = 0, []
    for length in record.sentence_lengths:
        if n + length > max_tokens:
            break
        kept.append(length)
        n += length
    record.words, record.sentence_lengths = record.words[:n], kept
    record.mentions = [m for m in record.mentions if m.end <= n]
    return record


# --- CoreLM: a tiny randomly initialised Llama-style causal LM with a byte-level BPE tokenizer trained on the
# spot, saved as a Hugging Face model directory (what the tests load instead of a download)

TINY_LM_TEXTS = [
    "Marie Curie was born in Warsaw. She moved to Paris, where she met Pierre Curie.",
    "They married in 1895 and worked together on radioactivity. Their daughter Irene won a prize too.",
    "Alan Turing worked at Bletchley Park. Joan Clarke worked with him; she was a cryptanalyst.",
]


def save_tiny_causal_lm(directory: Path, seed: int = 0) -> Path:
    from tokenizers import ByteLevelBPETokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(TINY_LM_TEXTS, vocab_size=320, min_frequency=1, special_tokens=["<s>", "</s>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe._tokenizer, bos_token="<s>", eos_token="</s>")
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=24, intermediate_size=48, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory):
    return str(save_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm")))
