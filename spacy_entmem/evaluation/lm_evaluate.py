"""Evaluation of ``entity_lm_scorer`` pipelines on documents with gold clusters: perplexity by token group
(the Dynamic Neural Text Model's Table 2), by relative position in the document (its Fig. 4), scoring speed,
and tables over variants and seeds."""
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Optional

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc, DocBin

from ..pipeline.entity_lm_scorer import EntityLMScorer
from ..pipeline.lm_inputs import group_perplexities, perplexity

N_POSITION_BINS = 10
GROUP_TITLES = {"all": "(1) All", "reappearing": "(2) Reappearing entities", "following": "(3) Following entities",
                "non_entity": "(4) Non-entities"}


def find_scorer(nlp: Language) -> EntityLMScorer:
    for _, pipe in nlp.pipeline:
        if isinstance(pipe, EntityLMScorer):
            return pipe
    raise ValueError(f"[spacy-entmem] the pipeline has no entity_lm_scorer component (it has {nlp.pipe_names})")


def read_docs(nlp: Language, path: Path) -> List[Doc]:
    return list(DocBin().from_disk(path).get_docs(nlp.vocab))


def evaluate_lm(nlp: Language, docs: List[Doc], batch_size: int = 8, cloze_per_doc: int = 0) -> Dict[str, object]:
    """Perplexity by group and by position decile over ``docs`` (their own clusters), tokens/s, and with
    ``cloze_per_doc`` > 0 the mean quantile of the cloze by sentence likelihood (``lm_cloze``)."""
    scorer = find_scorer(nlp)
    start = time.perf_counter()
    lm_docs, logps = scorer.log_probs(docs, batch_size=batch_size)
    seconds = time.perf_counter() - start
    by_group, tokens = group_perplexities(lm_docs, logps)
    by_position = numpy.zeros((N_POSITION_BINS, 2))
    for logp in logps:
        if len(logp):
            bins = numpy.minimum((numpy.arange(len(logp)) * N_POSITION_BINS) // len(logp), N_POSITION_BINS - 1)
            numpy.add.at(by_position[:, 0], bins, logp)
            numpy.add.at(by_position[:, 1], bins, 1)
    cloze = {}
    if cloze_per_doc > 0:
        from .lm_cloze import mean_quantile

        cloze = mean_quantile(scorer.torch_model().eval(), lm_docs, cloze_per_doc)
    return {**cloze,
        "perplexity": by_group,
        "tokens": tokens,
        "perplexity_by_position": [perplexity(t, int(n)) for t, n in by_position.tolist()],
        "tokens_per_second": tokens["all"] / seconds if seconds > 0 else None,
        "n_docs": len(docs),
    }


def describe(nlp: Language) -> Dict[str, object]:
    """The variant, merge function, regularisation options and seed of the scorer's model (for tables)."""
    scorer = find_scorer(nlp)
    model_cfg = nlp.config["components"][scorer.name]["model"]
    init_cfg = nlp.config.get("initialize", {}).get("components", {}).get(scorer.name, {})
    return {"dynamic": model_cfg.get("dynamic"), "merge": model_cfg.get("merge"),
            "options": model_options(model_cfg, init_cfg), "seed": nlp.config["training"].get("seed")}


def model_options(model_cfg: Dict[str, object], init_cfg: Optional[Dict[str, object]] = None) -> str:
    """The DNTM's training options, in words ("" for none: everything trained from scratch with the LM):
    a table row per set."""
    options = []
    has_encoder = model_cfg.get("dynamic") != "none"
    if (init_cfg or {}).get("pretrained_context"):
        options.append("cloze-pretrained " + ("encoder and embeddings" if has_encoder else "embeddings"))
        if not init_cfg.get("slots_as_anonymised", True):
            options.append("slots' own start")
    if model_cfg.get("freeze_context") and has_encoder:
        options.append("encoder frozen")
    if model_cfg.get("share_embeddings"):
        options.append("shared embeddings")
    if model_cfg.get("state_dropout"):
        options.append(f"state dropout {model_cfg['state_dropout']}")
    return ", ".join(options)


VARIANT_NAMES = {"none": "LSTM LM (baseline) (A)", "input": "With only dynamic input (B)",
                 "output": "With only dynamic output (C)", "both": "With dynamic input & output (D)"}
# the paper's test perplexities (1)-(4) and cloze MQ per (variant, merge): Tables 2-4
PAPER_ROWS = {
    ("none", None): (64.8, 48.0, 128.6, 68.5, 0.525),
    ("input", "gru_relu"): (62.8, 42.4, 109.5, 66.4, 0.630), ("input", "gru"): (63.2, 43.3, 111.2, 66.8, 0.633),
    ("input", "max"): (63.6, 45.0, 116.0, 67.0, 0.617), ("input", "latest"): (64.0, 44.1, 127.6, 67.5, 0.600),
    ("output", "gru_relu"): (62.5, 35.9, 129.0, 69.5, 0.519), ("output", "gru"): (62.6, 39.0, 121.1, 69.1, 0.522),
    ("output", "max"): (62.2, 41.1, 126.9, 68.4, 0.519), ("output", "latest"): (64.9, 49.8, 129.1, 70.6, 0.519),
    ("both", "gru_relu"): (60.7, 34.0, 106.8, 67.6, 0.642), ("both", "gru"): (60.9, 37.5, 108.9, 67.2, 0.637),
    ("both", "max"): (60.7, 39.5, 107.5, 66.8, 0.620), ("both", "latest"): (63.4, 47.9, 116.4, 68.9, 0.613),
}
# rows whose set-up is the paper's (or differs only in being trained from scratch) show its numbers
PAPER_SETUPS = ("", "cloze-pretrained embeddings", "cloze-pretrained encoder and embeddings, encoder frozen")


def paper_cell(dynamic: str, merge: str, options: str) -> str:
    """The paper's (1)-(4), MQ for a row of that variant and merge in the paper's set-up, else ""."""
    row = PAPER_ROWS.get((dynamic, None if dynamic == "none" else merge))
    if row is None or options not in PAPER_SETUPS:
        return ""
    return " / ".join(f"{v:.1f}" for v in row[:4]) + f", {row[4]:.3f}"


def mean_std(values: List[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.mean(values):.1f} ± {statistics.stdev(values):.1f}"


def group_table(results: Iterable[Dict[str, object]]) -> str:
    """Markdown: one row per (variant, merge, options), mean ± std over seeds, with the paper's row (Tables 2-4)."""
    rows: Dict[tuple, List[Dict]] = defaultdict(list)
    for result in results:
        rows[(result["dynamic"], result["merge"], result.get("options", ""))].append(result)
    lines = ["| model | merge | seeds | " + " | ".join(GROUP_TITLES.values()) +
             " | cloze MQ | tokens/s | paper (1)–(4), MQ |", "|---|---|---:|" + "---:|" * (len(GROUP_TITLES) + 3)]
    order = {name: i for i, name in enumerate(VARIANT_NAMES)}
    for (dynamic, merge, options), found in sorted(rows.items(),
                                                   key=lambda kv: (order.get(kv[0][0], 9), kv[0][1], kv[0][2])):
        cells = [mean_std([r["perplexity"][g] for r in found]) for g in GROUP_TITLES]
        speed = statistics.mean(r["tokens_per_second"] for r in found)
        mq = [r["cloze_mq"] for r in found if r.get("cloze_mq") is not None]
        mq_cell = (f"{statistics.mean(mq):.3f}" + (f" ± {statistics.stdev(mq):.3f}" if len(mq) > 1 else "")) if mq else ""
        paper = paper_cell(dynamic, merge, options)
        name = VARIANT_NAMES.get(dynamic, dynamic) + (f", {options}" if options else "")
        lines.append(f"| {name} | {merge if dynamic != 'none' else '—'} | "
                     f"{len(found)} | " + " | ".join(cells) + f" | {mq_cell} | {speed:,.0f} | {paper} |")
    return "\n".join(lines) + "\n"


def write_result(path: Path, result: Dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(path, result)


def read_results(paths: Iterable[Path]) -> List[Dict[str, object]]:
    return [srsly.read_json(p) for p in paths]


def relative_change(results: List[Dict[str, object]], group: str, variant: str = "both",
                    merge: str = "gru_relu") -> Optional[float]:
    """(baseline − variant) / baseline perplexity of a group, means over seeds."""
    base = [r["perplexity"][group] for r in results if r["dynamic"] == "none"]
    ours = [r["perplexity"][group] for r in results if r["dynamic"] == variant and r["merge"] == merge]
    if not base or not ours:
        return None
    return (statistics.mean(base) - statistics.mean(ours)) / statistics.mean(base)
