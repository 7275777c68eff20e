"""Numba kernels for per-event time arithmetic: wall-clock shift and fixed-width bins in one pass each."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True, nogil=True)
def shift_by_hourly_offsets(utc: np.ndarray, offsets: np.ndarray, first_hour: int) -> np.ndarray:
    """``utc + offsets[utc // 3600 - first_hour]``: the zone offset of each event's hour added to it."""
    out = np.empty_like(utc)
    for i in nb.prange(len(utc)):
        out[i] = utc[i] + offsets[utc[i] // 3600 - first_hour]
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def floor_bins(seconds: np.ndarray, origin: int, width: int) -> np.ndarray:
    """``floor((seconds - origin) / width)`` for every event (Python's floor division on negatives)."""
    out = np.empty_like(seconds)
    for i in nb.prange(len(seconds)):
        out[i] = (seconds[i] - origin) // width
    return out
