"""Numba kernels of the linkage attacks: sparse pair scores, eccentricity, ranks, rank swapping, candidates.

Pair scores between two populations are computed row by row from sparse per-user vectors: every row
starts from ``row_base[u] + col_base[v]`` and only the bins both users share add a term, found through an
inverted index (bin -> users of the second population). Each row is written by one thread in a fixed order,
so results do not depend on the thread count.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from privacy_studio.core.kernels.large_arrays import empty_large

#: Overlap terms understood by :func:`pair_scores`.
TERM_POISSON = 0  # bivariate-Poisson log likelihood ratio correction (matching attack)
TERM_JS = 1  # Jensen-Shannon divergence correction (distributions summing to one)
TERM_L1 = 2  # L1 distance correction: -2 min(p, q)
TERM_DOT = 3  # negative product (cosine distance on L2-normalized vectors, or -dot)


@nb.njit(cache=True, nogil=True)
def poisson_log_ratio(a1: int, a2: int, lam1: float, lam2: float, theta: float) -> float:
    """ln P_same(a1, a2) / (Pois(a1; lam1) Pois(a2; lam2)): bivariate Poisson with shared part ``theta``."""
    r1 = lam1 - theta
    r2 = lam2 - theta
    best = -np.inf
    m = min(a1, a2)
    logs = np.empty(m + 1)
    for k in range(m + 1):
        t = math.lgamma(a1 + 1) + math.lgamma(a2 + 1)
        t -= math.lgamma(k + 1) + math.lgamma(a1 - k + 1) + math.lgamma(a2 - k + 1)
        if k > 0:
            t += k * math.log(theta) if theta > 0 else -np.inf
        if a1 - k > 0:
            t += (a1 - k) * math.log(r1) if r1 > 0 else -np.inf
        if a2 - k > 0:
            t += (a2 - k) * math.log(r2) if r2 > 0 else -np.inf
        logs[k] = t
        best = max(best, t)
    if best == -np.inf:
        return -np.inf
    s = 0.0
    for k in range(m + 1):
        s += math.exp(logs[k] - best)
    head = theta
    if a1 > 0:
        head -= a1 * math.log(lam1)
    if a2 > 0:
        head -= a2 * math.log(lam2)
    return head + best + math.log(s)


@nb.njit(cache=True, nogil=True)
def _overlap_term(kind: int, a: float, b: float, lam1: float, lam2: float, theta: float) -> float:
    if kind == TERM_POISSON:
        ia, ib = int(a), int(b)
        return (
            poisson_log_ratio(ia, ib, lam1, lam2, theta)
            - poisson_log_ratio(ia, 0, lam1, lam2, theta)
            - poisson_log_ratio(0, ib, lam1, lam2, theta)
            + theta
        )
    if kind == TERM_JS:
        s = a + b
        return 0.5 * (a * math.log(a / s) + b * math.log(b / s))
    if kind == TERM_L1:
        return -2.0 * min(a, b)
    return -a * b


@nb.njit(parallel=True, cache=True, nogil=True)
def pair_scores(
    u_indptr: np.ndarray,
    u_keys: np.ndarray,
    u_vals: np.ndarray,
    bin_indptr: np.ndarray,
    bin_users: np.ndarray,
    bin_vals: np.ndarray,
    row_base: np.ndarray,
    col_base: np.ndarray,
    kind: int,
    lam1: np.ndarray,
    lam2: np.ndarray,
    theta: np.ndarray,
) -> np.ndarray:
    """Dense (n_u, n_v) matrix ``row_base[u] + col_base[v] + Σ_shared bins term(u's value, v's value)``.

    ``u_keys`` are compact bin indices per user (CSR); ``bin_indptr/bin_users/bin_vals`` list the second
    population's users and values per bin. ``lam1, lam2, theta`` are per-bin rates (matching only).
    """
    n_u = len(u_indptr) - 1
    n_v = len(col_base)
    out = empty_large((n_u, n_v), np.float64)
    for u in nb.prange(n_u):
        row = out[u]
        for v in range(n_v):
            row[v] = row_base[u] + col_base[v]
        for i in range(u_indptr[u], u_indptr[u + 1]):
            b = u_keys[i]
            a = u_vals[i]
            for j in range(bin_indptr[b], bin_indptr[b + 1]):
                row[bin_users[j]] += _overlap_term(kind, a, bin_vals[j], lam1[b], lam2[b], theta[b])
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def eccentricity(scores: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Per row: (score of the chosen column - best other score) / std of the other scores.

    ``chosen[u] < 0`` (unassigned) gives NaN; a zero spread gives +inf for a positive gap, -inf otherwise.
    """
    n_u, n_v = scores.shape
    out = np.full(n_u, np.nan)
    for u in nb.prange(n_u):
        c = chosen[u]
        if c < 0 or n_v < 2:
            continue
        best = -np.inf
        total = 0.0
        for v in range(n_v):
            if v != c:
                best = max(best, scores[u, v])
                total += scores[u, v]
        mean = total / (n_v - 1)
        ss = 0.0
        for v in range(n_v):
            if v != c:
                ss += (scores[u, v] - mean) ** 2
        sd = math.sqrt(ss / (n_v - 1))
        gap = scores[u, c] - best
        if sd > 0:
            out[u] = gap / sd
        else:
            out[u] = np.inf if gap > 0 else -np.inf
    return out


