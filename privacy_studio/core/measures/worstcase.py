"""Worst-case risk (metrics.md §3): the largest 1/|E(A)| over all p-subsets A of a user's trace.

Exact for p = 1 (the rarest point of the trace decides) and by enumeration in exact mode; otherwise a lower
bound: the best of the sampled draws, of the rarest-points-first subset and of the targeted search
(``core/kernels/worst_search.py``: rarest points first, then a beam of the subsets with the smallest sets),
made non-decreasing in p (a superset of A never has a larger anonymity set).
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.worst_search import worst_search

#: Subsets kept at each level of the targeted search. On the sample (district x 1w) and Gowalla NYC
#: (grid:20 x 1w) at p = 4 a beam of 16 finds the exact share at risk 1 to within 0.3 points (tests).
SEARCH_BEAM = 16


def targeted_sizes(index: PointIndex, users: np.ndarray, pmax: int, rare: np.ndarray) -> np.ndarray:
    """(S, pmax) smallest anonymity set known per person and p: the targeted search's, or the
    rarest-points-first walk's ``rare`` where smaller (0 where the person has fewer points)."""
    found = worst_search(np.ascontiguousarray(users, dtype=np.int64), index.arrays(), index.max_list, pmax,
                         SEARCH_BEAM)  # fmt: skip
    return np.where((rare > 0) & (rare < found), rare, found)


def worst_lower_bounds(sizes: np.ndarray, rare: np.ndarray) -> np.ndarray:
    """Per user and p (S, pmax): max over draws and the rarest-first subset of 1/|E|, non-decreasing in p.

    ``sizes`` is (S, R, pmax) and ``rare`` (S, pmax) with 0 marking an excluded user, which gets NaN.
    """
    smallest = sizes.min(axis=1)
    inv = np.zeros(smallest.shape)
    for arr in (smallest, rare):
        ok = arr > 0
        inv[ok] = np.maximum(inv[ok], 1.0 / arr[ok])
    inv = np.maximum.accumulate(inv, axis=1)
    inv[smallest == 0] = np.nan
    return inv
