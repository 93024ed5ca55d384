"""Figures (matplotlib, Agg backend): a document's memory log, and F1 against memory size."""
import statistics
import textwrap
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy
from spacy.tokens import Doc

ELIDED = "…"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def active_columns(overwrite: numpy.ndarray, coref: numpy.ndarray, threshold: float,
                   max_inactive: int) -> List[int]:
    """Token indices to draw, with -1 standing for an elided stretch: a run of more than
    ``max_inactive`` tokens whose overwrite and coref probabilities all stay below ``threshold`` is
    replaced by one ``…`` column."""
    if overwrite.shape[0] == 0:
        return []
    active = numpy.maximum(overwrite.max(axis=1, initial=0.0), coref.max(axis=1, initial=0.0)) >= threshold
    columns: List[int] = []
    run: List[int] = []
    for t, is_active in enumerate(active.tolist()):
        if not is_active:
            run.append(t)
            continue
        columns.extend(run if len(run) <= max_inactive else [-1])
        run = []
        columns.append(t)
    columns.extend(run if len(run) <= max_inactive else [-1])
    return columns


def plot_memory_log(doc: Doc, path: Path, threshold: float = 0.1, max_inactive: int = 3,
                    title: str = "") -> Tuple[int, int]:
    """Draw the memory log as in the PeTra paper's Figures 5, 8 and 9: for every cell one OVERWRITE
    row (blue) and one COREF row (red), one column per token, long inactive stretches elided.
    Returns (rows, columns) of the drawn grid."""
    log = doc._.entity_memory_log
    if log is None:
        raise ValueError("[spacy-entmem] the doc has no memory log: run entity_memory with store_memory_log = true")
    overwrite, coref = log["overwrite"], log["coref"]
    columns = active_columns(overwrite, coref, threshold, max_inactive)
    n_cells = overwrite.shape[1]
    grid_ow = numpy.zeros((2 * n_cells, len(columns)))
    grid_co = numpy.zeros((2 * n_cells, len(columns)))
    for j, t in enumerate(columns):
        if t >= 0:
            grid_ow[0::2, j] = overwrite[t]
            grid_co[1::2, j] = coref[t]
    labels = [ELIDED if t < 0 else doc[t].text for t in columns]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(4.0, 0.28 * len(columns) + 1.5), 0.35 * 2 * n_cells + 1.6))
    rows = numpy.arange(2 * n_cells)
    ax.imshow(numpy.ma.masked_where(numpy.broadcast_to(rows[:, None] % 2 == 1, grid_ow.shape), grid_ow), cmap="Blues", vmin=0, vmax=1,
              aspect="auto", interpolation="nearest")
    ax.imshow(numpy.ma.masked_where(numpy.broadcast_to(rows[:, None] % 2 == 0, grid_co.shape), grid_co), cmap="Reds", vmin=0, vmax=1,
              aspect="auto", interpolation="nearest")
    ax.set_yticks(rows, [f"cell {i // 2} {'OW' if i % 2 == 0 else 'CR'}" for i in rows], fontsize=7)
    ax.set_xticks(numpy.arange(len(columns)), labels, rotation=90, fontsize=7)
    for i in range(1, n_cells):
        ax.axhline(2 * i - 0.5, color="grey", linewidth=0.5)
    if title:
        ax.set_title("\n".join(textwrap.wrap(title, width=int(12 * fig.get_figwidth()))), fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return 2 * n_cells, len(columns)


def plot_f1_by_memory_size(records: List[Dict], labels: Dict[str, str], path: Path,
                           score: str = "validation_f1") -> None:
    """F1 against memory size, one line per model (mean over seeds, error bars = std)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for model, label in labels.items():
        sizes: Sequence[int] = sorted({r["n_cells"] for r in records if r["model"] == model})
        if not sizes:
            continue
        values = [[r[score] for r in records if r["model"] == model and r["n_cells"] == n] for n in sizes]
        means = [statistics.mean(v) for v in values]
        stds = [statistics.stdev(v) if len(v) > 1 else 0.0 for v in values]
        ax.errorbar(sizes, means, yerr=stds, marker="o", capsize=3, label=label)
    ax.set_xlabel("memory cells N")
    ax.set_ylabel(f"GAP {score.replace('_f1', '')} F1")
    ax.set_title(f"GAP {score.replace('_f1', '')} F1 vs. memory size")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


LEARNING_CURVES = (("coref_conll_f", "CoNLL F1"), ("coref_lea_f", "LEA F1"),
                   ("spans_mention_candidates_r", "candidate recall"), ("gap_f1", "GAP F1"))


def plot_learning_curves(records: List[Dict], path: Path, title: str = "") -> None:
    """Dev scores (× 100) against training steps, from a TimedConsoleLogger log (one dict per evaluation
    with ``step``, ``epoch`` and ``scores``); epochs are marked on the top axis."""
    if not records:
        raise ValueError("[spacy-entmem] no evaluations in the training log: nothing to plot")
    plt = _pyplot()
    steps = [r["step"] for r in records]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in LEARNING_CURVES:
        values = [100 * r["scores"][key] for r in records if r["scores"].get(key) is not None]
        if len(values) == len(records):
            ax.plot(steps, values, marker=".", label=label)
    firsts = {}
    for r in records:
        firsts.setdefault(r["epoch"], r["step"])
    top = ax.secondary_xaxis("top")
    top.set_xticks(list(firsts.values()), labels=[str(e) for e in firsts])
    top.set_xlabel("epoch")
    ax.set_xlabel("training step")
    ax.set_ylabel("dev score")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_lm_by_position(results: List[Dict], path: Path) -> Dict[str, numpy.ndarray]:
    """Perplexity against the relative position in the document (the Dynamic Neural Text Model's Fig. 4),
    one line per (variant, merge, options), as the table's rows: the mean over seeds (returned by label)."""
    plt = _pyplot()
    lines: Dict[str, List[List[float]]] = {}
    for result in results:
        label = result["dynamic"] if result["dynamic"] == "none" else f"{result['dynamic']} ({result['merge']})"
        if result.get("options"):
            label += f", {result['options']}"
        lines.setdefault(label, []).append(result["perplexity_by_position"])
    fig, ax = plt.subplots(figsize=(8, 5))
    means = {label: numpy.asarray(curves, dtype=float).mean(axis=0) for label, curves in sorted(lines.items())}
    for label, values in means.items():
        ax.plot((numpy.arange(len(values)) + 0.5) / len(values), values, marker="o", label=label)
    ax.set_xlabel("relative position in the document")
    ax.set_ylabel("perplexity")
    ax.legend(fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return means
