"""Numba kernels of the Gramaglia–Fiore anonymizability measure: sample, fingerprint and k-nearest distances.

Fingerprints are CSR arrays of distinct samples sorted by (minute, x, y): ``off`` per user, ``t`` minutes,
``x``/``y`` km. Three search modes share one definition of the distance and one tie rule (the lowest sample
index wins a tied minimum, the lowest user code a tied fingerprint distance), so they agree to the bit:
``MODE_PLAIN`` scans every sample pair, ``MODE_MERGE`` walks time-sorted samples outwards from a merge
pointer and settles the samples δt_max or more away once per place, ``MODE_PRUNE`` also skips a candidate
whose cheap lower bound (:func:`lower_bound`) exceeds the current k-th best and abandons one as soon as its
partial distance proves it cannot enter the nearest set.
"""

from __future__ import annotations

import numba as nb
import numpy as np

MODE_PLAIN = 0
MODE_MERGE = 1
MODE_PRUNE = 2

#: Standard normal quantiles used by the tail weight index: Φ⁻¹(.75) and Φ⁻¹(.99) (Φ⁻¹(.5) = 0).
_PHI_75 = 0.6744897501960817
_PHI_99 = 2.3263478740408408

#: Time bins per δt_max of the candidate pre-bound, and how far (minutes) each bin is widened for rounding.
TIME_BINS_PER_THRESHOLD = 16
TIME_SLACK = 1e-3

#: Below this many values numba's sort beats the radix sort of the dispersion step.
RADIX_MIN = 1500

#: Relative margin when a bound computed by another formula than the distance is compared with one.
BOUND_MARGIN = 1e-9


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
def _combine(first, s, n, half):
    """Fingerprint distance from a directed sum ``s`` over ``n`` samples (``half``: mean of 2 directions)."""
    if half:
        return (first + s / n) * 0.5
    return s / n


@nb.njit(cache=True, nogil=True)
def _directed_sum(u, v, data, far, table, first, half, worst, params):
    """Sum over samples of ``u`` of the distance to the nearest sample of ``v``; NaN once the fingerprint
    distance provably exceeds ``worst``.

    Merge on time: from the merge pointer, samples of ``v`` under δt_max away are compared one by one,
    walking outwards until the temporal part alone reaches the best so far. All other samples have temporal
    part exactly ``w_t``, so together they offer ``w_t`` plus the spatial part to the nearest place of ``v``,
    computed once per place of ``u`` when first needed (``far``), or read from ``table`` (the
    :func:`far_table` of ``v``, empty if not given). Every term is >= 0 and float sums and
    divisions are monotone, so a partial sum already above ``worst`` proves the final distance is.
    The walks stay inline: a helper call per sample taking arrays costs more than the walk itself.
    """
    off, t, x, y, places = data
    ws, wt, smax, tmax = params
    loc, loc_off, loc_x, loc_y, loc_g = places[:5]
    base = loc_off[u]
    far[: loc_off[u + 1] - base] = -1.0
    lo, hi = off[v], off[v + 1]
    n = off[u + 1] - off[u]
    s = 0.0
    p = lo
    for i in range(off[u], off[u + 1]):
        ti, xi, yi = t[i], x[i], y[i]
        while p < hi and t[p] < ti:
            p += 1
        best = np.inf
        for step in (1, -1):
            j = p if step == 1 else p - 1
            while lo <= j < hi and abs(t[j] - ti) / tmax < 1.0:
                sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
                if tp >= best:
                    break  # times grow away from p: no later sample of this walk can do better
                best = min(best, sp + tp)
                j += step
        if best > wt and len(table) > 0:
            best = min(best, table[loc_g[loc[i]]])
        elif best > wt:
            k = loc[i] - base
            if far[k] < 0.0:
                near = np.inf
                for q in range(loc_off[v], loc_off[v + 1]):
                    near = min(near, ws * min((abs(xi - loc_x[q]) + abs(yi - loc_y[q])) / smax, 1.0))
                far[k] = near + wt
            best = min(best, far[k])
        s += best
        if worst < np.inf and _combine(first, s, n, half) > worst:
            return np.nan
    return s


