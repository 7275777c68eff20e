"""Numba kernels for per-event time arithmetic: wall-clock shift and fixed-width bins in one pass each."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True, nogil=True)
def shift_by_offset_pieces(
    utc: np.ndarray, before: np.ndarray, split: np.ndarray, after: np.ndarray, first_hour: int
) -> np.ndarray:
    """Each UTC second plus its offset: ``before`` until ``split`` seconds into the hour, then ``after``."""
    out = np.empty_like(utc)
    for i in nb.prange(len(utc)):
        h = utc[i] // 3600 - first_hour
        into = utc[i] - (h + first_hour) * 3600
        out[i] = utc[i] + (before[h] if into < split[h] else after[h])
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def floor_bins(seconds: np.ndarray, origin: int, width: int) -> np.ndarray:
    """``floor((seconds - origin) / width)`` for every event (Python's floor division on negatives)."""
    out = np.empty_like(seconds)
    for i in nb.prange(len(seconds)):
        out[i] = (seconds[i] - origin) // width
    return out
