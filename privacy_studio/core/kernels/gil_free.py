"""Operations on large arrays that numpy runs holding the GIL, done in a way that lets other threads run
(the window paints while a worker computes, issue #27). Each was found holding the GIL beside a 1 ms ticker.

``np.unique(values)`` (numpy ≥ 2.3, no ``return_*``) collects the values in a hash table while holding the
GIL: on 4 million int64 with 3 million distinct values it took 2.4 s and held the GIL up to 0.48 s at a
stretch, so the window froze while a worker indexed a profile or measured a release. ``np.sort`` runs without
the GIL and took 53 ms on the same array.

``np.cumsum(values, dtype=...)`` (or of a boolean array, summed as integers) casts in its accumulate loop and
holds the GIL for the whole call: 163 ms on 20 million booleans. A cast first (``astype``, GIL free) and a
cumulative sum of the same type (GIL free) take the same time without the stall.
"""

from __future__ import annotations

import numpy as np


def distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` for an integer (or boolean) array: its distinct values, ascending, same dtype."""
    values = np.asarray(values).ravel()
    if values.dtype.kind not in "biu":
        raise TypeError(f"distinct() takes integers, not {values.dtype}")
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    return ordered[new]


def cumsum64(values: np.ndarray) -> np.ndarray:
    """``np.cumsum(values, dtype=np.int64)`` for integers or booleans, without holding the GIL."""
    values = np.asarray(values)
    if values.dtype.kind not in "biu":
        raise TypeError(f"cumsum64() takes integers, not {values.dtype}")
    return np.cumsum(values.astype(np.int64, copy=False))
