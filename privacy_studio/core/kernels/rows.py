"""Numba kernels of the readers: sorted by (user, time)?, the counting-sort order, a parallel gather and a
permutation in place with a 4-byte temporary (no second copy of an 8-byte column)."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.large_arrays import empty_large


@nb.njit(cache=True, nogil=True)
def is_sorted(user: np.ndarray, time: np.ndarray) -> bool:
    for i in range(1, len(user)):
        if user[i] < user[i - 1] or (user[i] == user[i - 1] and time[i] < time[i - 1]):
            return False
    return True


def sort_order(user: np.ndarray, time: np.ndarray, n_users: int) -> np.ndarray:
    """Stable permutation sorting rows by (user, time): counting sort on users, merge sort within each;
    int32 below 2^31 rows (half the memory), else int64."""
    order = np.empty(len(user), dtype=np.int32 if len(user) < 2**31 else np.int64)
    _sort_order(user, time, n_users, order)
    return order


@nb.njit(cache=True, parallel=True, nogil=True)
def _sort_order(user: np.ndarray, time: np.ndarray, n_users: int, order: np.ndarray) -> None:
    counts = np.zeros(n_users + 1, dtype=np.int64)
    for u in user:
        counts[u + 1] += 1
    offsets = np.cumsum(counts)
    fill = offsets[:-1].copy()
    for i in range(len(user)):
        order[fill[user[i]]] = i
        fill[user[i]] += 1
    for u in nb.prange(n_users):
        a, b = offsets[u], offsets[u + 1]
        if b - a > 1 and not _in_time_order(order, time, a, b):
            seg = order[a:b].copy()
            within = np.argsort(time[seg], kind="mergesort")
            for k in range(b - a):
                order[a + k] = seg[within[k]]


@nb.njit(cache=True, nogil=True)
def _in_time_order(order: np.ndarray, time: np.ndarray, a: int, b: int) -> bool:
    """Whether the user's rows ``order[a:b]`` (in file order) already have non-decreasing times, as in files
    written person by person: then the stable sort would leave them as they are, and is skipped."""
    for k in range(a + 1, b):  # noqa: SIM110 (numba)
        if time[order[k]] < time[order[k - 1]]:
            return False
    return True


@nb.njit(cache=True, parallel=True, nogil=True)
def gather(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = empty_large(len(order), values.dtype)
    for i in nb.prange(len(order)):
        out[i] = values[order[i]]
    return out


def permute_in_place(values: np.ndarray, order: np.ndarray) -> None:
    """``values[:] = values[order]`` with one temporary of 4 bytes a row where possible: a parallel gather
    (independent reads, so memory latency overlaps; walking the permutation's cycles in place cost ~300 ns a
    row at 12M rows), int64 values spanning less than 2^31 going through int32 offsets."""
    if len(values) == 0:
        return
    if values.dtype == np.int64:
        first, last = int(values.min()), int(values.max())
        if last - first < 2**31:
            _add_in_place(values, _gather_offsets(values, order, first), first)
            return
    _copy_in_place(values, gather(values, order))


@nb.njit(cache=True, parallel=True, nogil=True)
def _gather_offsets(values: np.ndarray, order: np.ndarray, base: int) -> np.ndarray:
    out = empty_large(len(order), np.int32)
    for i in nb.prange(len(order)):
        out[i] = values[order[i]] - base
    return out


@nb.njit(cache=True, parallel=True, nogil=True)
def _add_in_place(values: np.ndarray, offsets: np.ndarray, base: int) -> None:
    for i in nb.prange(len(values)):
        values[i] = offsets[i] + base


@nb.njit(cache=True, parallel=True, nogil=True)
def _copy_in_place(values: np.ndarray, source: np.ndarray) -> None:
    for i in nb.prange(len(values)):
        values[i] = source[i]


@nb.njit(cache=True, nogil=True)
def sorted_codes_in_place(codes: np.ndarray, n_codes: int) -> None:
    """``codes[:] = np.sort(codes)`` by counting (the user column once rows are sorted by user first)."""
    counts = np.zeros(n_codes, dtype=np.int64)
    for c in codes:
        counts[c] += 1
    i = 0
    for c in range(n_codes):
        for _ in range(counts[c]):
            codes[i] = c
            i += 1


@nb.njit(cache=True, parallel=True, nogil=True)
def packed_keys(offsets: np.ndarray, data: np.ndarray, n_keys: int) -> np.ndarray:
    """Each string's bytes, zero-padded to ``8 * n_keys``, as ``n_keys`` big-endian uint64 words (row k =
    word k): comparing the words in order compares the padded bytes, i.e. the strings byte by byte."""
    n = len(offsets) - 1
    keys = empty_large((n_keys, n), np.uint64)
    keys[:] = 0
    for i in nb.prange(n):
        a = offsets[i]
        for j in range(offsets[i + 1] - a):
            k = j // 8
            keys[k, i] |= np.uint64(data[a + j]) << np.uint64(8 * (7 - j % 8))
    return keys
