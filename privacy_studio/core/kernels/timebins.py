"""Numba kernels for per-event time arithmetic: wall-clock shift and fixed-width bins in one pass each."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.large_arrays import empty_large


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
    out = empty_large(len(utc), utc.dtype)
    for i in nb.prange(len(utc)):
        out[i] = local_second(utc[i], before, split, after, first_hour)
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def value_range(values: np.ndarray) -> tuple[int, int]:
    """The smallest and largest of ``values`` (not empty) in one parallel pass."""
    parts = 64
    lows = np.full(parts, values[0])
    highs = np.full(parts, values[0])
    n = len(values)
    for k in nb.prange(parts):
        lo = values[0]
        hi = values[0]
        for i in range(k * n // parts, (k + 1) * n // parts):
            if values[i] < lo:
                lo = values[i]
            if values[i] > hi:
                hi = values[i]
        lows[k] = lo
        highs[k] = hi
    return lows.min(), highs.max()


@nb.njit(parallel=True, cache=True, nogil=True)
def local_range(
    utc: np.ndarray,
    first_utc: int,
    last_utc: int,
    before: np.ndarray,
    split: np.ndarray,
    after: np.ndarray,
    first_hour: int,
) -> tuple[int, int]:
    """The earliest and latest local second of ``utc`` (not empty; its range is ``first_utc..last_utc``).

    An offset never differs from another by more than ``slack`` (largest minus smallest), so only events
    within ``slack`` of either end can be the local extremes: only those are shifted.
    """
    slack = max(before.max(), after.max()) - min(before.min(), after.min())
    parts = 64
    lows = np.full(parts, local_second(first_utc, before, split, after, first_hour))
    highs = np.full(parts, local_second(last_utc, before, split, after, first_hour))
    n = len(utc)
    for k in nb.prange(parts):
        lo = lows[k]
        hi = highs[k]
        for i in range(k * n // parts, (k + 1) * n // parts):
            t = utc[i]
            if t <= first_utc + slack or t >= last_utc - slack:
                local = local_second(t, before, split, after, first_hour)
                if local < lo:
                    lo = local
                if local > hi:
                    hi = local
        lows[k] = lo
        highs[k] = hi
    return lows.min(), highs.max()


@nb.njit(parallel=True, cache=True, nogil=True)
def floor_bins(seconds: np.ndarray, origin: int, width: int) -> np.ndarray:
    """``floor((seconds - origin) / width)`` for every event (Python's floor division on negatives)."""
    out = empty_large(len(seconds), seconds.dtype)
    for i in nb.prange(len(seconds)):
        out[i] = (seconds[i] - origin) // width
    return out
