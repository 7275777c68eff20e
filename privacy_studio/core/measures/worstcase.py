"""Worst-case risk (metrics.md §3): the largest 1/|E(A)| over all p-subsets A of a user's trace.

Exact for p = 1 (the walk along the rarest points first starts at min_x |D_x|) and by enumeration in exact
mode; otherwise a lower bound: the best of the sampled draws and of the rarest-points-first subset, made
non-decreasing in p (a superset of A never has a larger anonymity set).
"""

from __future__ import annotations

import numpy as np


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
