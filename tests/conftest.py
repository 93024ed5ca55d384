import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import pytest  # noqa: E402
import spacy  # noqa: E402
from spacy.training import Example  # noqa: E402

import spacy_entmem  # noqa: E402,F401
from spacy_entmem.corpora.gap import convert_gap  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if not DATA.exists():  # a checkout elsewhere: the project's variable points here
    DATA = Path(os.environ.get("ENTMEM_DATA", "../shared/data")).resolve()
GAP = DATA / "gap"

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
