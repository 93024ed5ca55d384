import json

import pytest

from spacy_entmem.research.sweep import collect, plan_runs, results_table, run_commands


def test_plan_covers_every_model_and_size_before_the_next_seed():
    runs = plan_runs(["petra", "rr"], [2, 4], [0, 1])
    assert [r.name for r in runs[:4]] == ["petra_n2_s0", "rr_n2_s0", "petra_n4_s0", "rr_n4_s0"]
    assert len(runs) == 8


def test_plan_rejects_unknown_models_and_sizes():
    with pytest.raises(ValueError, match=r"unknown sweep model\(s\) \['lstm'\]"):
        plan_runs(["lstm"], [2], [0])
    with pytest.raises(ValueError, match="memory sizes must be >= 1"):
        plan_runs(["rr"], [0], [0])


def test_commands_set_the_variant_size_and_seed(tmp_path):
    run = plan_runs(["petra_key"], [8], [3])[0]
    train, evaluate = run_commands(run, tmp_path / "configs", tmp_path / "training", tmp_path / "metrics",
                                   tmp_path / "gap", max_epochs=2)
    assert str(tmp_path / "configs" / "gap_petra.cfg") in train
    pairs = dict(zip(train[7::2], train[8::2]))
    assert pairs["--components.entity_memory.model.fixed_key_width"] == "20"
    assert pairs["--components.entity_memory.model.n_cells"] == "8"
    assert pairs["--system.seed"] == "3" and pairs["--training.max_epochs"] == "2"
    assert evaluate[-1] == str(tmp_path / "metrics" / "petra_key_n8_s3")


def test_table_reports_mean_and_std_over_seeds(tmp_path):
    for name, val, test in [("petra_n2_s0", 60.0, 61.0), ("petra_n2_s1", 62.0, 63.0), ("rr_n2_s0", 58.0, 57.5),
                            ("rr_n4_s0", 55.0, 54.0)]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "gap_scores.json").write_text(json.dumps(
            {"threshold": 0.1, "validation": {"f1": val}, "test": {"f1": test}}))
    records = collect(tmp_path)
    assert {(r["model"], r["n_cells"], r["seed"]) for r in records} == {
        ("petra", 2, 0), ("petra", 2, 1), ("rr", 2, 0), ("rr", 4, 0)}
    table = results_table(records, "test_f1")
    assert "| model | N=2 | N=4 |" in table
    assert "| PeTra | 62.0 ± 1.4 (n=2) | – |" in table
    assert "| Referential Reader | 57.5 (n=1) | 54.0 (n=1) |" in table
