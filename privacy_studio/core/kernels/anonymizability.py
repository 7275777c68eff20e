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

#: Fingerprints this short are scanned even in merge mode: a branch-free scan beats the merge's bookkeeping.
SCAN_BELOW = 32

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


@nb.njit(cache=True, nogil=True)
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


@nb.njit(inline="always")
def _walk(ti, xi, yi, t, x, y, loc, base, scratch, j, stop, step, best, ws, wt, smax, tmax):
    """Walk from sample ``j`` by ``step`` towards ``stop`` while samples are under δt_max away, keeping the
    best distance and counting samples per place; returns where it stopped, the best distance, and whether
    it ended at the window's edge (False when a temporal part alone already exceeded the best)."""
    while j != stop:
        if abs(t[j] - ti) / tmax >= 1.0:
            break
        sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
        if tp > best:
            return j, best, False
        best = min(best, sp + tp)
        scratch[loc[j] - base] += 1
        j += step
    return j, best, True


@nb.njit(inline="always")
def _nearest_value(ti, xi, yi, b, off, t, x, y, places, p, scratch, ws, wt, smax, tmax):
    """Distance from (ti, xi, yi) to the nearest sample of ``b`` by a merge instead of a scan.

    Walks outwards from the merge pointer ``p`` over the samples less than δt_max away, counting them per
    place of ``b``. Samples farther away all have temporal part exactly w_t, so when needed their minimum is
    w_t plus the spatial part to the nearest place of ``b`` that has a sample outside the window.
    """
    loc, loc_off, loc_x, loc_y, loc_n = places
    lo, hi = off[b], off[b + 1]
    base = loc_off[b]
    jr, best, right_done = _walk(
        ti, xi, yi, t, x, y, loc, base, scratch, p, hi, 1, np.inf, ws, wt, smax, tmax
    )
    jl, best, left_done = _walk(
        ti, xi, yi, t, x, y, loc, base, scratch, p - 1, lo - 1, -1, best, ws, wt, smax, tmax
    )
    if right_done and left_done and best > wt:
        for place in range(base, loc_off[b + 1]):
            if scratch[place - base] < loc_n[place]:
                sp = ws * min((abs(xi - loc_x[place]) + abs(yi - loc_y[place])) / smax, 1.0)
                best = min(best, sp + wt)
    for j in range(jl + 1, jr):
        scratch[loc[j] - base] = 0
    return best


@nb.njit(cache=True, nogil=True)
def _directed_sum(a, b, data, scratch, mode, first, half, worst, lb, rest, pending, params):
    """Sum over samples of ``a`` of the minimum distance to ``b``; NaN once the candidate cannot win.

    With a finite ``worst``, ``lb`` holds per-sample lower bounds summing to ``rest`` and ``pending`` bounds
    the other direction's mean: exact terms so far plus bounds for the rest can only grow towards the final
    distance, so once they exceed ``worst`` (with margin) the candidate is abandoned.
    """
    off, t, x, y, places = data
    ws, wt, smax, tmax = params
    lo, hi = off[b], off[b + 1]
    n = off[a + 1] - off[a]
    s = 0.0
    p = lo
    for i in range(off[a], off[a + 1]):
        ti = t[i]
        if mode == MODE_PLAIN or hi - lo <= SCAN_BELOW:
            _, best = _nearest_sample(ti, x[i], y[i], t, x, y, lo, hi, p, False, ws, wt, smax, tmax)
        else:
            while p < hi and t[p] < ti:
                p += 1
            best = _nearest_value(ti, x[i], y[i], b, off, t, x, y, places, p, scratch, ws, wt, smax, tmax)
        s += best
        if worst < np.inf:
            rest -= lb[i - off[a]]
            bound = (s + max(rest, 0.0)) / n
            if _exceeds((first + bound + pending) * 0.5 if half else bound, worst):
                return np.nan
    return s


