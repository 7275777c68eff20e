"""Numba kernels that build the inverted index: compact point ids, posting lists by counting sort, bitmaps."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.large_arrays import empty_large


@nb.njit(parallel=True, cache=True, nogil=True)
def compact_points(
    points: np.ndarray, point_ids: np.ndarray, remap: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Compact id of every trace entry (a lookup table, or a binary search when d is huge) and |D_x|."""
    out = empty_large(len(points), np.int32)
    for i in nb.prange(len(points)):
        if remap is None:
            out[i] = np.searchsorted(point_ids, points[i])
        else:
            out[i] = remap[points[i]]
    blocks = 8  # entries counted per block in parallel, then summed: the same integers as one pass
    per_block = np.zeros((blocks, len(point_ids)), dtype=np.int64)
    for k in nb.prange(blocks):
        for i in range(k * len(out) // blocks, (k + 1) * len(out) // blocks):
            per_block[k, out[i]] += 1
    counts = np.zeros(len(point_ids), dtype=np.int64)
    for k in range(blocks):
        counts += per_block[k]
    return out, counts


@nb.njit(parallel=True, cache=True, nogil=True)
def fill_postings(trace_ptr: np.ndarray, trace_pts: np.ndarray, post_ptr: np.ndarray) -> np.ndarray:
    """Counting sort of the (user, point) pairs by point; users come out ascending within each point.

    Users are cut into a fixed number of blocks; each block counts its pairs per point, then writes them
    after the earlier blocks' pairs, so the result does not depend on the threads.
    """
    n_users = len(trace_ptr) - 1
    n_points = len(post_ptr) - 1
    blocks = 2
    counts = np.zeros((blocks, n_points), dtype=np.int64)
    for k in nb.prange(blocks):
        for u in range(k * n_users // blocks, (k + 1) * n_users // blocks):
            for t in range(trace_ptr[u], trace_ptr[u + 1]):
                counts[k, trace_pts[t]] += 1
    for x in nb.prange(n_points):
        start = post_ptr[x]
        for k in range(blocks):
            c = counts[k, x]
            counts[k, x] = start
            start += c
    out = empty_large(len(trace_pts), np.int32)
    for k in nb.prange(blocks):
        fill = counts[k]
        for u in range(k * n_users // blocks, (k + 1) * n_users // blocks):
            for t in range(trace_ptr[u], trace_ptr[u + 1]):
                x = trace_pts[t]
                out[fill[x]] = u
                fill[x] += 1
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def fill_bitmaps(
    post_ptr: np.ndarray, post_users: np.ndarray, dense_points: np.ndarray, n_words: int
) -> np.ndarray:
    """One bitmap (a bit per user) for each of the dense points' posting lists."""
    bitmaps = empty_large((len(dense_points), n_words), np.uint64)
    bitmaps[:] = 0
    for k in nb.prange(len(dense_points)):
        x = dense_points[k]
        for i in range(post_ptr[x], post_ptr[x + 1]):
            v = post_users[i]
            bitmaps[k, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return bitmaps
