"""Numba kernels that turn events straight into CSR traces (sorted distinct points, counts per point).

Generalizing maps each event to ``(unit · n_bins + bin) · n_price + price bin``. Computing the unit, the bin
and the key as whole-table arrays costs passes and arrays as long as the events; here each user's keys are
made in small per-block buffers. They come out sorted without a general sort: the user's events are in
time order, so chaining them by unit (a bucket per unit) and reading the buckets in unit order gives the
keys in order; only when that fails (local time going back at a daylight-saving change, price bins) are
they sorted. Each user's distinct points and counts are written over the start of its own rows of two
event-length arrays, which are then compacted in place and shrunk (no second copy of the traces).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.timebins import local_second

#: Fixed blocks of users: the unit of parallel work (results do not depend on the threads).
N_PARTS = 64
#: Levels with more units than this (coordinate places, fine grids) sort each user's keys instead of
#: bucketing them by unit, which needs two arrays of n_units per block.
BUCKET_MAX = 1 << 16


@nb.njit(cache=True, nogil=True)
def _bin(x: int, width: int, inverse: float) -> int:
    """``x // width`` for 0 <= x < 2^52 by a float multiply and one correction (a division by a width only
    known at run time costs several times more, tens of millions of times)."""
    q = np.int64(x * inverse)
    if q * width > x:
        return q - 1
    if (q + 1) * width <= x:
        return q + 1
    return q


@nb.njit(cache=True, nogil=True)
def _sorted_keys(a, b, unit_of, unit_map, utc, clock, origin, width, price_bin, n_bins, n_price, work, out):
    """Write the point keys of rows ``a:b`` in ascending order into ``out[:b - a]``.

    ``work = (first, last, nxt, units, keys)`` belongs to the calling block: per-unit chain heads and tails
    (-1 between calls; empty arrays to sort instead of chaining), the chain links, the user's distinct
    units and the keys in row order.
    """
    first, last, nxt, units, keys = work
    before, split, after, first_hour = clock
    chained = len(first) > 0
    inverse = 1.0 / width
    n = b - a
    n_u = 0
    for r in range(n):
        i = a + r
        unit = np.int64(unit_map[unit_of[i]]) if len(unit_map) else np.int64(unit_of[i])
        k = unit * n_bins
        if len(utc):
            k += _bin(local_second(utc[i], before, split, after, first_hour) - origin, width, inverse)
        if len(price_bin):
            k = k * n_price + price_bin[i]
        keys[r] = k
        if chained:
            nxt[r] = -1
            if first[unit] < 0:
                first[unit] = r
                units[n_u] = unit
                n_u += 1
            else:
                nxt[last[unit]] = r
            last[unit] = r
    if not chained:
        out[:n] = keys[:n]
        out[:n].sort()
        return
    for i in range(1, n_u):  # the user's few units, by insertion
        u = units[i]
        j = i
        while j > 0 and units[j - 1] > u:
            units[j] = units[j - 1]
            j -= 1
        units[j] = u
    m = 0
    in_order = True
    for j in range(n_u):  # each unit's keys, in time order
        r = first[units[j]]
        first[units[j]] = -1
        while r >= 0:
            out[m] = keys[r]
            in_order = in_order and (m == 0 or out[m - 1] <= out[m])
            m += 1
            r = nxt[r]
    if not in_order:
        out[:n].sort()


@nb.njit(cache=True, nogil=True)
def _work_arrays(n_units: int, chained: bool, longest: int):
    """One block's buffers for :func:`_sorted_keys`."""
    size = n_units if chained else 0
    return (
        np.full(size, -1, dtype=np.int64),
        np.empty(size, dtype=np.int64),
        np.empty(longest, dtype=np.int64),
        np.empty(longest, dtype=np.int64),
        np.empty(longest, dtype=np.int64),
    )


@nb.njit(parallel=True, cache=True, nogil=True)
def event_traces(
    offsets: np.ndarray,
    unit_of: np.ndarray,
    unit_map: np.ndarray,
    n_units: int,
    utc: np.ndarray,
    clock: tuple[np.ndarray, np.ndarray, np.ndarray, int],
    origin: int,
    width: int,
    price_bin: np.ndarray,
    n_bins: int,
    n_price: int,
    keys: np.ndarray,
    counts: np.ndarray,
) -> np.ndarray:
    """Every user's distinct points (ascending) and their numbers of events, at the start of the user's
    rows in ``keys`` and ``counts`` (as long as the events); returns how many each user has.

    The unit of row ``i`` is ``unit_map[unit_of[i]]`` (``unit_of[i]`` when ``unit_map`` is empty), its bin
    ``(local - origin) // width`` where ``local`` is ``utc[i]`` shifted by the zone's offset pieces
    ``clock = (before, split, after, first_hour)`` (bin 0 when ``utc`` is empty; ``origin`` is at most every
    local second), its price bin ``price_bin[i]`` (none when empty). Local times are never stored.
    """
    n_users = len(offsets) - 1
    longest = 1
    for u in range(n_users):
        longest = max(longest, offsets[u + 1] - offsets[u])
    distinct = np.zeros(n_users, dtype=np.int64)
    chained = n_units <= BUCKET_MAX and len(price_bin) == 0
    for part in nb.prange(N_PARTS):
        work = _work_arrays(n_units, chained, longest)
        out = np.empty(longest, dtype=np.int64)
        for u in range(part * n_users // N_PARTS, (part + 1) * n_users // N_PARTS):
            a, b = offsets[u], offsets[u + 1]
            _sorted_keys(
                a, b, unit_of, unit_map, utc, clock, origin, width, price_bin, n_bins, n_price, work, out
            )
            c = -1
            for r in range(b - a):
                if r == 0 or out[r] != out[r - 1]:
                    c += 1
                    keys[a + c] = out[r]
                    counts[a + c] = 0
                counts[a + c] += 1
            distinct[u] = c + 1
    return distinct


@nb.njit(cache=True, nogil=True)
def compact_rows(offsets: np.ndarray, indptr: np.ndarray, keys: np.ndarray, counts: np.ndarray) -> None:
    """Move each user's first ``indptr[u+1] - indptr[u]`` rows down to ``indptr[u]``, in place.

    Serial on purpose: ``indptr[u] <= offsets[u]``, so moving users in order never overwrites rows still
    to be moved, which blocks of users moved at once could.
    """
    for u in range(len(offsets) - 1):
        a, start = offsets[u], indptr[u]
        if a == start:
            continue
        for r in range(indptr[u + 1] - start):
            keys[start + r] = keys[a + r]
            counts[start + r] = counts[a + r]