@nb.njit(cache=True, nogil=True)
def far_table(v, places, ws, wt, smax):
    """Per distinct place of the whole data: ``w_t`` plus the spatial part to the nearest place of ``v``.

    What a sample of anyone at that place gets from the samples of ``v`` δt_max or more away; built once
    per target (size: distinct places of the data), it replaces a places-by-places minimum per candidate.
    """
    loc_off, loc_x, loc_y, g_x, g_y = places[1], places[2], places[3], places[5], places[6]
    out = np.empty(len(g_x))
    for g in range(len(g_x)):
        near = np.inf
        for q in range(loc_off[v], loc_off[v + 1]):
            near = min(near, ws * min((abs(g_x[g] - loc_x[q]) + abs(g_y[g] - loc_y[q])) / smax, 1.0))
        out[g] = near + wt
    return out


@nb.njit(cache=True, nogil=True)
def time_bound(v, off, t, t0, width, n_bins, wt, tmax):
    """Per time bin of ``width`` minutes from ``t0``: a lower bound on the temporal part from any moment of
    the bin to the nearest sample of ``v`` (the bin is widened by a hair against rounding of bin numbers)."""
    out = np.empty(n_bins)
    lo, hi = off[v], off[v + 1]
    p = lo
    for k in range(n_bins):
        left = t0 + k * width - TIME_SLACK
        right = left + width + 2 * TIME_SLACK
        while p < hi and t[p] < left:
            p += 1
        gap = np.inf
        if p < hi:
            gap = max(t[p] - right, 0.0)
        if p > lo:
            gap = min(gap, left - t[p - 1])
        out[k] = wt * min(gap / tmax, 1.0)
    return out


@nb.njit(cache=True, nogil=True)
def place_boxes(places):
    """Per user the bounding box (min x, max x, min y, max y) of their places."""
    loc_off, loc_x, loc_y = places[1], places[2], places[3]
    boxes = np.empty((len(loc_off) - 1, 4))
    for u in range(len(loc_off) - 1):
        xs, ys = loc_x[loc_off[u] : loc_off[u + 1]], loc_y[loc_off[u] : loc_off[u + 1]]
        boxes[u, 0], boxes[u, 1], boxes[u, 2], boxes[u, 3] = xs.min(), xs.max(), ys.min(), ys.max()
    return boxes


@nb.njit(cache=True, nogil=True)
def bound_index(off, t, places, tmax):
    """Data of the candidate bound shared by all targets: each sample's data place and time bin (bins of
    δt_max / TIME_BINS_PER_THRESHOLD from the first sample), the first bin start, bin width and count, and
    the users' place boxes."""
    t0 = t.min()
    width = tmax / TIME_BINS_PER_THRESHOLD
    n_bins = int((t.max() - t0) / width) + 1
    sample_bin = np.empty(len(t), dtype=np.int32)
    for j in range(len(t)):
        sample_bin[j] = min(max(int((t[j] - t0) / width), 0), n_bins - 1)
    return places[4][places[0]].astype(np.int32), sample_bin, t0, width, n_bins, place_boxes(places)


@nb.njit(cache=True, nogil=True)
def target_bound(a, index, off, t, table, wt, tmax):
    """Per-target data of :func:`lower_bound`: spatial part of each data place to ``a``'s nearest place
    (its far table minus ``w_t``), temporal bound of each time bin to ``a``, and the shared index."""
    sample_g, sample_bin, t0, width, n_bins, boxes = index
    return table - wt, time_bound(a, off, t, t0, width, n_bins, wt, tmax), sample_g, sample_bin, boxes


@nb.njit(cache=True, nogil=True)
def _time_box_sum(u, v, off, t, x, y, boxes, ws, wt, smax, tmax, limit):
    """Σ over samples of ``u`` of (temporal part to the nearest sample of ``v`` in time + spatial part to the
    bounding box of ``v``'s places): each term bounds that sample's distance to ``v`` from below. A merge
    on times without coordinates of ``v``; stops once above ``limit``."""
    lo, hi = off[v], off[v + 1]
    x0, x1, y0, y1 = boxes[v, 0], boxes[v, 1], boxes[v, 2], boxes[v, 3]
    s_scale, t_scale = ws / smax, wt / tmax
    s = 0.0
    p = lo
    for i in range(off[u], off[u + 1]):
        ti = t[i]
        while p < hi and t[p] < ti:
            p += 1
        gap = t[p] - ti if p < hi else np.inf
        if p > lo:
            gap = min(gap, ti - t[p - 1])
        dx = max(x0 - x[i], x[i] - x1, 0.0)
        dy = max(y0 - y[i], y[i] - y1, 0.0)
        s += min((dx + dy) * s_scale, ws) + min(gap * t_scale, wt)
        if s > limit:
            break
    return s


