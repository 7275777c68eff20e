"""Coarsening of CSR traces in one parallel pass: map each point, sort the user's few keys, merge equal ones.

Traces are short per user (tens of points), so an insertion sort in place beats a general sort with its
allocations; when only time is coarsened the mapped keys are already in order and the sort does nothing.
"""

from __future__ import annotations

import numba as nb
import numpy as np


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


@nb.njit(parallel=True, cache=True, nogil=True)
def coarsen_csr(
    indptr: np.ndarray,
    points: np.ndarray,
    counts: np.ndarray,
    unit_map: np.ndarray,
    n_bins: int,
    factor: int,
    shift: int,
    n_bins_out: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coarsened CSR traces: point ``unit * n_bins + bin`` becomes
    ``unit_map[unit] * n_bins_out + (bin + shift) // factor``, counts summed.

    Deterministic: users are split into fixed blocks and each writes only its own rows.
    """
    n_users = len(indptr) - 1
    out_keys = np.empty(len(points), dtype=np.int64)
    out_sums = np.empty(len(points), dtype=np.int64)
    lengths = np.zeros(n_users, dtype=np.int64)
    n_parts = 64
    for part in nb.prange(n_parts):
        for u in range(part * n_users // n_parts, (part + 1) * n_users // n_parts):
            a, b = indptr[u], indptr[u + 1]
            lengths[u] = _map_sort_merge(
                points,
                counts,
                a,
                b,
                unit_map,
                n_bins,
                factor,
                shift,
                n_bins_out,
                out_keys[a:b],
                out_sums[a:b],
            )
    new_ptr = np.zeros(n_users + 1, dtype=np.int64)
    for u in range(n_users):
        new_ptr[u + 1] = new_ptr[u] + lengths[u]
    new_points = np.empty(new_ptr[n_users], dtype=np.int64)
    new_counts = np.empty(new_ptr[n_users], dtype=np.int64)
    for part in nb.prange(n_parts):
        for u in range(part * n_users // n_parts, (part + 1) * n_users // n_parts):
            a = indptr[u]
            for i in range(lengths[u]):
                new_points[new_ptr[u] + i] = out_keys[a + i]
                new_counts[new_ptr[u] + i] = out_sums[a + i]
    return new_ptr, new_points, new_counts
