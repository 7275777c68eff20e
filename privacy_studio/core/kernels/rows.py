"""Numba kernels of the readers: sorted by (user, time)?, the counting-sort order, a parallel gather and an
in-place permutation (no second copy of a column)."""

from __future__ import annotations

import numba as nb
import numpy as np


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
        if b - a > 1:
            seg = order[a:b].copy()
            within = np.argsort(time[seg], kind="mergesort")
            for k in range(b - a):
                order[a + k] = seg[within[k]]


@nb.njit(cache=True, parallel=True, nogil=True)
def gather(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    out = np.empty(len(order), dtype=values.dtype)
    for i in nb.prange(len(order)):
        out[i] = values[order[i]]
    return out


@nb.njit(cache=True, nogil=True)
def permute_in_place(values: np.ndarray, order: np.ndarray) -> None:
    """``values[:] = values[order]`` without a second array: each cycle of the permutation is walked once,
    its visited entries marked in ``order`` itself (as ``-j - 1``) and restored at the end."""
    n = len(order)
    for start in range(n):
        if order[start] < 0:
            continue
        first = values[start]
        i = start
        while True:
            j = order[i]
            order[i] = -j - 1
            if j == start:
                values[i] = first
                break
            values[i] = values[j]
            i = j
    for i in range(n):
        order[i] = -order[i] - 1
