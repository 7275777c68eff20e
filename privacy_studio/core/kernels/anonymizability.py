"""Numba kernels of the Gramaglia–Fiore anonymizability measure: sample, fingerprint and k-nearest distances.

Fingerprints are CSR arrays of distinct samples sorted by (minute, x, y): ``off`` per user, ``t`` minutes,
``x``/``y`` km. Three search modes share one definition of the distance and one tie rule (the lowest sample
index wins a tied minimum, the lowest user code a tied fingerprint distance), so they agree to the bit:
``MODE_PLAIN`` scans every sample pair, ``MODE_MERGE`` walks time-sorted samples outwards from a merge
pointer, ``MODE_PRUNE`` adds lower bounds that skip or abandon candidates that cannot enter the nearest set.
"""

from __future__ import annotations

import numba as nb
import numpy as np

MODE_PLAIN = 0
MODE_MERGE = 1
MODE_PRUNE = 2

#: Safety margin when a lower bound computed by another formula is compared with a distance.
BOUND_MARGIN = 1e-9

#: Standard normal quantiles used by the tail weight index: Φ⁻¹(.75) and Φ⁻¹(.99) (Φ⁻¹(.5) = 0).
_PHI_75 = 0.6744897501960817
_PHI_99 = 2.3263478740408408


@nb.njit(inline="always")
def _parts(xi, yi, ti, xj, yj, tj, ws, wt, smax, tmax):
    """Spatial and temporal parts ``w_s min(taxicab/δs,1)``, ``w_t min(|Δt|/δt,1)`` of a sample distance."""
    sp = ws * min((abs(xi - xj) + abs(yi - yj)) / smax, 1.0)
    tp = wt * min(abs(ti - tj) / tmax, 1.0)
    return sp, tp


@nb.njit(cache=True)
def sample_distance(xi, yi, ti, xj, yj, tj, ws, wt, smax, tmax):
    """The sample distance ``d_ab(i, j)`` (space in km, time in minutes)."""
    sp, tp = _parts(xi, yi, ti, xj, yj, tj, ws, wt, smax, tmax)
    return sp + tp


@nb.njit(inline="always")
def _nearest_sample(ti, xi, yi, t, x, y, lo, hi, p, merge, ws, wt, smax, tmax):
    """Index of the sample of ``[lo, hi)`` nearest to (ti, xi, yi) and its distance.

    With ``merge``, ``p`` is the first index whose time is >= ti and the search walks outwards, stopping in
    each direction once the temporal part alone exceeds the best distance (times are sorted).
    """
    best = np.inf
    bj = -1
    if not merge:
        for j in range(lo, hi):
            sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
            d = sp + tp
            if d < best:
                best = d
                bj = j
        return bj, best
    j = p
    while j < hi:
        sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
        if tp > best:
            break
        d = sp + tp
        if d < best or (d == best and j < bj):
            best = d
            bj = j
        j += 1
    j = p - 1
    while j >= lo:
        sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
        if tp > best:
            break
        d = sp + tp
        if d < best or (d == best and j < bj):
            best = d
            bj = j
        j -= 1
    return bj, best


@nb.njit(inline="always")
def _combine(first, s, n, half):
    """Fingerprint distance from a directed sum ``s`` over ``n`` samples (``half``: mean of 2 directions)."""
    if half:
        return (first + s / n) * 0.5
    return s / n


@nb.njit(cache=True)
def _directed_sum(a, b, off, t, x, y, merge, first, half, worst, worst_b, b_code, ws, wt, smax, tmax):
    """Sum over samples of ``a`` of the minimum distance to ``b``; NaN once the candidate cannot win.

    The partial sum never exceeds the final one (terms are >= 0 and rounding is monotone), so abandoning
    when ``_combine`` of the partial sum already loses against (worst, worst_b) never changes a result.
    """
    lo, hi = off[b], off[b + 1]
    n = off[a + 1] - off[a]
    s = 0.0
    p = lo
    for i in range(off[a], off[a + 1]):
        ti = t[i]
        if merge:
            while p < hi and t[p] < ti:
                p += 1
        _, best = _nearest_sample(ti, x[i], y[i], t, x, y, lo, hi, p, merge, ws, wt, smax, tmax)
        s += best
        if worst < np.inf:
            v = _combine(first, s, n, half)
            if v > worst or (v == worst and b_code > worst_b):
                return np.nan
    return s


