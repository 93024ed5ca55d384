"""Percentile bootstrap: the checks and the interval that GAP's and the coreference scorers' bootstraps share."""
from typing import Tuple

import numpy


def check_settings(samples: int, level: float) -> None:
    """Raise a ValueError naming the bad value unless samples ≥ 1 and 0 < level < 1."""
    if samples < 1 or not 0.0 < level < 1.0:
        raise ValueError(f"[spacy-entmem] bootstrap needs samples ≥ 1 and a level in (0, 1); got {samples}, {level}")


def percentile_interval(values: numpy.ndarray, level: float) -> Tuple[float, float]:
    """The central ``level`` share of ``values``: their (1 − level) / 2 and (1 + level) / 2 percentiles."""
    tail = 100.0 * (1.0 - level) / 2
    return float(numpy.percentile(values, tail)), float(numpy.percentile(values, 100.0 - tail))
