"""Training targets: plain data shared by the spaCy-side readers and the torch losses, read from reference
docs and aligned onto the predicted docs' tokens (no torch here).

Two kinds of supervision (DESIGN.md §4):
- GAP-style sparse: a span group (default key ``gap``) whose ``attrs["sparse"]`` is true, holding the
  spans labelled ``A``, ``B`` and ``PRONOUN``, with ``attrs["A_coref"]`` / ``attrs["B_coref"]``. Only the
  annotated pairs give coreference loss; tokens outside the spans are unknown.
- Full clusters: ``coref_clusters_N`` span groups; every token is labelled entity or not.
"""
import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from spacy.tokens import Doc, Span
from spacy.training import Example


@dataclass
class LossWeights:
    self_link: float = 1.0
    positive: float = 5.0
    negative: float = 50.0
    sparsity: float = 0.1
    full_link: float = 1.0
    full_negatives: int = 10
    language_model: float = 0.0


@dataclass
class SpanPair:
    """A supervised link between two token ranges [start, end) of one doc; its probability is the max
    over token pairs (t1 in first, t2 in second, t1 != t2)."""

    first: Tuple[int, int]
    second: Tuple[int, int]
    target: float
    weight: float


@dataclass
class DocSupervision:
    n_tokens: int
    pairs: List[SpanPair] = field(default_factory=list)
    # Full supervision: entity target per token. Sparse: None.
    entity_targets: Optional[List[float]] = None
    # Sparse supervision: tokens outside every annotated span (for the entity-sparsity penalty).
    unannotated: Optional[List[int]] = None
    # Span mode, full clusters: (step, 1.0 if the mention starts a new entity else 0.0) per gold mention.
    new_entity: Optional[List[Tuple[int, float]]] = None


GAP_LABELS = ("A", "B", "PRONOUN")
SPARSE_ATTR = "sparse"


def cluster_groups(doc: Doc, prefix: str = "coref_clusters") -> List[Tuple[int, str]]:
    """(index, key) of the span groups named ``{prefix}_{index}``, sorted by index."""
    pattern = re.compile(rf"^{re.escape(prefix)}_(\d+)$")
    found = []
    for key in doc.spans:
        match = pattern.match(key)
        if match:
            found.append((int(match.group(1)), key))
    return sorted(found)


def gold_clusters(doc: Doc, prefix: str = "coref_clusters") -> List[List[Tuple[int, int]]]:
    """The (start, end) token ranges of each ``{prefix}_N`` cluster of a doc, in cluster order."""
    return [[(s.start, s.end) for s in doc.spans[key]] for _, key in cluster_groups(doc, prefix)]


def find_gap_group(doc: Doc, key: str = "gap"):
    group = doc.spans.get(key)
    if group is not None and group.attrs.get(SPARSE_ATTR):
        return group
    return None


def gap_spans(group) -> Dict[str, Span]:
    """The A, B and PRONOUN spans of a GAP span group, by label."""
    spans = {span.label_: span for span in group}
    missing = [label for label in GAP_LABELS if label not in spans]
    if missing:
        raise ValueError(
            f"[spacy-entmem] GAP span group '{group.name}' lacks spans labelled {missing}; "
            f"found labels {sorted(spans)}"
        )
    return spans


def _aligned(eg: Example, spans: List[Span]) -> List[Optional[Tuple[int, int]]]:
    """Token ranges in the predicted doc of reference spans (None where they cannot be aligned)."""
    if len(eg.predicted) == len(eg.reference) and all(
            x.text == y.text for x, y in zip(eg.predicted, eg.reference)):  # same tokens: nothing to align
        return [(span.start, span.end) for span in spans]
    result = []
    for span in spans:
        unlabelled = Span(eg.reference, span.start, span.end)  # labels may live in another vocab
        aligned = eg.get_aligned_spans_y2x([unlabelled], allow_overlap=True)
        result.append((aligned[0].start, aligned[0].end) if aligned else None)
    return result