@nb.njit(cache=True)
def fingerprint_distance(a, b, off, t, x, y, mode, worst, worst_b, ws, wt, smax, tmax):
    """``Δ_ab`` (symmetric); NaN when ``mode`` prunes and ``b`` cannot beat (worst, worst_b)."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    merge = mode != MODE_PLAIN
    if mode != MODE_PRUNE:
        worst = np.inf
    if na == nb_:
        s1 = _directed_sum(a, b, off, t, x, y, merge, 0.0, True, worst, worst_b, b, ws, wt, smax, tmax)
        if np.isnan(s1):
            return np.nan
        first = s1 / na
        s2 = _directed_sum(b, a, off, t, x, y, merge, first, True, worst, worst_b, b, ws, wt, smax, tmax)
        if np.isnan(s2):
            return np.nan
        return _combine(first, s2, nb_, True)
    long_, short = (a, b) if na > nb_ else (b, a)
    s = _directed_sum(long_, short, off, t, x, y, merge, 0.0, False, worst, worst_b, b, ws, wt, smax, tmax)
    if np.isnan(s):
        return np.nan
    return _combine(0.0, s, max(na, nb_), False)


@nb.njit(cache=True)
def _popcount(v):
    """Number of set bits of a uint64."""
    c = 0
    while v:
        v &= v - np.uint64(1)
        c += 1
    return c


@nb.njit(cache=True)
def _uncovered(u, v, bits, dilated):
    """Occupied time bins of ``u`` with no sample of ``v`` within δt_max: each holds >= 1 sample of ``u``."""
    c = 0
    for w in range(bits.shape[1]):
        c += _popcount(bits[u, w] & ~dilated[v, w])
    return c


@nb.njit(cache=True)
def _directed_bound(u, v, n, summary, bits, dilated, ws, wt, smax, tmax):
    """Lower bound on the mean minimum distance from samples of ``u`` to ``v``: boxes plus uncovered bins."""
    dx = max(summary[v, 0] - summary[u, 1], summary[u, 0] - summary[v, 1], 0.0)
    dy = max(summary[v, 2] - summary[u, 3], summary[u, 2] - summary[v, 3], 0.0)
    dt = max(summary[v, 4] - summary[u, 5], summary[u, 4] - summary[v, 5], 0.0)
    s_box, t_box = _parts(0.0, 0.0, 0.0, dx, dy, dt, ws, wt, smax, tmax)
    c = _uncovered(u, v, bits, dilated)
    return s_box + (c * wt + (n - c) * t_box) / n


@nb.njit(cache=True)
def pair_bound(a, b, off, summary, bits, dilated, ws, wt, smax, tmax):
    """A lower bound on ``Δ_ab`` that costs O(bitmap words) instead of a sample merge."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if na == nb_:
        return 0.5 * (
            _directed_bound(a, b, na, summary, bits, dilated, ws, wt, smax, tmax)
            + _directed_bound(b, a, nb_, summary, bits, dilated, ws, wt, smax, tmax)
        )
    if na > nb_:
        return _directed_bound(a, b, na, summary, bits, dilated, ws, wt, smax, tmax)
    return _directed_bound(b, a, nb_, summary, bits, dilated, ws, wt, smax, tmax)


@nb.njit(cache=True)
def _insert(idx, dist, count, b, d):
    """Insert (d, b) into the sorted prefix ``[0, count)`` of the nearest list, dropping the last if full."""
    pos = min(count, len(idx) - 1)
    while pos > 0 and (dist[pos - 1] > d or (dist[pos - 1] == d and idx[pos - 1] > b)):
        dist[pos] = dist[pos - 1]
        idx[pos] = idx[pos - 1]
        pos -= 1
    dist[pos] = d
    idx[pos] = b
    return min(count + 1, len(idx))


@nb.njit(parallel=True, cache=True)
def nearest_neighbours(targets, off, t, x, y, m, mode, summary, bits, dilated, ws, wt, smax, tmax):
    """The ``m`` users with the smallest ``Δ_ab`` (then lowest code) for each target, and those distances.

    ``MODE_PRUNE`` visits candidates by increasing lower bound and stops once the bound exceeds the m-th
    best; inside a candidate the directed sums are abandoned as soon as they cannot win. Deterministic.
    """
    n_users = len(off) - 1
    n_t = len(targets)
    out_idx = np.full((n_t, m), -1, dtype=np.int64)
    out_d = np.full((n_t, m), np.inf)
    for q in nb.prange(n_t):
        a = targets[q]
        idx = out_idx[q]
        dist = out_d[q]
        count = 0
        if mode == MODE_PRUNE:
            bound = np.empty(n_users)
            for b in range(n_users):
                bound[b] = pair_bound(a, b, off, summary, bits, dilated, ws, wt, smax, tmax)
            order = np.argsort(bound)
        else:
            bound = np.zeros(0)
            order = np.arange(n_users)
        for r in range(n_users):
            b = order[r]
            if b == a:
                continue
            full = count == m
            worst = dist[m - 1] if full else np.inf
            worst_b = idx[m - 1] if full else n_users
            if mode == MODE_PRUNE and full and bound[b] - BOUND_MARGIN * (1.0 + bound[b]) > worst:
                break
            d = fingerprint_distance(a, b, off, t, x, y, mode, worst, worst_b, ws, wt, smax, tmax)
            if np.isnan(d):
                continue
            if full and (d > worst or (d == worst and b > worst_b)):
                continue
            count = _insert(idx, dist, count, b, d)
    return out_idx, out_d


@nb.njit(cache=True)
def _fill_directed(a, b, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax):
    """Write the spatial and temporal parts of each sample of ``a`` matched to its nearest sample of ``b``."""
    lo, hi = off[b], off[b + 1]
    p = lo
    for i in range(off[a], off[a + 1]):
        while p < hi and t[p] < t[i]:
            p += 1
        j, _ = _nearest_sample(t[i], x[i], y[i], t, x, y, lo, hi, p, True, ws, wt, smax, tmax)
        sp_out[pos], tp_out[pos] = _parts(x[i], y[i], t[i], x[j], y[j], t[j], ws, wt, smax, tmax)
        pos += 1
    return pos


