"""Numba kernels that turn per-user rows into CSR sets: sorted distinct keys with summed weights.

Weights are optional: an empty weights array stands for "one per row", which saves two arrays as long as
the input when building traces from tens of millions of events.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True, nogil=True)
def _sort_segments(offsets: np.ndarray, keys: np.ndarray, weights: np.ndarray) -> None:
    """Sort ``keys`` in place within each segment ``offsets[u]:offsets[u+1]``, carrying ``weights`` along."""
    for u in nb.prange(len(offsets) - 1):
        a, b = offsets[u], offsets[u + 1]
        if b - a < 2:
            continue
        if len(weights) == 0:
            keys[a:b].sort()
        else:
            order = np.argsort(keys[a:b], kind="mergesort")
            sorted_keys = keys[a:b][order]
            sorted_w = weights[a:b][order]
            keys[a:b] = sorted_keys
            weights[a:b] = sorted_w


@nb.njit(parallel=True, cache=True, nogil=True)
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


@nb.njit(parallel=True, cache=True, nogil=True)
def fill_distinct(
    offsets: np.ndarray,
    sorted_keys: np.ndarray,
    sorted_w: np.ndarray,
    indptr: np.ndarray,
    points: np.ndarray,
    counts: np.ndarray,
) -> None:
    """Write each segment's distinct keys into ``points[indptr[u]:indptr[u+1]]`` and their summed weights
    (1 per row when ``sorted_w`` is empty) into ``counts``, which must start at zero."""
    n_seg = len(offsets) - 1
    unweighted = len(sorted_w) == 0
    for u in nb.prange(n_seg):
        a, b = offsets[u], offsets[u + 1]
        j = indptr[u] - 1
        for i in range(a, b):
            if i == a or sorted_keys[i] != sorted_keys[i - 1]:
                j += 1
                points[j] = sorted_keys[i]
            counts[j] += 1 if unweighted else sorted_w[i]


def dedupe_segments(
    offsets: np.ndarray, keys: np.ndarray, weights: np.ndarray | None = None, *, overwrite_keys: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of the distinct keys of every segment with their summed weights.

    ``offsets`` (int64, n_segments + 1) delimits the rows of each user in ``keys`` (int64). Returns
    ``(indptr, points, counts)`` where ``points[indptr[u]:indptr[u+1]]`` are user ``u``'s distinct keys in
    ascending order and ``counts`` the sum of ``weights`` (1 per row by default) for each. With
    ``overwrite_keys`` an int64 ``keys`` array is sorted in place instead of copied.
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    in_place = overwrite_keys and keys.dtype == np.int64 and keys.flags.c_contiguous
    keys = keys if in_place else np.array(keys, dtype=np.int64, order="C")
    w = np.empty(0, dtype=np.int64) if weights is None else np.array(weights, dtype=np.int64, order="C")
    _sort_segments(offsets, keys, w)
    distinct = _count_distinct(offsets, keys)
    indptr = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(distinct, out=indptr[1:])
    points = np.empty(indptr[-1], dtype=np.int64)
    counts = np.zeros(indptr[-1], dtype=np.int64)
    fill_distinct(offsets, keys, w, indptr, points, counts)
    return indptr, points, counts


@nb.njit(cache=True, nogil=True)
def count_codes_into(lengths: np.ndarray, codes: np.ndarray) -> None:
    """``lengths[c] += 1`` for every code ``c`` (the relational engines' streamed user counts; codes
    already checked to be in range)."""
    for c in codes:
        lengths[c] += 1


@nb.njit(cache=True, nogil=True)
def scatter_rows(
    fill: np.ndarray,
    ends: np.ndarray,
    u: np.ndarray,
    point: np.ndarray,
    cnt: np.ndarray,
    points: np.ndarray,
    counts: np.ndarray,
) -> int:
    """Streamed rows into a CSR (the relational engines' fetch): each row goes to its user's next free
    slot (``fill[u]``, advanced); with ``cnt`` empty (rows are events, not yet counted) only its point.
    Returns the index of the first row that finds its user's slots full (``fill[u] == ends[u]``: more rows
    than counted), writing nothing for it or after it, else -1."""
    with_counts = len(cnt) > 0
    for i in range(len(u)):
        j = fill[u[i]]
        if j >= ends[u[i]]:
            return i
        points[j] = point[i]
        if with_counts:
            counts[j] = cnt[i]
        fill[u[i]] = j + 1
    return -1


@nb.njit(cache=True, nogil=True)
def merge_sorted_segments(
    offsets: np.ndarray, keys: np.ndarray, indptr: np.ndarray, counts: np.ndarray
) -> None:
    """In place: each segment's distinct keys (sorted, ``offsets[u]:offsets[u+1]``) moved down to
    ``keys[indptr[u]:indptr[u+1]]`` (``indptr`` from :func:`_count_distinct`), and how many rows hold each
    added into ``counts`` (zeros, one per distinct key).

    Serial on purpose: a distinct key never moves up (``indptr[u] <= offsets[u]`` and a segment keeps at
    most its rows), so walking users in order never overwrites a row still to be read."""
    for u in range(len(offsets) - 1):
        j = indptr[u] - 1
        for i in range(offsets[u], offsets[u + 1]):
            if i == offsets[u] or keys[i] != keys[i - 1]:
                j += 1
                keys[j] = keys[i]
            counts[j] += 1


#: The in-memory CSR builder's segment sort and distinct counts, shared with the relational engines' fetch.
sort_segments = _sort_segments
count_distinct = _count_distinct
