"""Numba kernels that turn per-user rows into CSR sets: sorted distinct keys with summed weights."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True)
def _sort_segments(offsets: np.ndarray, keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort ``keys`` within each segment ``offsets[u]:offsets[u+1]``, carrying ``weights`` along."""
    n_seg = len(offsets) - 1
    out_keys = np.empty_like(keys)
    out_w = np.empty_like(weights)
    for u in nb.prange(n_seg):
        a, b = offsets[u], offsets[u + 1]
        if b - a == 0:
            continue
        order = np.argsort(keys[a:b], kind="mergesort")
        for i in range(b - a):
            out_keys[a + i] = keys[a + order[i]]
            out_w[a + i] = weights[a + order[i]]
    return out_keys, out_w


@nb.njit(parallel=True, cache=True)
def _count_distinct(offsets: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    n_seg = len(offsets) - 1
    distinct = np.zeros(n_seg, dtype=np.int64)
    for u in nb.prange(n_seg):
        a, b = offsets[u], offsets[u + 1]
        c = 0
        for i in range(a, b):
            if i == a or sorted_keys[i] != sorted_keys[i - 1]:
                c += 1
        distinct[u] = c
    return distinct


@nb.njit(parallel=True, cache=True)
def _fill_distinct(
    offsets: np.ndarray, sorted_keys: np.ndarray, sorted_w: np.ndarray, indptr: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    n_seg = len(offsets) - 1
    total = indptr[n_seg]
    points = np.empty(total, dtype=np.int64)
    counts = np.zeros(total, dtype=np.int64)
    for u in nb.prange(n_seg):
        a, b = offsets[u], offsets[u + 1]
        j = indptr[u] - 1
        for i in range(a, b):
            if i == a or sorted_keys[i] != sorted_keys[i - 1]:
                j += 1
                points[j] = sorted_keys[i]
            counts[j] += sorted_w[i]
    return points, counts


def dedupe_segments(
    offsets: np.ndarray, keys: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of the distinct keys of every segment with their summed weights.

    ``offsets`` (int64, n_segments + 1) delimits the rows of each user in ``keys`` (int64). Returns
    ``(indptr, points, counts)`` where ``points[indptr[u]:indptr[u+1]]`` are user ``u``'s distinct keys in
    ascending order and ``counts`` the sum of ``weights`` (1 per row by default) for each.
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    w = np.ones(len(keys), dtype=np.int64) if weights is None else np.ascontiguousarray(weights, dtype=np.int64)
    sorted_keys, sorted_w = _sort_segments(offsets, keys, w)
    distinct = _count_distinct(offsets, sorted_keys)
    indptr = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(distinct, out=indptr[1:])
    points, counts = _fill_distinct(offsets, sorted_keys, sorted_w, indptr)
    return indptr, points, counts
