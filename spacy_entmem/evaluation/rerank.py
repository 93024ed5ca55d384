"""EntityNLM as a coreference reranker (Ji et al. 2017 §5.2) of ``entity_memory``'s k-best lists.

For each document: the coreference pipeline's approximate k-best list (``pipeline.kbest``), every candidate
scored by the memory (Σ of its decisions' greedy scores) and by EntityNLM's joint log-probability
log p(X, R, E, L) of the words with the candidate's clusters as the mentions (Eq. 12). Rerankers, as the
paper: EntityNLM alone (argmax of log p), and EntityNLM + the system's score (log p + w · memory score) with
w chosen on dev by CoNLL F1. Reported with the 1-best, the memory's own score alone (the best-scored
path in the list: what reranking gives without EntityNLM) and the oracle (the candidate with the best
document CoNLL F1: how much the list could give).
"""
import math
from typing import Any, Dict, List, Optional, Sequence

from spacy.language import Language
from spacy.tokens import Doc

from ..pipeline.kbest import Alternative, kbest
from .coref_evaluate import _predict, _read, gold_clusters
from .coref_metrics import CorefScorer

WEIGHTS = (0.0, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)  # w of log p + w · memory score, chosen on dev


def lm_log_probs(lm_pipe, doc: Doc, alternatives: Sequence[Alternative], prefix: str = "coref_clusters",
                 batch_size: int = 8) -> List[float]:
    """EntityNLM's joint log p(X, R, E, L) of ``doc`` with each alternative's clusters as the mentions."""
    copies = []
    for alternative in alternatives:
        copy = doc.copy()
        for key in [key for key in copy.spans if key.startswith(f"{prefix}_")]:
            del copy.spans[key]
        for index, cluster in enumerate(alternative.clusters, start=1):
            copy.spans[f"{prefix}_{index}"] = [copy[start:end] for start, end in cluster]
        copies.append(copy)
    _, scored = lm_pipe.score_docs(copies, batch_size)
    return [float(s["joint"].sum()) for s in scored]


def candidate_lists(coref_nlp: Language, lm_nlp: Language, corpus, k: int, batch_size: int = 4,
                    memory_name: str = "entity_memory", lm_name: str = "entity_lm_scorer") -> List[Dict[str, Any]]:
    """Per gold document: its gold clusters and its k-best candidates (clusters, memory score, EntityNLM
    log p, the forced (step, action)), the 1-best first."""
    if memory_name not in coref_nlp.pipe_names:
        raise ValueError(f"[spacy-entmem] the coreference pipeline has no {memory_name!r} component "
                         f"(it has {coref_nlp.pipe_names})")
    if lm_name not in lm_nlp.pipe_names or not getattr(lm_nlp.get_pipe(lm_name), "is_entitynlm", False):
        raise ValueError(f"[spacy-entmem] reranking needs an EntityNLM {lm_name!r} component "
                         f"(spacy_entmem.EntityNLM.v1); the language-model pipeline has {lm_nlp.pipe_names}"
                         + (" with another architecture" if lm_name in lm_nlp.pipe_names else ""))
    memory, lm_pipe = coref_nlp.get_pipe(memory_name), lm_nlp.get_pipe(lm_name)
    references = _read(coref_nlp, corpus)
    predicted, _ = _predict(coref_nlp, references, batch_size)
    records = []
    for reference, doc in zip(references, predicted):
        alternatives = kbest(memory, doc, k)
        lm = lm_log_probs(lm_pipe, doc, alternatives, lm_pipe.cfg["cluster_prefix"])
        records.append({"gold": gold_clusters(reference), "candidates": [
            {"clusters": a.clusters, "memory": a.memory_score, "lm": score, "forced": a.forced}
            for a, score in zip(alternatives, lm)]})
    return records


