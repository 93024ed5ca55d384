"""The memory comparison of PeTra §4 (Figure 3): models × memory sizes × seeds, trained with
``spacy train``, thresholds selected on GAP validation, one results table and one plot.

A run is a directory ``<training_dir>/<model>_n<size>_s<seed>``; finished runs (their scores JSON
exists) are skipped, so the sweep can be stopped and extended.
"""
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence

MODEL_VARIANTS: Dict[str, Dict] = {
    "petra": {"label": "PeTra", "config": "gap_petra.cfg", "overrides": {}},
    "petra_init": {"label": "PeTra + learned init", "config": "gap_petra.cfg",
                   "overrides": {"components.entity_memory.model.learned_init": "true"}},
    "petra_key": {"label": "PeTra + fixed key", "config": "gap_petra.cfg",
                  "overrides": {"components.entity_memory.model.fixed_key_width": "20"}},
    "rr": {"label": "Referential Reader", "config": "gap_rr.cfg", "overrides": {}},
}


@dataclass(frozen=True)
class SweepRun:
    model: str
    n_cells: int
    seed: int

    @property
    def name(self) -> str:
        return f"{self.model}_n{self.n_cells}_s{self.seed}"


def plan_runs(models: Sequence[str], sizes: Sequence[int], seeds: Sequence[int]) -> List[SweepRun]:
    unknown = [m for m in models if m not in MODEL_VARIANTS]
    if unknown:
        raise ValueError(f"[spacy-entmem] unknown sweep model(s) {unknown}; choose from {sorted(MODEL_VARIANTS)}")
    bad_sizes = [n for n in sizes if n < 1]
    if bad_sizes:
        raise ValueError(f"[spacy-entmem] memory sizes must be >= 1, got {bad_sizes}")
    # Seeds outermost, then sizes: an interrupted sweep still covers every model and size once.
    return [SweepRun(m, n, s) for s in seeds for n in sizes for m in models]


def run_commands(run: SweepRun, configs_dir: Path, training_dir: Path, metrics_dir: Path, gap_dir: Path,
                 max_epochs: int) -> List[List[str]]:
    variant = MODEL_VARIANTS[run.model]
    output = training_dir / run.name
    overrides = {
        **variant["overrides"],
        "components.entity_memory.model.n_cells": str(run.n_cells),
        "system.seed": str(run.seed),
        "training.max_epochs": str(max_epochs),
        "training.logger.output_file": str(output / "log.jsonl"),
    }
    train = [sys.executable, "-m", "spacy", "train", str(configs_dir / variant["config"]), "--output", str(output)]
    train += [arg for key, value in overrides.items() for arg in (f"--{key}", value)]
    evaluate = [sys.executable, "-m", "spacy_entmem", "gap-evaluate", str(output / "model-best"),
                str(gap_dir / "gap-validation.tsv"), str(gap_dir / "gap-test.tsv"),
                "--output-dir", str(metrics_dir / run.name)]
    return [train, evaluate]


def execute(runs: Sequence[SweepRun], configs_dir: Path, training_dir: Path, metrics_dir: Path, gap_dir: Path,
            max_epochs: int, jobs: int) -> List[str]:
    """Train and evaluate every unfinished run, ``jobs`` at a time with one torch thread each."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    todo = [r for r in runs if not (metrics_dir / r.name / "gap_scores.json").exists()]
    failed = []

    def one(run: SweepRun) -> None:
        (training_dir / run.name).mkdir(parents=True, exist_ok=True)
        with open(training_dir / run.name / "stdout.log", "w", encoding="utf8") as log:
            for command in run_commands(run, configs_dir, training_dir, metrics_dir, gap_dir, max_epochs):
                if subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env).returncode:
                    failed.append(f"{run.name}: {' '.join(command[:4])} failed, see {log.name}")
                    return

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, todo))
    return failed


def collect(metrics_dir: Path) -> List[Dict]:
    """One record per finished run: model, size, seed, threshold, validation and test overall F1 (%)."""
    records = []
    for path in sorted(metrics_dir.glob("*_n*_s*/gap_scores.json")):
        model, size, seed = path.parent.name.rsplit("_", 2)
        scores = json.loads(path.read_text(encoding="utf8"))
        records.append({
            "model": model, "n_cells": int(size[1:]), "seed": int(seed[1:]), "threshold": scores["threshold"],
            "validation_f1": scores["validation"]["f1"], "test_f1": scores["test"]["f1"],
        })
    return records


def _mean_std(values: List[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.mean(values):.1f} ± {statistics.stdev(values):.1f}"


def results_table(records: List[Dict], split: str = "test_f1") -> str:
    """Markdown: rows = models, columns = memory sizes, cells = mean ± std over seeds (n = seeds)."""
    sizes = sorted({r["n_cells"] for r in records})
    models = [m for m in MODEL_VARIANTS if any(r["model"] == m for r in records)]
    lines = ["| model | " + " | ".join(f"N={n}" for n in sizes) + " |",
             "|---|" + "---:|" * len(sizes)]
    for model in models:
        cells = []
        for n in sizes:
            values = [r[split] for r in records if r["model"] == model and r["n_cells"] == n]
            cells.append(f"{_mean_std(values)} (n={len(values)})" if values else "–")
        lines.append(f"| {MODEL_VARIANTS[model]['label']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
