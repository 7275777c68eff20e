"""An independent CSR + galloping-intersection estimate of sampled unicity: a speed yardstick for the engine.

Written apart from ``privacy_studio.core`` on purpose (numpy ``unique`` for the traces, ``argsort`` for the
posting lists, one galloping intersection per known point), it computes the same |E_u| as the engine's
uniform knowledge model: it draws each sampled user's points in the same order (the engine's counter-based
random stream, the only thing shared) and so must give the same unicity, which ``bench_risk.py`` checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from privacy_studio.core.kernels.rng import stream_key, uniform01

MONDAY = 4 * 86400  # 1970-01-05, a Monday: where the engine's time bins start counting


@dataclass
class YardstickResult:
    """Unicity at p = 1..pmax over the users with at least p points, and the seconds of each stage."""

    unicity: list[float]
    build_s: float
    estimate_s: float


def point_of_event(local: np.ndarray, unit: np.ndarray, width: int) -> tuple[np.ndarray, int]:
    """Point id ``unit * n_bins + bin`` of every event (bins aligned to Monday midnight) and d."""
    first = (int(local.min()) - MONDAY) // width
    bins = (local - MONDAY) // width - first
    n_bins = int(bins.max()) + 1
    return unit.astype(np.int64) * n_bins + bins, (int(unit.max()) + 1) * n_bins


def build_csr(user: np.ndarray, point: np.ndarray, d: int, n_users: int):
    """Per-user sorted distinct points, and per-point sorted users (posting lists), as CSR arrays."""
    pairs = np.sort(user.astype(np.int64) * d + point)  # np.unique would sort the same way, but slower
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
    pair_user, pair_point = pairs // d, pairs % d
    trace_ptr = np.searchsorted(pair_user, np.arange(n_users + 1))
    by_point = np.argsort(pair_point, kind="stable")  # users stay ascending within a point
    post_ptr = np.searchsorted(pair_point[by_point], np.arange(d + 1))
    return trace_ptr, pair_point, post_ptr, pair_user[by_point].astype(np.int32)


@nb.njit(cache=True)
def _gallop(b: np.ndarray, lo: int, x: int) -> int:
    """First index i >= lo with b[i] >= x: doubling steps, then bisection."""
    step = 1
    hi = lo
    while hi < len(b) and b[hi] < x:
        lo = hi + 1
        hi += step
        step *= 2
    hi = min(hi, len(b))
    while lo < hi:
        mid = (lo + hi) // 2
        if b[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def _intersect(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> int:
    """Sorted a ∩ b into out, walking the shorter list and galloping through the longer; how many."""
    if len(a) > len(b):
        a, b = b, a
    n = 0
    j = 0
    for i in range(len(a)):
        j = _gallop(b, j, a[i])
        if j == len(b):
            break
        if b[j] == a[i]:
            out[n] = a[i]
            n += 1
    return n


@nb.njit(cache=True)
def _prefix_sizes(pts, seed, u, post_ptr, post_users, out):
    """out[k] = |E| of the first k+1 points of user u's uniform random order (ties by position)."""
    key = stream_key(seed, u, 0)
    keys = np.empty(len(pts))
    for i in range(len(pts)):
        keys[i] = uniform01(key, i)
    order = np.argsort(keys, kind="mergesort")
    cur = post_users[0:0]
    for k in range(min(len(out), len(pts))):
        x = pts[order[k]]
        plist = post_users[post_ptr[x] : post_ptr[x + 1]]
        if k == 0:
            cur = plist
        elif len(cur) > 1:
            nxt = np.empty(min(len(cur), len(plist)), dtype=np.int32)
            cur = nxt[: _intersect(cur, plist, nxt)]
        out[k] = len(cur)


@nb.njit(parallel=True, cache=True)
def sizes_of_samples(trace_ptr, trace_pts, post_ptr, post_users, users, pmax, seed):
    """(S, pmax) |E_u| for the first p points of each user's uniform random order (0: fewer points)."""
    out = np.zeros((len(users), pmax), dtype=np.int64)
    for s in nb.prange(len(users)):
        u = users[s]
        _prefix_sizes(trace_pts[trace_ptr[u] : trace_ptr[u + 1]], seed, u, post_ptr, post_users, out[s])
    return out


def unicity(sizes: np.ndarray) -> list[float]:
    """Share of unique users at each p among those with at least p points."""
    return [float((sizes[:, k] == 1).sum() / max(1, (sizes[:, k] > 0).sum())) for k in range(sizes.shape[1])]