@nb.njit(parallel=True, cache=True, nogil=True)
def rank_of_target(costs: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: columns strictly cheaper than column ``target[u]``, and other columns tied with it (-1, -1
    if no target), so top-k credit can split ties instead of always ranking the target first."""
    n_u, n_v = costs.shape
    better = np.full(n_u, -1, dtype=np.int64)
    tied = np.full(n_u, -1, dtype=np.int64)
    for u in nb.prange(n_u):
        t = target[u]
        if t < 0:
            continue
        c = costs[u, t]
        b = 0
        e = 0
        for v in range(n_v):
            if costs[u, v] < c:
                b += 1
            elif costs[u, v] == c and v != t:
                e += 1
        better[u] = b
        tied[u] = e
    return better, tied


@nb.njit(cache=True, nogil=True)
def swap_ranks(first: np.ndarray, last: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Rank swapping of one attribute: for every sorted position, the sorted position whose value it gets.

    Walking the ranks upwards, every not-yet-swapped rank i is swapped with a rank chosen uniformly (by
    ``draws[i]`` in [0, 1)) among the unswapped ranks ``first[i]..last[i]``; with none free it stays.
    """
    n = len(draws)
    source = np.arange(n)
    swapped = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if swapped[i]:
            continue
        lo, hi = max(first[i], i + 1), min(last[i], n - 1)
        free = 0
        for j in range(lo, hi + 1):
            free += not swapped[j]
        if free == 0:
            continue
        pick = int(draws[i] * free)
        for j in range(lo, hi + 1):
            if not swapped[j]:
                if pick == 0:
                    source[i], source[j] = j, i
                    swapped[i] = swapped[j] = True
                    break
                pick -= 1
    return source


@nb.njit(cache=True, nogil=True)
def intersect_candidates(lo: np.ndarray, hi: np.ndarray, masked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the masked rows whose every attribute value lies in ``[lo[i, j], hi[i, j]]`` for record i."""
    n_rec, n_att = lo.shape
    n_m = masked.shape[0]
    counts = np.zeros(n_rec + 1, dtype=np.int64)
    hits = []
    for i in range(n_rec):
        for r in range(n_m):
            ok = True
            for j in range(n_att):
                x = masked[r, j]
                if x < lo[i, j] or x > hi[i, j]:
                    ok = False
                    break
            if ok:
                hits.append(r)
        counts[i + 1] = len(hits)
    rows = np.empty(len(hits), dtype=np.int64)
    for k in range(len(hits)):
        rows[k] = hits[k]
    return counts, rows
