"""Numba kernels for per-event time arithmetic: wall-clock shift and fixed-width bins in one pass each."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def local_second(t: int, before: np.ndarray, split: np.ndarray, after: np.ndarray, first_hour: int) -> int:
    """UTC second ``t`` plus its offset: ``before`` until ``split`` seconds into its hour, then ``after``."""
    h = t // 3600 - first_hour
    into = t - (h + first_hour) * 3600
    return t + (before[h] if into < split[h] else after[h])


@nb.njit(parallel=True, cache=True, nogil=True)
def shift_by_offset_pieces(
    utc: np.ndarray, before: np.ndarray, split: np.ndarray, after: np.ndarray, first_hour: int
) -> np.ndarray:
    """Each UTC second plus its offset (see :func:`local_second`)."""
    out = np.empty_like(utc)
    for i in nb.prange(len(utc)):
        out[i] = local_second(utc[i], before, split, after, first_hour)
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def local_range(
    utc: np.ndarray, before: np.ndarray, split: np.ndarray, after: np.ndarray, first_hour: int
) -> tuple[int, int]:
    """The earliest and latest local second of ``utc`` (not empty), without making the local times."""
    parts = 64
    lows = np.empty(parts, dtype=np.int64)
    highs = np.empty(parts, dtype=np.int64)
    n = len(utc)
    for k in nb.prange(parts):
        lo, hi = np.iinfo(np.int64).max, np.iinfo(np.int64).min
        for i in range(k * n // parts, (k + 1) * n // parts):
            t = local_second(utc[i], before, split, after, first_hour)
            lo, hi = min(lo, t), max(hi, t)
        lows[k], highs[k] = lo, hi
    return lows.min(), highs.max()


@nb.njit(parallel=True, cache=True, nogil=True)
def floor_bins(seconds: np.ndarray, origin: int, width: int) -> np.ndarray:
    """``floor((seconds - origin) / width)`` for every event (Python's floor division on negatives)."""
    out = np.empty_like(seconds)
    for i in nb.prange(len(seconds)):
        out[i] = (seconds[i] - origin) // width
    return out
