"""Numba kernel of the computed information loss: distinct flows between consecutive events of a user."""

from __future__ import annotations

import numba as nb
import numpy as np

#: Largest number of (origin, destination) unit pairs counted in one dense array.
DENSE_FLOWS = 1 << 22


@nb.njit(cache=True, nogil=True)
def count_flows(user: np.ndarray, units: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct origin * n_units + destination keys of consecutive events of one user, and their counts."""
    if n_units * n_units <= DENSE_FLOWS:  # few units: one dense counter, read in key order
        dense = np.zeros(n_units * n_units, dtype=np.int64)
        for i in range(1, len(user)):
            if user[i] == user[i - 1]:
                dense[units[i - 1] * n_units + units[i]] += 1
        present = np.flatnonzero(dense)
        return present, dense[present]
    # Counting sort of the pairs by origin, then per origin a scratch counter over destinations:
    # O(events + units), no temporary arrays the size of the events beyond one.
    start = np.zeros(n_units + 1, dtype=np.int64)
    for i in range(1, len(user)):
        if user[i] == user[i - 1]:
            start[units[i - 1] + 1] += 1
    start = np.cumsum(start)
    fill = start[:-1].copy()
    by_origin = np.empty(start[-1], dtype=np.int64)
    for i in range(1, len(user)):
        if user[i] == user[i - 1]:
            by_origin[fill[units[i - 1]]] = units[i]
            fill[units[i - 1]] += 1
    seen = np.zeros(n_units, dtype=np.int64)
    keys = np.empty(len(by_origin), dtype=np.int64)
    counts = np.empty(len(by_origin), dtype=np.int64)
    m = 0
    for a in range(n_units):
        first = m
        for j in range(start[a], start[a + 1]):
            b = by_origin[j]
            if seen[b] == 0:
                keys[m] = a * n_units + b
                m += 1
            seen[b] += 1
        for k in range(first, m):
            b = keys[k] - a * n_units
            counts[k] = seen[b]
            seen[b] = 0
    return keys[:m], counts[:m]