@nb.njit(cache=True, nogil=True)
def fingerprint_distance(a, b, off, t, x, y, places, bounds, scratch, lbs, mode, worst, ws, wt, smax, tmax):
    """``Δ_ab`` (symmetric); NaN when ``mode`` prunes and ``Δ_ab`` provably exceeds ``worst``.

    ``places`` describes each user's distinct locations, ``bounds`` the cell bitmaps; ``scratch`` is a zeroed
    int64 array as long as the most places of a user (left zeroed), ``lbs`` a (2, longest fingerprint) array.
    """
    data = (off, t, x, y, places)
    params = (ws, wt, smax, tmax)
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if mode != MODE_PRUNE:
        worst = np.inf
    if na == nb_:
        l1 = l2 = 0.0
        if worst < np.inf:
            cheap = bound_total(a, b, places, bounds) / na + bound_total(b, a, places, bounds) / nb_
            if _exceeds(cheap * 0.5, worst):
                return np.nan
            l1 = sample_bounds(a, b, off, bounds, lbs[0])
            l2 = sample_bounds(b, a, off, bounds, lbs[1])
        s1 = _directed_sum(a, b, data, scratch, mode, 0.0, True, worst, lbs[0], l1, l2 / nb_, params)
        if np.isnan(s1):
            return np.nan
        first = s1 / na
        s2 = _directed_sum(b, a, data, scratch, mode, first, True, worst, lbs[1], l2, 0.0, params)
        if np.isnan(s2):
            return np.nan
        return _combine(first, s2, nb_, True)
    long_, short = (a, b) if na > nb_ else (b, a)
    n = max(na, nb_)
    total = 0.0
    if worst < np.inf:
        if _exceeds(bound_total(long_, short, places, bounds) / n, worst):
            return np.nan
        total = sample_bounds(long_, short, off, bounds, lbs[0])
    s = _directed_sum(long_, short, data, scratch, mode, 0.0, False, worst, lbs[0], total, 0.0, params)
    if np.isnan(s):
        return np.nan
    return _combine(0.0, s, n, False)


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@nb.njit(inline="always")
def _popcount(v):
    """Number of set bits of a uint64 (branch-free SWAR count)."""
    v = v - ((v >> np.uint64(1)) & _M1)
    v = (v & _M2) + ((v >> np.uint64(2)) & _M2)
    v = (v + (v >> np.uint64(4))) & _M4
    return int((v * _H01) >> np.uint64(56))


@nb.njit(cache=True, nogil=True)
def _directed_bound(u, v, n, bounds, ws, wt, smax, tmax):
    """Lower bound on the mean minimum distance from samples of ``u`` to ``v``, from a few bitmap words.

    Spatial and temporal bounds add up (the minimum of a sum is at least the sum of the minima); each is the
    better of the bounding-box gap and the share of ``u``'s occupied cells farther than the threshold from
    all of ``v``'s (each such cell holds at least one sample whose part is the full weight).
    """
    summary, t_bits, t_dilated, s_bits, s_dilated = bounds[0], bounds[1], bounds[2], bounds[5], bounds[6]
    dx = max(summary[v, 0] - summary[u, 1], summary[u, 0] - summary[v, 1], 0.0)
    dy = max(summary[v, 2] - summary[u, 3], summary[u, 2] - summary[v, 3], 0.0)
    dt = max(summary[v, 4] - summary[u, 5], summary[u, 4] - summary[v, 5], 0.0)
    s_box, t_box = _parts(0.0, 0.0, 0.0, dx, dy, dt, ws, wt, smax, tmax)
    t_far = 0
    for w in range(t_bits.shape[1]):
        t_far += _popcount(t_bits[u, w] & ~t_dilated[v, t_dilated.shape[1] - 1, w])
    s_far = 0
    for w in range(s_bits.shape[1]):
        s_far += _popcount(s_bits[u, w] & ~s_dilated[v, s_dilated.shape[1] - 1, w])
    return max(s_box, s_far * ws / n) + max(t_box, t_far * wt / n)


