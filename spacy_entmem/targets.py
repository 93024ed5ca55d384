"""Training targets as plain data: shared by the spaCy-side readers and the torch losses."""
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


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
