"""Numba kernel that turns events straight into per-user sorted point keys, with no per-event temporaries.

Generalizing maps each event to ``(unit · n_bins + bin) · n_price + price bin``. Computing the unit, the bin
and the key as separate whole-table arrays costs three passes and two extra arrays as long as the events;
here each user's keys are computed, sorted and counted in one parallel pass over users.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True, nogil=True)
def user_point_keys(
    offsets: np.ndarray,
    unit_of: np.ndarray,
    unit_map: np.ndarray,
    seconds: np.ndarray,
    origin: int,
    width: int,
    price_bin: np.ndarray,
    n_bins: int,
    n_price: int,
    keys: np.ndarray,
) -> np.ndarray:
    """Fill ``keys`` (int64, one per event) with every event's point, sorted within each user's rows
    ``offsets[u]:offsets[u+1]``; return each user's number of distinct points.

    The unit is ``unit_map[unit_of[i]]`` (``unit_of[i]`` itself when ``unit_map`` is empty), the bin
    ``(seconds[i] - origin) // width`` (0 when ``seconds`` is empty), the price bin ``price_bin[i]`` (none
    when ``price_bin`` is empty).
    """
    n_users = len(offsets) - 1
    distinct = np.zeros(n_users, dtype=np.int64)
    mapped = len(unit_map) > 0
    timed = len(seconds) > 0
    priced = len(price_bin) > 0
    for u in nb.prange(n_users):
        a, b = offsets[u], offsets[u + 1]
        for i in range(a, b):
            unit = np.int64(unit_map[unit_of[i]]) if mapped else np.int64(unit_of[i])
            k = unit * n_bins
            if timed:
                k += (seconds[i] - origin) // width
            if priced:
                k = k * n_price + price_bin[i]
            keys[i] = k
        if b - a > 1:
            keys[a:b].sort()
        c = 0
        for i in range(a, b):
            if i == a or keys[i] != keys[i - 1]:
                c += 1
        distinct[u] = c
    return distinct
