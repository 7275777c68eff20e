"""Numba kernels of attribute disclosure in anonymity sets: the sensitive values of the people who fit a
person's p known points, for the same knowledge draws as the sampled estimate (``sample_pass``), or for
every p-subset of their trace (exact mode, as ``exact``)."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays
from privacy_studio.core.kernels.exact import next_combination, shortest_lists_first
from privacy_studio.core.kernels.intersect import walk_members, walk_start, walk_step
from privacy_studio.core.kernels.rng import stream_key
from privacy_studio.core.kernels.sample_pass import N_PARTS, order_trace


@nb.njit(parallel=True, cache=True, nogil=True)
def set_value_counts(
    users: np.ndarray,
    ix: IndexArrays,
    max_list: int,
    draws: int,
    p: int,
    kind: int,
    seed: int,
    all_points: bool,
    codes: np.ndarray,
    n_values: int,
):
    """Per sampled user and draw (S, R, n_values): how many members of the anonymity set of the user's first
    p points in the model's order have each value code (codes -1 not counted); and (S,) whether the user
    was included (p points, or any with ``all_points``)."""
    trace_ptr, trace_pts, trace_cnt, list_len = ix.trace_ptr, ix.trace_pts, ix.trace_cnt, ix.list_len
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    n_s = len(users)
    max_trace = 1
    for u in users:
        max_trace = max(max_trace, trace_ptr[u + 1] - trace_ptr[u])
    counts = np.zeros((n_s, draws, n_values), dtype=np.int64)
    included = np.zeros(n_s, dtype=np.bool_)
    for part in nb.prange(N_PARTS):
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        keys = np.empty(max_trace)
        order = np.empty(max(1, p), dtype=np.int64)
        out = np.empty(len(trace_ptr) - 1, dtype=np.int32)
        for s in range(part * n_s // N_PARTS, (part + 1) * n_s // N_PARTS):
            u = users[s]
            ta, tb = trace_ptr[u], trace_ptr[u + 1]
            if tb == ta or (tb - ta < p and not all_points):
                continue
            included[s] = True
            m = min(p, tb - ta)
            for r in range(draws):
                order_trace(
                    kind, trace_pts[ta:tb], trace_cnt[ta:tb], list_len, stream_key(seed, u, r), m, keys, order
                )
                c = walk_start(order[0], post_ptr, dense_slot, state)
                for k in range(1, m):
                    if c <= 1:
                        break
                    c = walk_step(order[k], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
                for v in walk_members(post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, out):
                    if codes[v] >= 0:
                        counts[s, r, codes[v]] += 1
    return counts, included


@nb.njit(parallel=True, cache=True, nogil=True)
def subset_value_counts(
    users: np.ndarray,
    ix: IndexArrays,
    max_list: int,
    p: int,
    codes: np.ndarray,
    n_values: int,
    rows: np.ndarray,
):
    """Exact mode: for every p-subset of every user's trace (lexicographic order), how many members of its
    anonymity set have each value code; user s's subsets fill rows ``rows[s] .. rows[s + 1] - 1``."""
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    counts = np.zeros((rows[-1], n_values), dtype=np.int32)
    for part in nb.prange(N_PARTS):
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        out = np.empty(len(trace_ptr) - 1, dtype=np.int32)
        idx = np.empty(p, dtype=np.int64)
        chosen = np.empty(p, dtype=np.int64)
        for s in range(part, len(users), N_PARTS):
            ta = trace_ptr[users[s]]
            length = trace_ptr[users[s] + 1] - ta
            for k in range(p):
                idx[k] = k
            row = rows[s]
            more = length >= p
            while more:
                for k in range(p):
                    chosen[k] = trace_pts[ta + idx[k]]
                shortest_lists_first(chosen, post_ptr)
                c = walk_start(chosen[0], post_ptr, dense_slot, state)
                for k in range(1, p):
                    if c <= 1:
                        break
                    c = walk_step(chosen[k], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
                for v in walk_members(post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, out):
                    counts[row, codes[v]] += 1
                row += 1
                more = next_combination(idx, length)
    return counts
