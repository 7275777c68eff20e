"""Full-fingerprint k-anonymity (metrics.md §3): users whose whole traces are identical form one class."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.generalize import Traces
from privacy_studio.core.kernels.rng import splitmix64

#: Class sizes for which the share of users in smaller classes is reported.
THRESHOLDS = (2, 5, 10, 100)


@nb.njit(parallel=True, cache=True, nogil=True)
def _trace_hashes(indptr: np.ndarray, points: np.ndarray) -> np.ndarray:
    out = np.empty(len(indptr) - 1, dtype=np.uint64)
    for u in nb.prange(len(indptr) - 1):
        h = np.uint64(indptr[u + 1] - indptr[u])
        for i in range(indptr[u], indptr[u + 1]):
            h = splitmix64(h ^ np.uint64(points[i]))
        out[u] = h
    return out


@nb.njit(cache=True, nogil=True)
def _same_trace(indptr: np.ndarray, points: np.ndarray, u: int, v: int) -> bool:
    a, b = indptr[u], indptr[v]
    n = indptr[u + 1] - a
    if indptr[v + 1] - b != n:
        return False
    for i in range(n):  # noqa: SIM110 (numba)
        if points[a + i] != points[b + i]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _classes(order: np.ndarray, hashes: np.ndarray, indptr: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Class size of every user: equal hashes are checked point by point, so collisions never merge."""
    n = len(order)
    size = np.zeros(n, dtype=np.int64)
    label = np.full(n, -1, dtype=np.int64)
    start = 0
    while start < n:
        end = start
        while end < n and hashes[order[end]] == hashes[order[start]]:
            end += 1
        for i in range(start, end):  # runs are tiny unless traces are equal: quadratic only on collisions
            u = order[i]
            if label[u] >= 0:
                continue
            label[u] = u
            members = 1
            for j in range(i + 1, end):
                v = order[j]
                if label[v] < 0 and _same_trace(indptr, points, u, v):
                    label[v] = u
                    members += 1
            size[u] = members
        for i in range(start, end):
            u = order[i]
            size[u] = size[label[u]]
        start = end
    return size


def class_sizes(traces: Traces) -> np.ndarray:
    """Size of each user's full-fingerprint equivalence class (1 = unique trace)."""
    indptr = np.ascontiguousarray(traces.indptr, dtype=np.int64)
    points = np.ascontiguousarray(traces.points, dtype=np.int64)
    hashes = _trace_hashes(indptr, points)
    order = np.argsort(hashes, kind="stable")
    return _classes(order, hashes, indptr, points)


def kanonymity_summary(sizes: np.ndarray) -> dict:
    """The dataset's k (smallest class) and the share of users in classes below each threshold."""
    if len(sizes) == 0:
        return {"k": 0, "share_below": {str(k): 0.0 for k in THRESHOLDS}}
    return {
        "k": int(sizes.min()),
        "share_below": {str(k): float(np.mean(sizes < k)) for k in THRESHOLDS},
    }