@nb.njit(cache=True, nogil=True)
def lower_bound(a, b, off, t, x, y, bound_data, worst, ws, wt, smax, tmax):
    """A cheap lower bound on ``Δ_ab`` for the target ``a``; stops early once above ``worst``.

    Samples of ``b`` (when ``b`` is at least as long as ``a``): each is at least its spatial part to the
    nearest place of ``a`` plus its time bin's temporal bound to ``a``, exact for samples δt_max away from
    ``a``: two lookups per sample. Samples of ``a`` (when ``a`` is at least as long): temporal part to the
    nearest sample of ``b`` in time plus spatial part to ``b``'s bounding box. ``bound_data`` comes from
    :func:`target_bound`. Compare with :func:`_exceeds`: it is computed by other formulas than ``Δ_ab``.
    """
    s_table, t_bound, sample_g, sample_bin, boxes = bound_data
    na = off[a + 1] - off[a]
    n = off[b + 1] - off[b]
    half = 0.5 if n == na else 1.0
    s = 0.0
    if n <= na:
        limit = (worst + 1e-6) * na / half
        s = _time_box_sum(a, b, off, t, x, y, boxes, ws, wt, smax, tmax, limit) * half / na
    if n >= na:
        limit = (worst + 1e-6 - s) * n / half
        total = 0.0
        for j in range(off[b], off[b + 1]):
            total += s_table[sample_g[j]] + t_bound[sample_bin[j]]
            if total > limit:
                break
        s += total * half / n
    return s


@nb.njit(inline="always")
def _exceeds(bound, worst):
    """Whether a lower bound computed by another formula than Δ proves a distance > worst, with margin."""
    return bound - BOUND_MARGIN * (1.0 + bound) > worst


@nb.njit(cache=True, nogil=True)
def _scanned_sum(u, v, off, t, x, y, params):
    """Sum over samples of ``u`` of the distance to the nearest sample of ``v``, scanning every pair."""
    ws, wt, smax, tmax = params
    s = 0.0
    for i in range(off[u], off[u + 1]):
        best = np.inf
        for j in range(off[v], off[v + 1]):
            sp, tp = _parts(x[i], y[i], t[i], x[j], y[j], t[j], ws, wt, smax, tmax)
            best = min(best, sp + tp)
        s += best
    return s


@nb.njit(cache=True, nogil=True)
def fingerprint_distance(a, b, off, t, x, y, places, far, table, mode, worst, ws, wt, smax, tmax):
    """``Δ_ab`` (symmetric); NaN when ``mode`` prunes and ``Δ_ab`` provably exceeds ``worst``.

    ``places`` describes each user's distinct locations; ``far`` is a float scratch array as long as the most
    places of a user; ``table`` is :func:`far_table` of ``a`` or empty (same result, it only saves time).
    ``MODE_PLAIN`` scans every sample pair, the others merge on time.
    """
    data = (off, t, x, y, places)
    params = (ws, wt, smax, tmax)
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if mode != MODE_PRUNE:
        worst = np.inf
    if na == nb_:
        if mode == MODE_PLAIN:
            first = _scanned_sum(a, b, off, t, x, y, params) / na
            return _combine(first, _scanned_sum(b, a, off, t, x, y, params), nb_, True)
        s1 = _directed_sum(a, b, data, far, table[:0], 0.0, True, worst, params)
        if np.isnan(s1):
            return np.nan
        first = s1 / na
        return _combine(first, _directed_sum(b, a, data, far, table, first, True, worst, params), nb_, True)
    long_, short = (a, b) if na > nb_ else (b, a)
    n = max(na, nb_)
    if mode == MODE_PLAIN:
        return _combine(0.0, _scanned_sum(long_, short, off, t, x, y, params), n, False)
    if long_ == a:
        table = table[:0]
    return _combine(0.0, _directed_sum(long_, short, data, far, table, 0.0, False, worst, params), n, False)


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
def nearest_neighbours(targets, off, t, x, y, places, m, mode, ws, wt, smax, tmax):
    """The ``m`` users with the smallest ``Δ_ab`` (then lowest code) for each target, and those distances.

    ``MODE_PRUNE`` skips a candidate whose :func:`lower_bound` exceeds the current m-th best and abandons
    one as soon as its partial distance does (see ``_directed_sum``). The kept set does not depend on the
    visiting order: deterministic.
    """
    n_users = len(off) - 1
    n_t = len(targets)
    out_idx = np.full((n_t, m), -1, dtype=np.int64)
    out_d = np.full((n_t, m), np.inf)
    max_places = np.diff(places[1]).max()
    index = bound_index(off, t, places, tmax)
    params = (ws, wt, smax, tmax)
    for q in nb.prange(n_t):
        a = targets[q]
        idx = out_idx[q]
        dist = out_d[q]
        count = 0
        far = np.empty(max_places)
        table = far_table(a, places, ws, wt, smax) if mode != MODE_PLAIN else np.empty(0)
        bound_data = target_bound(a, index, off, t, table, wt, tmax)
        for b in range(n_users):
            if b == a:
                continue
            full = count == m
            worst = dist[m - 1] if full else np.inf
            prune = full and mode == MODE_PRUNE
            if prune and _exceeds(lower_bound(a, b, off, t, x, y, bound_data, worst, *params), worst):
                continue
            d = fingerprint_distance(a, b, off, t, x, y, places, far, table, mode, worst, ws, wt, smax, tmax)
            if np.isnan(d):
                continue
            if full and (d > worst or (d == worst and b > idx[m - 1])):
                continue
            count = _insert(idx, dist, count, b, d)
    return out_idx, out_d


