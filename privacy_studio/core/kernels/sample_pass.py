"""Numba kernels of the sampled estimate: anonymity-set sizes |E_u| of nested knowledge draws.

For every sampled user and draw, the knowledge model orders the user's trace (a random order for uniform
and activity, a fixed one for top locations); the sets for p = 1..pmax are the nested intersections of the
first p points' posting lists, so each p reuses the previous one and |E_u| can only shrink with p. Users
with fewer than p points get size 0 at that p (excluded). Every random number comes from a counter-based
stream keyed by (seed, user code, draw), and per-point sums are kept per fixed sub-range of users, so the
results are the same whatever the number of threads.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays, Priors
from privacy_studio.core.kernels.disclosure import em_kl_of_set
from privacy_studio.core.kernels.intersect import walk_start, walk_step
from privacy_studio.core.kernels.orders import ACTIVITY, GIVEN, RAREST, TOP, UNIFORM
from privacy_studio.core.kernels.rng import stream_key, uniform01

#: Fixed sub-ranges per call: the unit of parallel work and of per-point partial sums.
N_PARTS = 8


def spread_parts(n_parts: int, threads: int) -> np.ndarray:
    """The parts in the order a parallel loop should take them so that ``threads`` threads get them round
    robin: numba hands each thread one contiguous block of the loop's iterations, so parts taken in their
    own order put the sample's first people on one thread, and EM/KL (computed for the first 1,000 people
    only, most of a coarse profile's draws) ran there alone. Where a part runs is all that changes: each
    part's work, results and per-part sums are the same. (Computed outside the kernels: asking numba for
    its thread count inside one keeps it out of the compilation cache.)"""
    step = max(1, threads)
    return np.asarray([p for first in range(step) for p in range(first, n_parts, step)], dtype=np.int64)


@nb.njit(cache=True, nogil=True)
def order_trace(
    kind: int,
    pts: np.ndarray,
    cnt: np.ndarray,
    list_len: np.ndarray,
    key: np.uint64,
    m: int,
    keys: np.ndarray,
    out: np.ndarray,
) -> None:
    """The first ``m`` points of the trace in the model's order (smallest key first, ties by position)."""
    n = len(pts)
    for i in range(n):
        if kind == UNIFORM:
            keys[i] = uniform01(key, i)
        elif kind == ACTIVITY:  # Efraimidis–Spirakis: weighted order without replacement
            keys[i] = -math.log(uniform01(key, i)) / cnt[i]
        elif kind == TOP:
            keys[i] = -float(cnt[i])
        else:  # RAREST: shortest posting lists first
            keys[i] = float(list_len[pts[i]])
    for r in range(m):
        best = -1
        for i in range(n):
            if keys[i] == np.inf:
                continue
            if best < 0 or keys[i] < keys[best]:
                best = i
        out[r] = pts[best]
        keys[best] = np.inf