def pick(record: Dict[str, Any], weight: Optional[float]) -> int:
    """The chosen candidate: the 1-best (weight None), the argmax of log p + weight · memory score, or with
    weight inf the argmax of the memory score alone (a forced step can lead the greedy rest to a path the
    memory scores above its own 1-best); ties: the earlier candidate."""
    if weight is None:
        return 0
    candidates = record["candidates"]
    if math.isinf(weight):
        values = [c["memory"] for c in candidates]
    else:
        values = [c["lm"] + weight * c["memory"] for c in candidates]
    return first_argmax(values)


def first_argmax(values: Sequence[float]) -> int:
    """The index of the largest value; of equal ones the first (the higher-ranked candidate)."""
    return max(range(len(values)), key=lambda i: (values[i], -i))


def mentions_as_tuples(clusters) -> List[List[tuple]]:
    """Clusters whose mentions may be lists (as read back from JSON) with hashable (start, end) mentions."""
    return [[tuple(mention) for mention in cluster] for cluster in clusters]


def oracle(record: Dict[str, Any]) -> int:
    """The candidate with the best CoNLL F1 against this document's gold (singletons included)."""
    def f1(candidate):
        scorer = CorefScorer(True)
        scorer.add(mentions_as_tuples(record["gold"]), mentions_as_tuples(candidate["clusters"]))
        return scorer.scores()["conll_f"]
    return first_argmax([f1(c) for c in record["candidates"]])


def corpus_scores(records: Sequence[Dict[str, Any]], choices: Sequence[int]) -> Dict[str, float]:
    """CoNLL F1 and LEA of the chosen candidates, with and without singletons."""
    with_singletons, without = CorefScorer(True), CorefScorer(False)
    for record, choice in zip(records, choices):
        for scorer in (with_singletons, without):
            scorer.add(mentions_as_tuples(record["gold"]), mentions_as_tuples(record["candidates"][choice]["clusters"]))
    a, b = with_singletons.scores(), without.scores()
    return {"conll_f": a["conll_f"], "lea_f": a["lea_f"], "nosingletons_conll_f": b["conll_f"],
            "nosingletons_lea_f": b["lea_f"], "changed": sum(c != 0 for c in choices)}


def choose_weight(dev: Sequence[Dict[str, Any]]) -> Dict[float, float]:
    """Dev CoNLL F1 for each weight of the memory score."""
    return {w: corpus_scores(dev, [pick(r, w) for r in dev])["conll_f"] for w in WEIGHTS}


def rerank_report(dev: Sequence[Dict[str, Any]], test: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """The table rows on test (1-best, memory score alone, EntityNLM alone, EntityNLM + memory with w chosen
    on dev, oracle) and what was chosen."""
    tried = choose_weight(dev)
    weight = max(WEIGHTS, key=lambda w: (tried[w], -w))
    rows = {
        "1-best (entity_memory)": corpus_scores(test, [pick(r, None) for r in test]),
        "rerank: memory score alone (no EntityNLM)": corpus_scores(test, [pick(r, math.inf) for r in test]),
        "rerank: EntityNLM": corpus_scores(test, [pick(r, 0.0) for r in test]),
        f"rerank: EntityNLM + memory (w = {weight:g}, chosen on dev)": corpus_scores(test, [pick(r, weight) for r in test]),
        "oracle of the k-best list": corpus_scores(test, [oracle(r) for r in test]),
    }
    sizes = [len(r["candidates"]) for r in test]
    return {"rows": rows, "weight": weight, "dev_conll_f_by_weight": {str(w): v for w, v in tried.items()},
            "dev_1best_conll_f": corpus_scores(dev, [0] * len(dev))["conll_f"],
            "mean_list_size": sum(sizes) / max(len(sizes), 1)}


def report_table(report: Dict[str, Any]) -> str:
    """The report's test rows as markdown."""
    lines = ["| system | CoNLL F1 | LEA | CoNLL F1 w/o singletons | documents changed |", "|---|---:|---:|---:|---:|"]
    for name, row in report["rows"].items():
        lines.append(f"| {name} | {100 * row['conll_f']:.2f} | {100 * row['lea_f']:.2f} | "
                     f"{100 * row['nosingletons_conll_f']:.2f} | {row['changed']} |")
    return "\n".join(lines) + "\n"