@nb.njit(cache=True, nogil=True)
def pair_bound(a, b, off, bounds, ws, wt, smax, tmax):
    """A cheap lower bound on ``Δ_ab`` (O(bitmap words)), used to order and cut the candidates."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if na == nb_:
        return 0.5 * (
            _directed_bound(a, b, na, bounds, ws, wt, smax, tmax)
            + _directed_bound(b, a, nb_, bounds, ws, wt, smax, tmax)
        )
    if na > nb_:
        return _directed_bound(a, b, na, bounds, ws, wt, smax, tmax)
    return _directed_bound(b, a, nb_, bounds, ws, wt, smax, tmax)


@nb.njit(inline="always")
def _cell_bound(dilated, v, cell, cumulative):
    """Part lower bound of a sample in ``cell``: levels of ``v``'s dilated cells that do not reach it."""
    word = cell >> 6
    bit = np.uint64(1) << np.uint64(cell & 63)
    r = 0
    while r < dilated.shape[1] and not dilated[v, r, word] & bit:
        r += 1
    return cumulative[r]


@nb.njit(cache=True, nogil=True)
def bound_total(u, v, places, bounds):
    """The sum of :func:`sample_bounds` computed per distinct time bin and per place of ``u`` (cheaper)."""
    loc_off, loc_n = places[1], places[4]
    t_dilated, t_cum, s_dilated, s_cum = bounds[2], bounds[3], bounds[6], bounds[7]
    bin_off, bins, bin_n, place_square = bounds[9], bounds[10], bounds[11], bounds[12]
    total = 0.0
    for j in range(bin_off[u], bin_off[u + 1]):
        total += bin_n[j] * _cell_bound(t_dilated, v, bins[j], t_cum)
    for p in range(loc_off[u], loc_off[u + 1]):
        total += loc_n[p] * _cell_bound(s_dilated, v, place_square[p], s_cum)
    return total


@nb.njit(cache=True, nogil=True)
def sample_bounds(u, v, off, bounds, out):
    """Per-sample lower bounds on the minimum distance from each sample of ``u`` to ``v``; their sum.

    A sample whose time bin (map square) is more than r cells from every bin (square) of ``v`` has a
    temporal (spatial) part of at least r cell widths' worth; the two bounds add up.
    """
    t_dilated, t_cum, t_cell, s_dilated, s_cum, s_cell = (
        bounds[2],
        bounds[3],
        bounds[4],
        bounds[6],
        bounds[7],
        bounds[8],
    )
    total = 0.0
    for i in range(off[u], off[u + 1]):
        lb = _cell_bound(t_dilated, v, t_cell[i], t_cum) + _cell_bound(s_dilated, v, s_cell[i], s_cum)
        out[i - off[u]] = lb
        total += lb
    return total


@nb.njit(inline="always")
def _exceeds(bound, worst):
    """Whether a lower bound (computed by another formula than Δ) proves a distance > worst, with margin."""
    return bound - BOUND_MARGIN * (1.0 + bound) > worst


@nb.njit(cache=True, nogil=True)
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


@nb.njit(parallel=True, cache=True, nogil=True)
def nearest_neighbours(targets, off, t, x, y, places, m, mode, bounds, ws, wt, smax, tmax):
    """The ``m`` users with the smallest ``Δ_ab`` (then lowest code) for each target, and those distances.

    ``MODE_PRUNE`` visits candidates by increasing cheap bound and stops once it exceeds the m-th best; the
    others are cut by per-sample bounds or abandoned mid-sum (see ``_directed_sum``). Deterministic.
    """
    n_users = len(off) - 1
    n_t = len(targets)
    out_idx = np.full((n_t, m), -1, dtype=np.int64)
    out_d = np.full((n_t, m), np.inf)
    max_places = np.diff(places[1]).max()
    longest = np.diff(off).max()
    for q in nb.prange(n_t):
        a = targets[q]
        idx = out_idx[q]
        dist = out_d[q]
        count = 0
        scratch = np.zeros(max_places, dtype=np.int64)
        lbs = np.empty((2, longest))
        if mode == MODE_PRUNE:
            bound = np.empty(n_users)
            for b in range(n_users):
                bound[b] = pair_bound(a, b, off, bounds, ws, wt, smax, tmax)
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
            if mode == MODE_PRUNE and full and _exceeds(bound[b], worst):
                break
            d = fingerprint_distance(
                a, b, off, t, x, y, places, bounds, scratch, lbs, mode, worst, ws, wt, smax, tmax
            )
            if np.isnan(d):
                continue
            if full and (d > worst or (d == worst and b > idx[m - 1])):
                continue
            count = _insert(idx, dist, count, b, d)
    return out_idx, out_d


