"""The floors every coreference score is shown beside (DESIGN.md §6), on a given set of mentions:

- ``string_match_clusters``: mentions whose lowercased text is the same join one cluster; each pronoun
  joins the cluster of the nearest mention that ends before it starts.
- ``singleton_clusters``: every mention alone.

No model, no torch: plain (start, end) token ranges in, clusters out.
"""
from typing import Dict, List, Sequence, Tuple

from ..linguistics.values import PRONOUNS

Range = Tuple[int, int]


def _find(parent: List[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def string_match_clusters(words: Sequence[str], mentions: Sequence[Range]) -> List[List[Range]]:
    """Clusters (ordered by first mention, mentions in document order) of the distinct ``mentions`` of a
    document whose tokens are ``words``."""
    ordered = sorted(set(mentions))
    parent = list(range(len(ordered)))
    first_with_text: Dict[str, int] = {}
    for i, (start, end) in enumerate(ordered):
        text = " ".join(w.lower() for w in words[start:end])
        if end - start == 1 and text in PRONOUNS:
            before = [j for j in range(i) if ordered[j][1] <= start]
            if before:
                nearest = max(before, key=lambda j: (ordered[j][1], ordered[j][0]))
                parent[_find(parent, i)] = _find(parent, nearest)
            continue
        if text in first_with_text:
            parent[_find(parent, i)] = _find(parent, first_with_text[text])
        else:
            first_with_text[text] = i
    clusters: Dict[int, List[Range]] = {}
    for i, span in enumerate(ordered):
        clusters.setdefault(_find(parent, i), []).append(span)
    return sorted(clusters.values(), key=lambda spans: spans[0])


def singleton_clusters(mentions: Sequence[Range]) -> List[List[Range]]:
    return [[span] for span in sorted(set(mentions))]
