"""The ``entity_memory`` scorer: GAP metrics for sparse gold, CoNLL metrics for full clusters."""
from typing import Any, Dict, Iterable, List, Tuple

from spacy.tokens import Span
from spacy.training import Example
from spacy.util import registry

from ..pipeline.attributes import coref_clusters, coref_mentions
from .coref_metrics import CorefScorer
from .gap import GapGold, select_threshold
from ..pipeline.memory_log import held_link_probability, span_link_probability, steps_link_probability, steps_matching
from ..training.targets import cluster_groups, find_gap_group, gap_spans


def _aligned_range(eg: Example, span: Span, reference_to_predicted: bool) -> Tuple[int, int]:
    get = eg.get_aligned_spans_y2x if reference_to_predicted else eg.get_aligned_spans_x2y
    aligned = get([Span(span.doc, span.start, span.end)], allow_overlap=True)
    return (aligned[0].start, aligned[0].end) if aligned else (span.start, span.start)


def gap_query_ranges(eg: Example, group) -> Tuple[Tuple[int, int], Tuple[int, int], Tuple[int, int]]:
    """The token ranges in the predicted doc of a GAP group's PRONOUN, A and B spans."""
    spans = gap_spans(group)
    pronoun, a, b = (_aligned_range(eg, spans[label], True) for label in ("PRONOUN", "A", "B"))
    return pronoun, a, b


def gap_pair_probabilities(eg: Example, group) -> Tuple[float, float]:
    """P(A ~ pronoun) and P(B ~ pronoun) from the predicted doc's memory log."""
    log = eg.predicted._.entity_memory_log
    if log is None:
        raise ValueError(
            f"[spacy-entmem] document {group.attrs.get('id', '?')} has no memory log: "
            "the entity_memory component must run with store_memory_log = true to be scored on GAP"
        )
    p, a, b = gap_query_ranges(eg, group)
    if "spans" in log:  # span model: the candidates that stand for each annotated span
        a, b, p = (steps_matching(log, rng) for rng in (a, b, p))
        if log.get("decided_in_loop") is not None:  # a hard memory: the cell that holds the entity
            return held_link_probability(log, a, p), held_link_probability(log, b, p)
        return steps_link_probability(log, a, p), steps_link_probability(log, b, p)
    return span_link_probability(log, a, p), span_link_probability(log, b, p)


def predicted_clusters(eg: Example) -> List[List[Tuple[int, int]]]:
    """Predicted clusters plus singleton mentions, in the reference doc's token offsets."""
    clusters = []
    clustered = set()
    for group in coref_clusters(eg.predicted):
        spans = eg.get_aligned_spans_x2y(list(group), allow_overlap=True)
        clusters.append([(s.start, s.end) for s in spans])
        clustered.update((s.start, s.end) for s in group)
    mentions = coref_mentions(eg.predicted)
    if mentions is not None:
        singles = [s for s in mentions if (s.start, s.end) not in clustered]
        for s in eg.get_aligned_spans_x2y(singles, allow_overlap=True):
            clusters.append([(s.start, s.end)])
    return clusters


def score_entity_memory(
    examples: Iterable[Example], *, gap_key: str = "gap", cluster_prefix: str = "coref_clusters", **_: Any
) -> Dict[str, Any]:
    gold: List[GapGold] = []
    probabilities: Dict[str, Tuple[float, float]] = {}
    with_singletons, without_singletons = CorefScorer(True), CorefScorer(False)
    n_full = 0
    for eg in examples:
        group = find_gap_group(eg.reference, gap_key)
        if group is not None:
            example_id = str(group.attrs.get("id", len(gold)))
            pronoun = gap_spans(group)["PRONOUN"].text
            gold.append(GapGold(example_id, pronoun, bool(group.attrs["A_coref"]), bool(group.attrs["B_coref"])))
            probabilities[example_id] = gap_pair_probabilities(eg, group)
        keys = cluster_groups(eg.reference, cluster_prefix)
        if keys:
            n_full += 1
            key = [[(s.start, s.end) for s in eg.reference.spans[k]] for _, k in keys]
            response = predicted_clusters(eg)
            with_singletons.add(key, response)
            without_singletons.add(key, response)
    scores: Dict[str, Any] = {}
    if gold:
        threshold, gap = select_threshold(gold, probabilities)
        scores.update({key: (value / 100 if value is not None and key != "gap_bias" else value)
                       for key, value in gap.as_dict().items()})
        scores["gap_threshold"] = threshold
    if n_full:
        for name, value in with_singletons.scores().items():
            scores[f"coref_{name}"] = value
        for name, value in without_singletons.scores().items():
            scores[f"coref_nosingletons_{name}"] = value
        scores["coref_f"] = scores["coref_conll_f"]
    return scores


@registry.scorers("spacy_entmem.entity_memory_scorer.v1")
def make_entity_memory_scorer():
    return score_entity_memory
