"""Coarsening of CSR traces: map each point, keep the user's distinct keys sorted as they come, two passes.

Traces are short per user (tens of points), so an insertion sort in a small per-thread buffer beats a
general sort with its allocations; a key already held is merged where it stands, so only distinct keys
move (a district-week has a handful of keys for dozens of antenna-hours), and when only time is coarsened
the mapped keys arrive in order and nothing moves. The first pass counts each user's coarse points, the
second writes them straight into the output, so no temporary as long as the traces is ever allocated.
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
    bin_out: np.ndarray,
    n_bins_out: int,
    keys: np.ndarray,
    sums: np.ndarray,
) -> int:
    """Write the user's distinct coarse keys (ascending) and summed counts; return how many.

    A trace's points ascend, so its unit changes only where a point leaves the current unit's range: one
    division per unit visited, and the coarse bin is looked up (``bin_out[bin] = (bin + shift) // factor``)
    rather than two divisions and a remainder per point."""
    n = 0
    lo = hi = 0
    base = 0
    for i in range(a, b):
        p = points[i]
        if p >= hi or p < lo:
            unit = p // n_bins
            lo = unit * n_bins
            hi = lo + n_bins
            base = unit_map[unit] * n_bins_out
        k = base + bin_out[p - lo]
        j = n
        while j > 0 and keys[j - 1] > k:  # the distinct keys so far stay sorted: find k's place
            j -= 1
        if j > 0 and keys[j - 1] == k:  # seen: merged at once, so shifts move distinct keys only
            sums[j - 1] += counts[i]
            continue
        for t in range(n, j, -1):
            keys[t] = keys[t - 1]
            sums[t] = sums[t - 1]
        keys[j] = k
        sums[j] = counts[i]
        n += 1
    return n


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
    bin_out = (np.arange(n_bins) + shift) // factor
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
                bin_out,
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
    bin_out = (np.arange(n_bins) + shift) // factor
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
                bin_out,
                n_bins_out,
                keys,
                sums,
            )
            for i in range(m):
                new_points[new_ptr[u] + i] = keys[i]
                new_counts[new_ptr[u] + i] = sums[i]
