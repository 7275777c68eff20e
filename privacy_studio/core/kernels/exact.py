"""Exact mode's kernel: the p-subsets of work items (a user and a range of first positions), summed as
they are enumerated.

Nothing is kept per subset, so memory does not grow with their number; the anonymity sets of one or two
people (nearly all of them on real data) are counted, and their EM / KL computed once per item. A long trace
is split into several items so it is shared between threads. Items are dealt to a fixed number of parts by
position (part k takes every N_PARTS-th item), so the per-part sums, hence the results, do not depend on the
thread count.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays, Priors
from privacy_studio.core.kernels.disclosure import em_kl_of_set
from privacy_studio.core.kernels.intersect import OWN_LIST, walk_members, walk_start, walk_step
from privacy_studio.core.kernels.sample_pass import N_PARTS


@nb.njit(cache=True, nogil=True)
def shortest_lists_first(chosen: np.ndarray, post_ptr: np.ndarray) -> None:
    """Sort the chosen points by posting-list length (insertion sort: p is small): the same set, less work."""
    for i in range(1, len(chosen)):
        j = i
        while j > 0 and post_ptr[chosen[j] + 1] - post_ptr[chosen[j]] < (
            post_ptr[chosen[j - 1] + 1] - post_ptr[chosen[j - 1]]
        ):
            chosen[j], chosen[j - 1] = chosen[j - 1], chosen[j]
            j -= 1


@nb.njit(cache=True, nogil=True)
def next_combination(idx: np.ndarray, length: int) -> bool:
    """Advance ``idx`` to the next p-combination of range(length) in lexicographic order; False at the end."""
    p = len(idx)
    i = p - 1
    while i >= 0 and idx[i] == length - p + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, p):
        idx[j] = idx[j - 1] + 1
    return True


@nb.njit(parallel=True, cache=True, nogil=True)
def exact_items(
    p: int,
    item_user: np.ndarray,
    item_first: np.ndarray,
    item_stop: np.ndarray,
    ix: IndexArrays,
    with_em: bool,
    stop_at_one: bool,
    priors: Priors,
    max_size: int,
):
    """Per work item: over the p-subsets A of user ``item_user[i]``'s trace whose first position lies in
    [item_first[i], item_stop[i]), the count with |E(A)| = 1, Σ 1/|E(A)|, min |E(A)|, Σ EM, Σ KL (not
    divided by d) and the number of subsets evaluated; ``max_size`` is the longest posting list.

    With ``stop_at_one`` an item ends at its first subset with |E(A)| = 1 (enough for the worst case).
    Summed over items: ``hist[k]`` = Σ over users of the share of their subsets with |E(A)| = k, and
    ``acc[x]`` = Σ over users of the mean over their subsets of (EM_ux - q_x), as ``em_kl_of_set`` adds.
    """
    m = len(item_user)
    counts = np.zeros((3, m), dtype=np.int64)  # unique, min size, subsets evaluated
    sums = np.zeros((3, m))  # Σ 1/|E(A)|, Σ EM, Σ KL
    hist = np.zeros((N_PARTS, max_size + 1))
    acc_parts = np.zeros((N_PARTS, len(ix.post_ptr) - 1 if with_em else 1))
    for part in nb.prange(N_PARTS):
        items = (item_user, item_first, item_stop)
        _run_part(part, p, items, ix, with_em, stop_at_one, priors, counts, sums, hist[part], acc_parts[part])
    return counts[0], sums[0], counts[1], sums[1], sums[2], counts[2], hist.sum(axis=0), acc_parts.sum(axis=0)


@nb.njit(cache=True, nogil=True)
def _part_scratch(p: int, ix: IndexArrays, max_size: int, with_em: bool) -> tuple:
    """One thread's buffers: the walk's, EM's (sized by points and users only when EM is wanted) and the
    enumeration's."""
    n_users, n_points = len(ix.trace_ptr) - 1, len(ix.post_ptr) - 1
    n_em_points, n_em_users = (n_points, n_users) if with_em else (1, 1)
    walk = (np.empty((2, max(max_size, 1)), dtype=np.int32), np.empty(ix.bitmaps.shape[1], dtype=np.uint64),
            np.zeros(4, dtype=np.int64))  # fmt: skip
    em = (np.zeros(n_em_points, dtype=np.int64), np.empty(n_em_points, dtype=np.int64),
          np.empty(n_em_users, dtype=np.int32))  # fmt: skip
    # Sets of one or two: subsets counted per partner (the other member, or the person for a set of one)
    partners = (np.zeros(n_em_users, dtype=np.int64), np.empty(n_em_users, dtype=np.int32))
    # The current combination, its points, and the class sizes the current user met
    subsets = (np.empty(p, dtype=np.int64), np.empty(p, dtype=np.int64),
               np.zeros(max_size + 1, dtype=np.int64), np.empty(max_size + 1, dtype=np.int64))  # fmt: skip
    return walk, em, partners, subsets