@nb.njit(cache=True, nogil=True)
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


@nb.njit(cache=True, nogil=True)
def matched_count(a, b, off):
    """How many matched sample distances ``Δ_ab`` averages: the longer length, or both when equal."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    return 2 * na if na == nb_ else max(na, nb_)


@nb.njit(cache=True, nogil=True)
def matched_parts(a, b, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax):
    """Append the matched sample distances of ``Δ_ab`` (split into parts) at ``pos``; return the new end."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if na >= nb_:
        pos = _fill_directed(a, b, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax)
    if nb_ >= na:
        pos = _fill_directed(b, a, off, t, x, y, sp_out, tp_out, pos, ws, wt, smax, tmax)
    return pos


@nb.njit(cache=True, nogil=True)
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


@nb.njit(cache=True, nogil=True)
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


@nb.njit(parallel=True, cache=True, nogil=True)
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


@nb.njit(inline="always")
def _mark(bits, u, cell):
    bits[u, cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)


@nb.njit(cache=True, nogil=True)
def time_bitmaps(off, t, t0, width, reach, n_words):
    """Per user the occupied time bins (``width`` minutes from ``t0``) and those bins dilated by 1..reach;
    and each sample's bin. ``width * reach`` >= δt_max: beyond ``reach`` bins the temporal part is w_t.
    """
    n_users = len(off) - 1
    n_bins = n_words * 64
    bits = np.zeros((n_users, n_words), dtype=np.uint64)
    dilated = np.zeros((n_users, reach, n_words), dtype=np.uint64)
    cells = np.empty(len(t), dtype=np.int64)
    for u in range(n_users):
        last = -1
        for i in range(off[u], off[u + 1]):
            k = int(np.floor((t[i] - t0) / width))
            cells[i] = k
            if k == last:
                continue
            last = k
            _mark(bits, u, k)
            for r in range(reach):
                for c in range(max(k - r - 1, 0), min(k + r + 1, n_bins - 1) + 1):
                    _mark(dilated[:, r], u, c)
    return bits, dilated, cells


@nb.njit(cache=True, nogil=True)
def space_bitmaps(places, x0, y0, cell, side, reach, n_words):
    """Per user the occupied squares of a ``side`` x ``side`` grid of ``cell`` km, those squares dilated by
    1..reach (Chebyshev), and each sample's square (from the users' distinct places).
    """
    loc, loc_off, loc_x, loc_y, _ = places
    n_users = len(loc_off) - 1
    bits = np.zeros((n_users, n_words), dtype=np.uint64)
    dilated = np.zeros((n_users, reach, n_words), dtype=np.uint64)
    squares = np.empty(len(loc_x), dtype=np.int64)
    for u in range(n_users):
        for p in range(loc_off[u], loc_off[u + 1]):
            gx = min(int(np.floor((loc_x[p] - x0) / cell)), side - 1)
            gy = min(int(np.floor((loc_y[p] - y0) / cell)), side - 1)
            squares[p] = gx * side + gy
            if bits[u, squares[p] >> 6] & (np.uint64(1) << np.uint64(squares[p] & 63)):
                continue  # square already seen for this user
            _mark(bits, u, squares[p])
            for r in range(reach):
                for cx in range(max(gx - r - 1, 0), min(gx + r + 1, side - 1) + 1):
                    for cy in range(max(gy - r - 1, 0), min(gy + r + 1, side - 1) + 1):
                        _mark(dilated[:, r], u, cx * side + cy)
    return bits, dilated, squares[loc], squares
