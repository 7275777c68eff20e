"""Coarsening of CSR traces: map each point, sort the user's few keys, merge equal ones, in two passes.

Traces are short per user (tens of points), so an insertion sort in a small per-thread buffer beats a
general sort with its allocations; when only time is coarsened the mapped keys are already in order and the
sort does nothing. The first pass counts each user's coarse points, the second writes them straight into
the output, so no temporary as long as the traces is ever allocated.
"""

from __future__ import annotations

import numba as nb
import numpy as np

#: Fixed blocks of users: the unit of parallel work (results do not depend on the threads).
N_PARTS = 64


@nb.njit(cache=True, nogil=True)
def _map_sort_merge(
    points: np.ndarray,
    counts: np.ndarray,
    a: int,
    b: int,
    unit_map: np.ndarray,
    n_bins: int,
    factor: int,
    shift: int,
    n_bins_out: int,
    keys: np.ndarray,
    sums: np.ndarray,
) -> int:
    """Write the user's distinct coarse keys (ascending) and summed counts; return how many."""
    n = 0
    for i in range(a, b):
        unit = points[i] // n_bins
        k = unit_map[unit] * n_bins_out + (points[i] % n_bins + shift) // factor
        c = counts[i]
        j = n
        while j > 0 and keys[j - 1] > k:  # insertion sort: a no-op when keys arrive in order
            keys[j] = keys[j - 1]
            sums[j] = sums[j - 1]
            j -= 1
        keys[j] = k
        sums[j] = c
        n += 1
    m = 0
    for i in range(n):
        if m > 0 and keys[m - 1] == keys[i]:
            sums[m - 1] += sums[i]
        else:
            keys[m] = keys[i]
            sums[m] = sums[i]
            m += 1
    return m


@nb.njit(cache=True, nogil=True)
def _longest_row(indptr: np.ndarray) -> int:
    longest = 0
    for u in range(len(indptr) - 1):
        longest = max(longest, indptr[u + 1] - indptr[u])
    return longest


@nb.njit(parallel=True, cache=True, nogil=True)
def coarse_lengths(
    indptr: np.ndarray,
    points: np.ndarray,
    counts: np.ndarray,
    unit_map: np.ndarray,
    n_bins: int,
    factor: int,
    shift: int,
    n_bins_out: int,
) -> np.ndarray:
    """Number of distinct coarse points of every user (first pass of :func:`fill_coarse`)."""
    n_users = len(indptr) - 1
    longest = _longest_row(indptr)
    lengths = np.zeros(n_users, dtype=np.int64)
    for part in nb.prange(N_PARTS):
        keys = np.empty(longest, dtype=np.int64)
        sums = np.empty(longest, dtype=np.int64)
        for u in range(part * n_users // N_PARTS, (part + 1) * n_users // N_PARTS):
            lengths[u] = _map_sort_merge(
                points,
                counts,
                indptr[u],
                indptr[u + 1],
                unit_map,
                n_bins,
                factor,
                shift,
                n_bins_out,
                keys,
                sums,
            )
    return lengths


@nb.njit(parallel=True, cache=True, nogil=True)
def fill_coarse(
    indptr: np.ndarray,
    points: np.ndarray,
    counts: np.ndarray,
    unit_map: np.ndarray,
    n_bins: int,
    factor: int,
    shift: int,
    n_bins_out: int,
    new_ptr: np.ndarray,
    new_points: np.ndarray,
    new_counts: np.ndarray,
) -> None:
    """Write the coarsened traces: point ``unit * n_bins + bin`` becomes
    ``unit_map[unit] * n_bins_out + (bin + shift) // factor``, counts summed, rows at ``new_ptr``."""
    n_users = len(indptr) - 1
    longest = _longest_row(indptr)
    for part in nb.prange(N_PARTS):
        keys = np.empty(longest, dtype=np.int64)
        sums = np.empty(longest, dtype=np.int64)
        for u in range(part * n_users // N_PARTS, (part + 1) * n_users // N_PARTS):
            m = _map_sort_merge(
                points,
                counts,
                indptr[u],
                indptr[u + 1],
                unit_map,
                n_bins,
                factor,
                shift,
                n_bins_out,
                keys,
                sums,
            )
            for i in range(m):
                new_points[new_ptr[u] + i] = keys[i]
                new_counts[new_ptr[u] + i] = sums[i]