@nb.njit(cache=True)
def matched_count(a, b, off):
    """How many matched sample distances ``Δ_ab`` averages: the longer length, or both when equal."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    return 2 * na if na == nb_ else max(na, nb_)


@nb.njit(cache=True)
def matched_parts(a, b, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax):
    """Append the matched sample distances of ``Δ_ab`` (split into parts) at ``pos``; return the new end."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if na >= nb_:
        pos = _fill_directed(a, b, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax)
    if nb_ >= na:
        pos = _fill_directed(b, a, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax)
    return pos


@nb.njit(cache=True)
def gini(sorted_values):
    """Gini coefficient ``Σ (2i - N - 1) s_i / (N Σ s_i)`` of ascending values; 0 when all are zero.

    Terms i and N+1-i have opposite weights, so they are summed as one product of a difference: equal
    values then give exactly 0.
    """
    n = len(sorted_values)
    total = sorted_values.sum()
    weighted = 0.0
    for i in range(n // 2):
        weighted += (n - 1.0 - 2.0 * i) * (sorted_values[n - 1 - i] - sorted_values[i])
    if n == 0 or total == 0.0:
        return 0.0
    return weighted / (n * total)


@nb.njit(inline="always")
def _quantile(sorted_values, num, den):
    """Empirical quantile ``F⁻¹(num/den)``: the smallest value whose CDF reaches num/den."""
    n = len(sorted_values)
    rank = (num * n + den - 1) // den
    return sorted_values[max(rank, 1) - 1]


@nb.njit(cache=True)
def tail_weight(sorted_values):
    """Tail weight index of ascending values; NaN when F⁻¹(.75) = F⁻¹(.5) (undefined) or no values."""
    if len(sorted_values) == 0:
        return np.nan
    q50 = _quantile(sorted_values, 1, 2)
    q75 = _quantile(sorted_values, 3, 4)
    q99 = _quantile(sorted_values, 99, 100)
    if q75 == q50:
        return np.nan
    return (q99 - q50) / (q75 - q50) * (_PHI_75 / _PHI_99)


@nb.njit(parallel=True, cache=True)
def dispersion(targets, neighbours, ks, off, t, x, y, ws, wt, smax, tmax):
    """Per target and k: Gini and tail weight of the spatial and temporal parts, and Σ temporal / Σ spatial.

    The parts are those of the matched sample distances to the k-1 nearest users (``neighbours`` rows are
    sorted, so each k takes a prefix). Rows: spatial gini, temporal gini, spatial tail, temporal tail, ratio.
    """
    n_t = len(targets)
    out = np.full((5, len(ks), n_t), np.nan)
    for q in nb.prange(n_t):
        a = targets[q]
        m = ks.max() - 1
        ends = np.zeros(m + 1, dtype=np.int64)
        for r in range(m):
            ends[r + 1] = ends[r] + matched_count(a, neighbours[q, r], off)
        sp = np.empty(ends[m])
        tp = np.empty(ends[m])
        for r in range(m):
            matched_parts(a, neighbours[q, r], off, t, x, y, sp, tp, ends[r], ws, wt, smax, tmax)
        for ki in range(len(ks)):
            end = ends[ks[ki] - 1]
            s_sorted = np.sort(sp[:end])
            t_sorted = np.sort(tp[:end])
            out[0, ki, q] = gini(s_sorted)
            out[1, ki, q] = gini(t_sorted)
            out[2, ki, q] = tail_weight(s_sorted)
            out[3, ki, q] = tail_weight(t_sorted)
            s_sum = s_sorted.sum()
            t_sum = t_sorted.sum()
            out[4, ki, q] = t_sum / s_sum if s_sum > 0.0 else (np.inf if t_sum > 0.0 else np.nan)
    return out


@nb.njit(cache=True)
def time_bitmaps(off, t, t0, width, reach, n_words):
    """Per user a bitmap of occupied time bins and one dilated by ``reach`` bins on each side.

    A sample in a bin where the other user's dilated bitmap is empty is more than ``reach*width`` >= δt_max
    minutes from all of that user's samples, so its temporal part is exactly w_t.
    """
    n_users = len(off) - 1
    n_bins = n_words * 64
    bits = np.zeros((n_users, n_words), dtype=np.uint64)
    dilated = np.zeros((n_users, n_words), dtype=np.uint64)
    one = np.uint64(1)
    for u in range(n_users):
        last = -(reach + 2)
        for i in range(off[u], off[u + 1]):
            k = int(np.floor((t[i] - t0) / width))
            bits[u, k >> 6] |= one << np.uint64(k & 63)
            start = max(k - reach, last + reach + 1, 0)
            for c in range(start, min(k + reach, n_bins - 1) + 1):
                dilated[u, c >> 6] |= one << np.uint64(c & 63)
            last = k
    return bits, dilated
