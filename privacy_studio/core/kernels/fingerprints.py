"""Numba kernels of full-fingerprint k-anonymity: trace hashes, then class sizes checked point by point."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.rng import splitmix64


@nb.njit(parallel=True, cache=True, nogil=True)
def trace_hashes(indptr: np.ndarray, points: np.ndarray) -> np.ndarray:
    """A 64-bit hash of every user's whole trace (its length and points)."""
    out = np.empty(len(indptr) - 1, dtype=np.uint64)
    for u in nb.prange(len(indptr) - 1):
        h = np.uint64(indptr[u + 1] - indptr[u])
        for i in range(indptr[u], indptr[u + 1]):
            h = splitmix64(h ^ np.uint64(points[i]))
        out[u] = h
    return out


@nb.njit(cache=True, nogil=True)
def same_trace(indptr: np.ndarray, points: np.ndarray, u: int, v: int) -> bool:
    """Whether users u and v have identical traces."""
    a, b = indptr[u], indptr[v]
    n = indptr[u + 1] - a
    if indptr[v + 1] - b != n:
        return False
    for i in range(n):  # noqa: SIM110 (numba)
        if points[a + i] != points[b + i]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def classes(
    order: np.ndarray, hashes: np.ndarray, indptr: np.ndarray, points: np.ndarray, n_users: int
) -> np.ndarray:
    """Class size of every user: those in ``order`` (users sharing a hash, ordered by it) have equal hashes
    checked point by point, so collisions never merge; every other user is alone (size 1)."""
    n = len(order)
    size = np.ones(n_users, dtype=np.int64)
    label = np.full(n_users, -1, dtype=np.int64)
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
                if label[v] < 0 and same_trace(indptr, points, u, v):
                    label[v] = u
                    members += 1
            size[u] = members
        for i in range(start, end):
            u = order[i]
            size[u] = size[label[u]]
        start = end
    return size