def self_links(start: int, end: int, weight: float) -> List[SpanPair]:
    """Consecutive tokens of one multi-token mention link to each other."""
    return [SpanPair((t, t + 1), (t + 1, t + 2), 1.0, weight) for t in range(start, end - 1)]


def sparse_supervision(eg: Example, group, weights: LossWeights) -> DocSupervision:
    spans = gap_spans(group)
    a, b, pronoun = _aligned(eg, [spans["A"], spans["B"], spans["PRONOUN"]])
    n = len(eg.predicted)
    sup = DocSupervision(n_tokens=n)
    annotated = set()
    for rng in (a, b, pronoun):
        if rng is not None:
            annotated.update(range(*rng))
            sup.pairs.extend(self_links(*rng, weights.self_link))
    for rng, label in ((a, "A_coref"), (b, "B_coref")):
        if rng is not None and pronoun is not None:
            target = 1.0 if group.attrs.get(label) else 0.0
            weight = weights.positive if target else weights.negative
            sup.pairs.append(SpanPair(rng, pronoun, target, weight))
    if a is not None and b is not None:
        sup.pairs.append(SpanPair(a, b, 0.0, weights.negative))
    sup.unannotated = [t for t in range(n) if t not in annotated]
    return sup


def full_supervision(eg: Example, keys: Iterable[str], weights: LossWeights) -> DocSupervision:
    """Entity targets for every token, self-links, each mention's nearest antecedent as a positive
    and up to ``full_negatives`` nearest earlier mentions of other clusters as negatives."""
    n = len(eg.predicted)
    mentions: List[Tuple[int, int, int]] = []  # (start, end, cluster)
    for cluster, key in enumerate(keys):
        for rng in _aligned(eg, list(eg.reference.spans[key])):
            if rng is not None and rng[1] > rng[0]:
                mentions.append((rng[0], rng[1], cluster))
    mentions.sort()
    entity = [0.0] * n
    sup = DocSupervision(n_tokens=n, entity_targets=entity)
    for i, (start, end, cluster) in enumerate(mentions):
        for t in range(start, end):
            entity[t] = 1.0
        sup.pairs.extend(self_links(start, end, weights.self_link))
        negatives = 0
        found_antecedent = False
        for prev_start, prev_end, prev_cluster in reversed(mentions[:i]):
            if prev_end > start:  # nested or overlapping: not a left-to-right link
                continue
            if prev_cluster == cluster and not found_antecedent:
                sup.pairs.append(SpanPair((prev_start, prev_end), (start, end), 1.0, weights.full_link))
                found_antecedent = True
            elif prev_cluster != cluster and negatives < weights.full_negatives:
                sup.pairs.append(SpanPair((prev_start, prev_end), (start, end), 0.0, weights.full_link))
                negatives += 1
            if found_antecedent and negatives >= weights.full_negatives:
                break
    return sup


def example_supervision(
    eg: Example, weights: LossWeights, gap_key: str = "gap", cluster_prefix: str = "coref_clusters"
) -> Optional[DocSupervision]:
    """The supervision a reference doc carries, or None if it carries none."""
    group = find_gap_group(eg.reference, gap_key)
    if group is not None:
        return sparse_supervision(eg, group, weights)
    keys = [key for _, key in cluster_groups(eg.reference, cluster_prefix)]
    if keys:
        return full_supervision(eg, keys, weights)
    return None


# -- span mode: one memory step per candidate mention ----------------------------------------------------
SpanRange = Tuple[int, int]


def step_order(span: SpanRange) -> Tuple[int, int]:
    """Candidates are read where they end; at one end token the inner (shorter) mention comes first."""
    return span[1], -span[0]