@nb.njit(cache=True, nogil=True)
def walk_prefixes(
    order: np.ndarray,
    m: int,
    post_ptr: np.ndarray,
    post_users: np.ndarray,
    dense_slot: np.ndarray,
    bitmaps: np.ndarray,
    buf: np.ndarray,
    bits: np.ndarray,
    state: np.ndarray,
    sizes: np.ndarray,
) -> None:
    """``sizes[k]`` = |E| for the first k+1 points of ``order`` (stops intersecting once only u is left);
    nothing when ``m`` is 0 (a person without points: ``order`` still holds the previous person's)."""
    if m == 0:
        return
    c = walk_start(order[0], post_ptr, dense_slot, state)
    sizes[0] = c
    for k in range(1, m):
        if c > 1:
            c = walk_step(order[k], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
        sizes[k] = c


@nb.njit(cache=True, nogil=True)
def _longest_trace(users: np.ndarray, trace_ptr: np.ndarray) -> int:
    longest = 1
    for u in users:
        longest = max(longest, trace_ptr[u + 1] - trace_ptr[u])
    return longest


@nb.njit(cache=True, nogil=True)
def _scratch(max_list: int, n_words: int, n_points: int, n_users: int, do_em: bool) -> tuple:
    """One thread's walk buffers (two lists, a bitmap, the walk state) and EM / KL scratch (per-point
    counts, the points touched, the set's members; one entry each when EM is not asked)."""
    if not do_em:
        n_points, n_users = 1, 1
    return (
        np.empty((2, max_list), dtype=np.int32),
        np.empty(n_words, dtype=np.uint64),
        np.zeros(4, dtype=np.int64),
        np.zeros(n_points, dtype=np.int64),
        np.empty(n_points, dtype=np.int64),
        np.empty(n_users, dtype=np.int32),
    )


@nb.njit(parallel=True, cache=True, nogil=True)
def sample_pass(
    users: np.ndarray,
    ix: IndexArrays,
    max_list: int,
    draws: int,
    pmax: int,
    kind: int,
    seed: int,
    em_mask: np.ndarray,
    em_users: int,
    ref_k: int,
    priors: Priors,
    worst: bool,
    given_ptr: np.ndarray,
    given_pts: np.ndarray,
    parts: np.ndarray,
):
    """Sizes (S, R, pmax), EM/KL sums, rarest-first sizes (S, pmax), per-point EM sums; parts in ``parts``."""
    trace_ptr, trace_pts, trace_cnt, list_len = ix.trace_ptr, ix.trace_pts, ix.trace_cnt, ix.list_len
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    n_s = len(users)
    n_points = len(post_ptr) - 1
    max_trace = _longest_trace(users, trace_ptr)
    sizes = np.zeros((n_s, draws, pmax), dtype=np.int64)
    em, kl = np.full((n_s, draws, pmax), np.nan), np.full((n_s, draws, pmax), np.nan)
    rare = np.zeros((n_s, pmax), dtype=np.int64)
    do_em = em_mask.any()
    acc_parts = np.zeros((N_PARTS, n_points if do_em and ref_k >= 0 else 1))
    for i in nb.prange(N_PARTS):
        part = parts[i]
        work = _scratch(max_list, bitmaps.shape[1], n_points, len(trace_ptr) - 1, do_em)
        buf, bits, state = work[0], work[1], work[2]
        keys, order = np.empty(max_trace), np.empty(pmax, dtype=np.int64)
        acc = acc_parts[part]
        for s in range(part * n_s // N_PARTS, (part + 1) * n_s // N_PARTS):
            u = users[s]
            ta, tb = trace_ptr[u], trace_ptr[u + 1]
            m = min(pmax, tb - ta)
            pts = trace_pts[ta:tb]
            if kind == GIVEN:
                m = min(pmax, given_ptr[s + 1] - given_ptr[s])
                order[:m] = given_pts[given_ptr[s] : given_ptr[s] + m]
            for r in range(draws):
                if kind != GIVEN:
                    order_trace(kind, pts, trace_cnt[ta:tb], list_len, stream_key(seed, u, r), m, keys, order)
                if not (do_em and s < em_users):
                    walk_prefixes(
                        order, m, post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, sizes[s, r]
                    )
                    continue
                _walk_with_em(
                    order, m, ix, work, em_mask, ref_k, priors, acc, sizes[s, r], em[s, r], kl[s, r]
                )
            if worst and m > 0:
                order_trace(RAREST, pts, trace_cnt[ta:tb], list_len, stream_key(seed, u, 0), m, keys, order)
                walk_prefixes(order, m, post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, rare[s])
    acc = np.zeros(acc_parts.shape[1])
    for part in range(N_PARTS):
        acc += acc_parts[part]
    return sizes, em, kl, rare, acc


@nb.njit(cache=True, nogil=True)
def _walk_with_em(
    order: np.ndarray,
    m: int,
    ix: IndexArrays,
    work: tuple,
    em_mask: np.ndarray,
    ref_k: int,
    priors: Priors,
    acc: np.ndarray,
    sizes: np.ndarray,
    em: np.ndarray,
    kl: np.ndarray,
) -> None:
    """The sizes of one draw's prefixes, with EM / KL of the set at every prefix length ``em_mask`` asks
    for (per-point sums into ``acc`` at ``ref_k`` only)."""
    buf, bits, state, cnt, touched, members = work
    c = walk_start(order[0], ix.post_ptr, ix.dense_slot, state)
    for k in range(m):
        if k > 0 and c > 1:
            c = walk_step(order[k], ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps, buf, bits, state)
        sizes[k] = c
        if em_mask[k]:
            weight = 1.0 if k == ref_k else 0.0
            em[k], kl[k] = em_kl_of_set(state, ix, buf, bits, priors, cnt, touched, members, acc, weight)