@nb.njit(cache=True, nogil=True)
def _fill_directed(a, b, off, t, x, y, places, sp_out, tp_out, pos, ws, wt, smax, tmax):
    """Write the spatial and temporal parts of each sample of ``a`` matched to its nearest sample of ``b``.

    The nearest is the lowest-index sample at the smallest distance. Samples of ``b`` under δt_max away are
    walked outwards from the merge pointer; the others all have temporal part ``w_t``, so the best of them
    is the first sample at ``b``'s nearest place (worked out once per place of ``a``). Should that sample
    be near in time, the walk has already met it at a distance no larger and an index no larger, so it
    cannot win: no check is needed.
    """
    loc, loc_off, loc_x, loc_y = places[0], places[1], places[2], places[3]
    lo, hi = off[b], off[b + 1]
    base = loc_off[b]
    first = np.full(loc_off[b + 1] - base, hi, dtype=np.int64)
    for j in range(lo, hi):
        first[loc[j] - base] = min(first[loc[j] - base], j)
    a_base = loc_off[a]
    far_d = np.empty(loc_off[a + 1] - a_base)
    far_j = np.full(loc_off[a + 1] - a_base, -1, dtype=np.int64)
    p = lo
    for i in range(off[a], off[a + 1]):
        ti, xi, yi = t[i], x[i], y[i]
        while p < hi and t[p] < ti:
            p += 1
        best = np.inf
        bj = -1
        for step in (1, -1):
            j = p if step == 1 else p - 1
            while lo <= j < hi and abs(t[j] - ti) / tmax < 1.0:
                sp, tp = _parts(xi, yi, ti, x[j], y[j], t[j], ws, wt, smax, tmax)
                if tp > best:
                    break
                d = sp + tp
                if d < best or (d == best and j < bj):
                    best = d
                    bj = j
                j += step
        if best >= wt:
            k = loc[i] - a_base
            if far_j[k] < 0:
                far_d[k] = np.inf
                for q in range(base, loc_off[b + 1]):
                    d = ws * min((abs(xi - loc_x[q]) + abs(yi - loc_y[q])) / smax, 1.0) + wt
                    if d < far_d[k] or (d == far_d[k] and first[q - base] < far_j[k]):
                        far_d[k] = d
                        far_j[k] = first[q - base]
            if far_d[k] < best or (far_d[k] == best and far_j[k] < bj):
                best = far_d[k]
                bj = far_j[k]
        sp_out[pos], tp_out[pos] = _parts(xi, yi, ti, x[bj], y[bj], t[bj], ws, wt, smax, tmax)
        pos += 1
    return pos