@nb.njit(cache=True, nogil=True)
def _subset_weight(length: int, p: int) -> float:
    """1 / C(length, p), computed in floats: only a weight."""
    n_sub = 1.0
    for j in range(p):
        n_sub = n_sub * (length - j) / (j + 1)
    return 1.0 / n_sub


@nb.njit(cache=True, nogil=True)
def _run_part(part: int, p: int, items: tuple, ix: IndexArrays, with_em: bool, stop_at_one: bool,
              priors: Priors, counts: np.ndarray, sums: np.ndarray, hist: np.ndarray,
              acc: np.ndarray) -> None:  # fmt: skip
    """The items of one part (every N_PARTS-th from ``part``), enumerated subset by subset."""
    item_user, item_first, item_stop = items
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    walk, em, partners, subsets = _part_scratch(p, ix, len(hist) - 1, with_em)
    buf, bits, state = walk
    partner_count, partner_ids = partners
    idx, chosen, sizes, seen = subsets
    for i in range(part, len(item_user), N_PARTS):
        u = item_user[i]
        ta, length = trace_ptr[u], trace_ptr[u + 1] - trace_ptr[u]
        weight = _subset_weight(length, p)
        for j in range(p):
            idx[j] = item_first[i] + j
        smallest, n_seen, n_partners, n_done, more = len(hist), 0, 0, 0, True
        inv, em_sum, kl_sum = 0.0, 0.0, 0.0
        while more:
            for j in range(p):
                chosen[j] = trace_pts[ta + idx[j]]
            shortest_lists_first(chosen, post_ptr)
            c = walk_start(chosen[0], post_ptr, dense_slot, state)
            for j in range(1, p):
                if c == 1:
                    break
                c = walk_step(chosen[j], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
            if sizes[c] == 0:
                seen[n_seen] = c
                n_seen += 1
            sizes[c] += 1
            inv += 1.0 / c
            smallest = min(smallest, c)
            # E(A) = {u} and E(A) = {u, v} give the same EM / KL every time: added once per item below
            if with_em and c <= 2:
                v = u
                if c == 2:
                    ab = walk_members(post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, em[2])
                    v = ab[0] if ab[0] != u else ab[1]
                if partner_count[v] == 0:
                    partner_ids[n_partners] = v
                    n_partners += 1
                partner_count[v] += 1
            elif with_em:
                e, k = em_kl_of_set(state, ix, buf, bits, priors, em[0], em[1], em[2], acc, weight)
                em_sum += e
                kl_sum += k
            n_done += 1
            if stop_at_one and c == 1:
                break
            more = next_combination(idx, length) and idx[0] < item_stop[i]
        e, k = _partner_sets(u, n_partners, ix, walk, em, partners, priors, acc, weight)
        counts[0, i], counts[1, i], counts[2, i] = sizes[1], smallest, n_done
        sums[0, i], sums[1, i], sums[2, i] = inv, em_sum + e, kl_sum + k
        for j in range(n_seen):
            hist[seen[j]] += sizes[seen[j]] * weight
            sizes[seen[j]] = 0


@nb.njit(cache=True, nogil=True)
def _partner_sets(u: int, n_partners: int, ix: IndexArrays, walk: tuple, em: tuple, partners: tuple,
                  priors: Priors, acc: np.ndarray, weight: float) -> tuple[float, float]:  # fmt: skip
    """Σ EM, Σ KL of the sets {u} or {u, v} an item met, each computed once and weighted by how many of its
    subsets gave it."""
    em_sum, kl_sum = 0.0, 0.0
    buf, bits, state = walk
    partner_count, partner_ids = partners
    for j in range(n_partners):
        v = partner_ids[j]
        times = partner_count[v]
        partner_count[v] = 0
        buf[0, 0] = min(u, v)
        if v != u:  # buf may have a single column when every list has one person
            buf[0, 1] = max(u, v)
        state[0], state[2], state[3] = OWN_LIST, 1 if v == u else 2, 0
        e, k = em_kl_of_set(state, ix, buf, bits, priors, em[0], em[1], em[2], acc, weight * times)
        em_sum += e * times
        kl_sum += k * times
    return em_sum, kl_sum


@nb.njit(parallel=True, cache=True, nogil=True)
def intersection_work(trace_ptr: np.ndarray, trace_pts: np.ndarray, list_len: np.ndarray, p: int) -> float:
    """Σ over every p-subset of every trace of its shortest posting list's length (0 for p = 1): the entries
    :func:`exact_items` walks at most to intersect the subset's lists, as it starts from the shortest one.

    Per person the lengths are sorted; the i-th shortest (0-based) is the shortest of C(m - 1 - i, p - 1)
    subsets. Summed per fixed part, so the figure does not depend on the thread count."""
    n_users = len(trace_ptr) - 1
    parts = np.zeros(N_PARTS)
    if p < 2:
        return 0.0
    for part in nb.prange(N_PARTS):
        longest = 1
        for u in range(part, n_users, N_PARTS):
            longest = max(longest, trace_ptr[u + 1] - trace_ptr[u])
        lengths = np.empty(longest, dtype=np.int64)
        total = 0.0
        for u in range(part, n_users, N_PARTS):
            m = trace_ptr[u + 1] - trace_ptr[u]
            if m < p:
                continue
            for t in range(m):
                lengths[t] = list_len[trace_pts[trace_ptr[u] + t]]
            ordered = np.sort(lengths[:m])
            ways = 1.0  # C(m - 1 - i, p - 1), from i = m - p down to 0
            for i in range(m - p, -1, -1):
                total += ordered[i] * ways
                ways = ways * (m - i) / (m - i - p + 1)
        parts[part] = total
    return parts.sum()


@nb.njit(cache=True, nogil=True)
def _first_position_counts(m: int, p: int, ways: np.ndarray) -> None:
    """``ways[a]`` = C(m - 1 - a, p - 1): the p-subsets of m positions whose first position is a."""
    c = 1  # C(k, p - 1) for k = p - 1, growing with k: C(k + 1, r) = C(k, r) (k + 1) / (k + 1 - r), exact
    for a in range(m - p, -1, -1):
        ways[a] = c
        k = m - 1 - a
        c = c * (k + 1) // (k + 1 - (p - 1))


@nb.njit(cache=True, nogil=True)
def _walk_items(lengths: np.ndarray, p: int, item_subsets: int, out: np.ndarray) -> int:
    """The items (user, first, stop, size) in order, written as rows of ``out`` when it has room; returns
    how many there are."""
    longest = 1
    for m in lengths:
        longest = max(longest, m)
    ways = np.empty(longest, dtype=np.int64)
    write = len(out) > 0
    i = 0
    for u in range(len(lengths)):
        m = lengths[u]
        if m < p:
            continue
        _first_position_counts(m, p, ways)
        start, running = 0, 0
        for a in range(m - p + 1):
            running += ways[a]
            if running >= item_subsets or a == m - p:
                if write:
                    out[i, 0], out[i, 1], out[i, 2], out[i, 3] = u, start, a + 1, running
                i += 1
                start, running = a + 1, 0
    return i


def item_bounds(
    lengths: np.ndarray, p: int, item_subsets: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``measures.exact.work_items`` compiled (its Python loop took 1.3 s per profile at 12M trace entries):
    per user with at least p points, runs of first positions of about ``item_subsets`` subsets."""
    n = _walk_items(lengths, p, item_subsets, np.zeros((0, 4), dtype=np.int64))
    out = np.zeros((n, 4), dtype=np.int64)
    _walk_items(lengths, p, item_subsets, out)
    return tuple(np.ascontiguousarray(out[:, j]) for j in range(4))
