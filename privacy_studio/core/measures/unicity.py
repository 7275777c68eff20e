"""Anonymity-set sizes |E_u| of nested knowledge draws: unicity, k-disclosure, EM/KL, worst case in one pass.

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

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.intersect import walk_start, walk_step
from privacy_studio.core.kernels.rng import stream_key, uniform01
from privacy_studio.core.knowledge import ACTIVITY, GIVEN, RAREST, TOP, UNIFORM
from privacy_studio.core.measures.disclosure import em_kl_of_set, point_priors

#: Fixed sub-ranges per call: the unit of parallel work and of per-point partial sums.
N_PARTS = 8


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
def _walk_prefixes(
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
    """``sizes[k]`` = |E| for the first k+1 points of ``order`` (stops intersecting once only u is left)."""
    c = walk_start(order[0], post_ptr, dense_slot, state)
    sizes[0] = c
    for k in range(1, m):
        if c > 1:
            c = walk_step(order[k], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
        sizes[k] = c


@nb.njit(parallel=True, cache=True, nogil=True)
def _sample_pass(
    users: np.ndarray,
    draws: int,
    pmax: int,
    kind: int,
    seed: int,
    trace_ptr: np.ndarray,
    trace_pts: np.ndarray,
    trace_cnt: np.ndarray,
    post_ptr: np.ndarray,
    post_users: np.ndarray,
    dense_slot: np.ndarray,
    bitmaps: np.ndarray,
    em_mask: np.ndarray,
    em_users: int,
    ref_k: int,
    q: np.ndarray,
    g: np.ndarray,
    q_all: float,
    g_all: float,
    worst: bool,
    given_ptr: np.ndarray,
    given_pts: np.ndarray,
    list_len: np.ndarray,
    max_list: int,
):
    n_s = len(users)
    n_points = len(post_ptr) - 1
    max_trace = 1
    for u in users:
        max_trace = max(max_trace, trace_ptr[u + 1] - trace_ptr[u])
    sizes = np.zeros((n_s, draws, pmax), dtype=np.int64)
    em = np.full((n_s, draws, pmax), np.nan)
    kl = np.full((n_s, draws, pmax), np.nan)
    rare = np.zeros((n_s, pmax), dtype=np.int64)
    do_em = em_mask.any()
    acc_parts = np.zeros((N_PARTS, n_points if do_em and ref_k >= 0 else 1))
    n_users_total = len(trace_ptr) - 1
    for part in nb.prange(N_PARTS):
        a = part * n_s // N_PARTS
        b = (part + 1) * n_s // N_PARTS
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        keys = np.empty(max_trace)
        order = np.empty(pmax, dtype=np.int64)
        cnt = np.zeros(n_points if do_em else 1, dtype=np.int64)
        touched = np.empty(n_points if do_em else 1, dtype=np.int64)
        members = np.empty(n_users_total if do_em else 1, dtype=np.int32)
        acc = acc_parts[part]
        for s in range(a, b):
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
                    _walk_prefixes(
                        order, m, post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, sizes[s, r]
                    )
                    continue
                c = walk_start(order[0], post_ptr, dense_slot, state)
                for k in range(m):
                    if k > 0 and c > 1:
                        c = walk_step(order[k], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
                    sizes[s, r, k] = c
                    if em_mask[k]:
                        e, kk = em_kl_of_set(
                            state,
                            post_ptr,
                            post_users,
                            dense_slot,
                            bitmaps,
                            buf,
                            bits,
                            trace_ptr,
                            trace_pts,
                            q,
                            g,
                            q_all,
                            g_all,
                            cnt,
                            touched,
                            members,
                            acc,
                            1.0 if k == ref_k else 0.0,
                        )
                        em[s, r, k] = e
                        kl[s, r, k] = kk
            if worst and m > 0:
                order_trace(RAREST, pts, trace_cnt[ta:tb], list_len, stream_key(seed, u, 0), m, keys, order)
                _walk_prefixes(order, m, post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, rare[s])
    acc = np.zeros(acc_parts.shape[1])
    for part in range(N_PARTS):
        acc += acc_parts[part]
    return sizes, em, kl, rare, acc


def sample_sizes(
    index: PointIndex,
    users: np.ndarray,
    *,
    kind: int,
    pmax: int,
    draws: int = 1,
    seed: int = 0,
    em_p: list[int] | None = None,
    em_users: int = 0,
    ref_p: int | None = None,
    worst: bool = False,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    priors: tuple[np.ndarray, np.ndarray, float, float] | None = None,
) -> dict[str, np.ndarray]:
    """|E_u| (and EM/KL sums, rarest-first sizes) for ``users`` x ``draws`` x p = 1..pmax.

    Returns ``sizes`` (S, R, pmax; 0 = excluded), ``em``/``kl`` (per-user means over points, NaN where not
    computed: users beyond ``em_users`` or p not in ``em_p``), ``rare`` (S, pmax) sizes along the rarest
    points first, and ``acc`` (per point Σ_u (EM_uj - q_j) over the EM users at ``ref_p``). With ``kind``
    GIVEN, ``given = (ptr, points)`` holds each sampled user's order (compact points) instead. ``priors``
    (from :func:`point_priors`) may be passed to avoid recomputing them for every chunk of users.
    """
    if given is None:
        given = (np.zeros(len(users) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    em_mask = np.zeros(pmax, dtype=np.bool_)
    for p in em_p or []:
        if 1 <= p <= pmax:
            em_mask[p - 1] = True
    if not em_mask.any():
        q, g, q_all, g_all = np.zeros(0), np.zeros(0), 0.0, 0.0
    else:
        q, g, q_all, g_all = priors or point_priors(index.list_len, index.n_users)
    ref_k = (ref_p - 1) if ref_p is not None and 1 <= ref_p <= pmax and em_mask[ref_p - 1] else -1
    sizes, em, kl, rare, acc = _sample_pass(
        np.ascontiguousarray(users, dtype=np.int64),
        draws,
        pmax,
        kind,
        seed,
        index.trace_ptr,
        index.trace_pts,
        index.trace_cnt,
        index.post_ptr,
        index.post_users,
        index.dense_slot,
        index.bitmaps,
        em_mask,
        em_users,
        ref_k,
        q,
        g,
        q_all,
        g_all,
        worst,
        np.ascontiguousarray(given[0], dtype=np.int64),
        np.ascontiguousarray(given[1], dtype=np.int64),
        index.list_len,
        index.max_list,
    )
    d = float(index.d)
    return {"sizes": sizes, "em": em / d, "kl": kl / d, "rare": rare, "acc": acc}