@nb.njit(cache=True, nogil=True)
def matched_count(a, b, off):
    """How many matched sample distances ``Δ_ab`` averages: the longer length, or both when equal."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    return 2 * na if na == nb_ else max(na, nb_)


@nb.njit(cache=True, nogil=True)
def matched_parts(a, b, off, t, x, y, places, sp_out, tp_out, pos, ws, wt, smax, tmax):
    """Append the matched sample distances of ``Δ_ab`` (split into parts) at ``pos``; return the new end."""
    na = off[a + 1] - off[a]
    nb_ = off[b + 1] - off[b]
    if na >= nb_:
        pos = _fill_directed(a, b, off, t, x, y, places, sp_out, tp_out, pos, ws, wt, smax, tmax)
    if nb_ >= na:
        pos = _fill_directed(b, a, off, t, x, y, places, sp_out, tp_out, pos, ws, wt, smax, tmax)
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


@nb.njit(cache=True, nogil=True)
def _radix_sort(values):
    """Ascending copy of positive finite floats by an LSD radix sort of their bits (11 bits per pass,
    passes where every key has the same digit skipped); about 4x numba's sort on thousands of parts."""
    keys = values.view(np.uint64).copy()
    spare = np.empty_like(keys)
    counts = np.zeros((6, 2048), dtype=np.int64)
    for k in keys:
        for p in range(6):
            counts[p, (k >> (11 * p)) & 2047] += 1
    for p in range(6):
        c = counts[p]
        if c.max() == len(keys):
            continue
        total = 0
        for i in range(2048):
            total, c[i] = total + c[i], total
        for k in keys:
            digit = (k >> (11 * p)) & 2047
            spare[c[digit]] = k
            c[digit] += 1
        keys, spare = spare, keys
    return keys.view(np.float64)


@nb.njit(cache=True, nogil=True)
def _sort_bounded(values, top):
    """``np.sort(values)`` for values in [0, top]: the many exact 0s and ``top``s (same place or minute,
    saturated parts) are counted and placed at the ends, and only the rest goes through the sort."""
    middle = np.empty(len(values))
    zeros = 0
    n_mid = 0
    for v in values:
        if v == 0.0:
            zeros += 1
        elif v != top:
            middle[n_mid] = v
            n_mid += 1
    middle = _radix_sort(middle[:n_mid]) if n_mid > RADIX_MIN else np.sort(middle[:n_mid])
    out = np.full(len(values), top)
    out[:zeros] = 0.0
    out[zeros : zeros + n_mid] = middle
    return out


@nb.njit(cache=True, nogil=True)
def _extend_sorted(prefix, n, values, top, out):
    """Write into ``out`` the ascending merge of ``prefix[:n]`` (ascending) and ``values`` (in [0, top],
    sorted here), and return the merged view: each k's sorted parts grow from the previous k's."""
    new = _sort_bounded(values, top)
    i = 0
    j = 0
    for pos in range(n + len(new)):
        if j == len(new) or (i < n and prefix[i] <= new[j]):
            out[pos] = prefix[i]
            i += 1
        else:
            out[pos] = new[j]
            j += 1
    return out[: n + len(new)]


@nb.njit(parallel=True, cache=True, nogil=True)
def dispersion(targets, neighbours, ks, off, t, x, y, places, ws, wt, smax, tmax):
    """Per target and k: Gini and tail weight of the spatial and temporal parts, and Σ temporal / Σ spatial.

    The parts are those of the matched sample distances to the k-1 nearest users (``neighbours`` rows are
    sorted, so each k takes a prefix, whose sorted values are merged from the previous k's and the new
    neighbours' parts). Rows: spatial gini, temporal gini, spatial tail, temporal tail, ratio.
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
            matched_parts(a, neighbours[q, r], off, t, x, y, places, sp, tp, ends[r], ws, wt, smax, tmax)
        buffers = np.empty((2, 2, ends[m]))  # (spatial, temporal) x (this k, previous k)
        s_sorted = buffers[0, 1, :0]
        t_sorted = buffers[1, 1, :0]
        done = 0
        for ki in range(len(ks)):
            end = ends[ks[ki] - 1]
            s_sorted = _extend_sorted(s_sorted, done, sp[done:end], ws, buffers[0, ki % 2])
            t_sorted = _extend_sorted(t_sorted, done, tp[done:end], wt, buffers[1, ki % 2])
            done = end
            out[0, ki, q] = gini(s_sorted)
            out[1, ki, q] = gini(t_sorted)
            out[2, ki, q] = tail_weight(s_sorted)
            out[3, ki, q] = tail_weight(t_sorted)
            s_sum = s_sorted.sum()
            t_sum = t_sorted.sum()
            out[4, ki, q] = t_sum / s_sum if s_sum > 0.0 else (np.inf if t_sum > 0.0 else np.nan)
    return out