def gold_mentions(eg: Example, gap_key: str = "gap", cluster_prefix: str = "coref_clusters") -> Dict[SpanRange, set]:
    """Gold mention ranges on the predicted doc's tokens → the set of their cluster indices (GAP: the
    A, B and PRONOUN spans, clusters by label)."""
    found: Dict[SpanRange, set] = {}
    group = find_gap_group(eg.reference, gap_key)
    if group is not None:
        spans = gap_spans(group)
        for label, rng in zip(GAP_LABELS, _aligned(eg, [spans[label] for label in GAP_LABELS])):
            if rng is not None and rng[1] > rng[0]:
                found.setdefault(rng, set()).add(label)
        return found
    for cluster, (_, key) in enumerate(cluster_groups(eg.reference, cluster_prefix)):
        for rng in _aligned(eg, list(eg.reference.spans[key])):
            if rng is not None and rng[1] > rng[0]:
                found.setdefault(rng, set()).add(cluster)
    return found


def span_supervision(
    eg: Example, candidates: List[SpanRange], weights: LossWeights, gap_key: str = "gap",
    cluster_prefix: str = "coref_clusters",
) -> Optional[DocSupervision]:
    """Targets over the candidate steps (positions in ``candidates``), or None without supervision.

    Full clusters: every candidate is a mention or not; each gold mention starts a new entity or not
    (the OVERWRITE share of its entity mass); it links to the nearest earlier mention of its cluster
    (positive) and to the nearest earlier mentions of up to ``full_negatives`` other clusters (negative). GAP: the A/B–pronoun pairs and A–B as in token mode; the other candidates
    are unknown and only feel the sparsity penalty.
    """
    gold = gold_mentions(eg, gap_key, cluster_prefix)
    group = find_gap_group(eg.reference, gap_key)
    if not gold and group is None and not cluster_groups(eg.reference, cluster_prefix):
        return None
    position = {span: i for i, span in enumerate(candidates)}
    sup = DocSupervision(n_tokens=len(candidates))
    step = lambda span: (position[span], position[span] + 1)  # noqa: E731
    if group is not None:
        by_label = {next(iter(labels)): span for span, labels in gold.items() if span in position}
        pronoun = by_label.get("PRONOUN")
        for label, attr in (("A", "A_coref"), ("B", "B_coref")):
            if label in by_label and pronoun is not None and by_label[label] != pronoun:
                target = 1.0 if group.attrs.get(attr) else 0.0
                weight = weights.positive if target else weights.negative
                sup.pairs.append(_ordered_pair(step(by_label[label]), step(pronoun), target, weight))
        if "A" in by_label and "B" in by_label and by_label["A"] != by_label["B"]:
            sup.pairs.append(_ordered_pair(step(by_label["A"]), step(by_label["B"]), 0.0, weights.negative))
        annotated = {position[span] for span in by_label.values()}
        sup.unannotated = [i for i in range(len(candidates)) if i not in annotated]
        return sup
    sup.entity_targets = [1.0 if span in gold else 0.0 for span in candidates]
    sup.new_entity = []
    seen: List[Tuple[int, set]] = []  # (position, clusters) of earlier gold mentions, in step order
    for i, span in enumerate(candidates):
        clusters = gold.get(span)
        if not clusters:
            continue
        is_new = not any(previous & clusters for _, previous in seen)
        sup.new_entity.append((i, 1.0 if is_new else 0.0))
        found_antecedent = False
        negative_clusters: set = set()
        for j, previous in reversed(seen):
            if previous & clusters:
                if not found_antecedent:
                    sup.pairs.append(SpanPair((j, j + 1), (i, i + 1), 1.0, weights.full_link))
                    found_antecedent = True
            elif len(negative_clusters) < weights.full_negatives and not previous <= negative_clusters:
                sup.pairs.append(SpanPair((j, j + 1), (i, i + 1), 0.0, weights.full_link))
                negative_clusters |= previous
            if found_antecedent and len(negative_clusters) >= weights.full_negatives:
                break
        seen.append((i, clusters))
    return sup


def _ordered_pair(first: SpanRange, second: SpanRange, target: float, weight: float) -> SpanPair:
    return SpanPair(min(first, second), max(first, second), target, weight)
