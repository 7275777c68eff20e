"""EM- and KL-disclosure (metrics.md §4) of one anonymity set in numba; unvisited points in closed form.

With q_j = |D_j|/n the prior and π_j = |E_uj|/|E_u| the posterior, a point no member of E_u visits has
π_j = 0 and adds q_j to EM and -ln(1 - q_j) to KL; those sums over all points are precomputed once
(``measures.disclosure.point_priors``), so a user costs the members' trace lengths (or, for huge sets held
as bitmaps, one AND per dense point).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays, Priors
from privacy_studio.core.kernels.intersect import (
    OWN_BITS,
    REF_BITS,
    and_popcount,
    has_bit,
    prefetch_traces_ahead,
    walk_bitmap,
    walk_members,
)


@nb.njit(cache=True, nogil=True)
def kl_of_count(k: int, c: int, ln_size: np.ndarray, ln_q: float, g: float) -> float:
    """KL of a binary point visited by ``k`` of the set's ``c`` members (posterior k/c) against prior q:
    Σ_t P(X=t|A) ln(P(X=t|A)/P(X=t)) with 0 ln 0 = 0, from tables (``ln_size[k] = ln k``, ``ln_q = ln q``,
    ``g = -ln(1 - q)``) rather than two logarithms per point and set."""
    s = 0.0
    if k > 0:
        s += k / c * (ln_size[k] - ln_size[c] - ln_q)
    if k < c:
        s += (c - k) / c * (ln_size[c - k] - ln_size[c] + g)
    return s


@nb.njit(cache=True, nogil=True)
def _em_kl_by_bitmap(
    cbits: np.ndarray, c: int, ix: IndexArrays, priors: Priors, acc: np.ndarray, weight: float
) -> tuple[float, float]:
    """``em_kl_of_set`` for a huge set held as the bitmap ``cbits``: every point's members counted by one
    AND per dense point or bit tests along its list (cheaper than walking the members' traces)."""
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    q, g, _, _, ln_q, ln_size = priors
    inv = 1.0 / c
    em = 0.0
    kl = 0.0
    for j in range(len(q)):
        s = dense_slot[j]
        if s >= 0:
            k = and_popcount(cbits, bitmaps[s])
        else:
            k = 0
            for i in range(post_ptr[j], post_ptr[j + 1]):
                if has_bit(cbits, post_users[i]):
                    k += 1
        post = k * inv
        e = abs(post - q[j])
        em += e
        kl += kl_of_count(k, c, ln_size, ln_q[j], g[j])
        if weight != 0.0 and k > 0:
            acc[j] += weight * (e - q[j])
    return em, kl


@nb.njit(cache=True, nogil=True)
def em_kl_of_set(
    state: np.ndarray,
    ix: IndexArrays,
    buf: np.ndarray,
    bits: np.ndarray,
    priors: Priors,
    cnt: np.ndarray,
    touched: np.ndarray,
    members_out: np.ndarray,
    acc: np.ndarray,
    weight: float,
) -> tuple[float, float]:
    """Σ_j EM_uj and Σ_j KL_uj over all points for the walk's current set E_u (divide by d for the means).

    ``cnt`` (zeros, one per point) and ``touched`` are scratch; ``weight`` x (EM_uj - q_j) is added to
    ``acc[j]`` for every point j some member visits, so per-point sums follow in closed form too.
    """
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    q, g, q_all, g_all, ln_q, ln_size = priors
    c = state[2]
    inv = 1.0 / c
    em = 0.0
    kl = 0.0
    held_as_bits = state[0] == REF_BITS or state[0] == OWN_BITS
    avg_len = len(trace_pts) / max(1, len(trace_ptr) - 1)
    bitmap_cost = bitmaps.shape[0] * bitmaps.shape[1] + (len(post_users) - 0.0)
    if held_as_bits and c * avg_len > bitmap_cost:
        cbits = walk_bitmap(dense_slot, bitmaps, bits, state)
        return _em_kl_by_bitmap(cbits, c, ix, priors, acc, weight)
    members = walk_members(post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, members_out)
    nt = 0
    for s in range(len(members)):
        prefetch_traces_ahead(members, s, trace_ptr, trace_pts)
        v = members[s]
        for t in range(trace_ptr[v], trace_ptr[v + 1]):
            j = trace_pts[t]
            if cnt[j] == 0:
                touched[nt] = j
                nt += 1
            cnt[j] += 1
    rest_em = q_all
    rest_kl = g_all
    for i in range(nt):
        j = touched[i]
        post = cnt[j] * inv
        e = abs(post - q[j])
        em += e
        kl += kl_of_count(cnt[j], c, ln_size, ln_q[j], g[j])
        rest_em -= q[j]
        rest_kl -= g[j]
        if weight != 0.0:
            acc[j] += weight * (e - q[j])
        cnt[j] = 0
    return em + max(rest_em, 0.0), kl + max(rest_kl, 0.0)
