"""Operations on large arrays that numpy runs holding the GIL, done in a way that lets other threads run
(the window paints while a worker computes, issue #27). Each was found holding the GIL beside a 1 ms ticker.

``np.unique(values)`` (numpy ≥ 2.3, no ``return_*``) collects the values in a hash table while holding the
GIL: on 4 million int64 with 3 million distinct values it took 2.4 s and held the GIL up to 0.48 s at a
stretch, so the window froze while a worker indexed a profile or measured a release. ``np.sort`` runs without
the GIL and took 53 ms on the same array.

``np.cumsum(values, dtype=...)`` (or of a boolean array, summed as integers) casts in its accumulate loop and
holds the GIL for the whole call: 163 ms on 20 million booleans. A cast first (``astype``, GIL free) and a
cumulative sum of the same type (GIL free) take the same time without the stall.

``np.repeat(values, counts)`` copies holding the GIL: at 1M people, the information loss's links of every
fine point and flow to its coarse places (two ``np.repeat`` calls) held it 220-240 ms at a time, five pauses
of the window's run in 26 s (``bench_big_window.py --stacks``). A numba loop writes the same array without it.
"""

from __future__ import annotations

import numba as nb
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


def repeat(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``np.repeat(values, counts)`` for a 1-D array and one non-negative count per value (or one for all),
    without the GIL."""
    values = np.ascontiguousarray(values)
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size == 1 and values.ndim == 1:  # one count for every value, as numpy broadcasts it
        counts = np.broadcast_to(counts.reshape(()), values.shape)
    counts = np.ascontiguousarray(counts)
    if values.ndim != 1 or counts.shape != values.shape:
        raise ValueError(f"repeat() takes one count per value, not {counts.shape} for {values.shape}")
    if len(counts) and counts.min() < 0:
        raise ValueError("repeat() counts must not be negative")
    out = np.empty(int(counts.sum()), dtype=values.dtype)
    _repeat_into(values, counts, out)
    return out


@nb.njit(cache=True, nogil=True)
def _repeat_into(values: np.ndarray, counts: np.ndarray, out: np.ndarray) -> None:
    at = 0
    for i in range(len(values)):
        value = values[i]
        for j in range(at, at + counts[i]):
            out[j] = value
        at += counts[i]
