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
    divided by d) and the number of subsets evaluated.

    With ``stop_at_one`` an item ends at its first subset with |E(A)| = 1 (enough for the worst case).
    Summed over items: ``hist[k]`` = Σ over users of the share of their subsets with |E(A)| = k, and
    ``acc[x]`` = Σ over users of the mean over their subsets of (EM_ux - q_x), as ``em_kl_of_set`` adds.
    """
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    m = len(item_user)
    n_users = len(trace_ptr) - 1
    n_points = len(post_ptr) - 1
    unique = np.zeros(m, dtype=np.int64)
    inv_sum = np.zeros(m)
    min_size = np.zeros(m, dtype=np.int64)
    em_sum = np.zeros(m)
    kl_sum = np.zeros(m)
    done = np.zeros(m, dtype=np.int64)
    hist = np.zeros((N_PARTS, max_size + 1))
    acc_parts = np.zeros((N_PARTS, n_points if with_em else 1))
    max_list = 1
    for x in range(n_points):
        max_list = max(max_list, post_ptr[x + 1] - post_ptr[x])
    for part in nb.prange(N_PARTS):
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        cnt = np.zeros(n_points if with_em else 1, dtype=np.int64)
        touched = np.empty(n_points if with_em else 1, dtype=np.int64)
        members = np.empty(n_users if with_em else 1, dtype=np.int32)
        # Sets of one or two: subsets counted per partner (the other member, or the person for a set of one)
        partner_count = np.zeros(n_users if with_em else 1, dtype=np.int64)
        partners = np.empty(n_users if with_em else 1, dtype=np.int32)
        idx = np.empty(p, dtype=np.int64)
        chosen = np.empty(p, dtype=np.int64)
        sizes = np.zeros(max_size + 1, dtype=np.int64)
        seen = np.empty(max_size + 1, dtype=np.int64)  # the sizes met by the current user
        acc = acc_parts[part]
        for i in range(part, m, N_PARTS):
            u = item_user[i]
            ta, tb = trace_ptr[u], trace_ptr[u + 1]
            length = tb - ta
            n_sub = 1.0  # C(length, p) as a float, only for weights
            for j in range(p):
                n_sub = n_sub * (length - j) / (j + 1)
            weight = 1.0 / n_sub
            for j in range(p):
                idx[j] = item_first[i] + j
            smallest = max_size + 1
            n_seen = 0
            n_partners = 0
            more = True
            while more:
                for j in range(p):
                    chosen[j] = trace_pts[ta + idx[j]]
                shortest_lists_first(chosen, post_ptr)
                c = walk_start(chosen[0], post_ptr, dense_slot, state)
                for j in range(1, p):
                    if c == 1:
                        break
                    c = walk_step(chosen[j], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
                done[i] += 1
                if sizes[c] == 0:
                    seen[n_seen] = c
                    n_seen += 1
                sizes[c] += 1
                inv_sum[i] += 1.0 / c
                smallest = min(smallest, c)
                # E(A) = {u} and E(A) = {u, v} give the same EM / KL every time: added once per item below
                if with_em and c <= 2:
                    v = u
                    if c == 2:
                        ab = walk_members(
                            post_ptr, post_users, dense_slot, bitmaps, buf, bits, state, members
                        )
                        v = ab[0] if ab[0] != u else ab[1]
                    if partner_count[v] == 0:
                        partners[n_partners] = v
                        n_partners += 1
                    partner_count[v] += 1
                elif with_em:
                    e, k = em_kl_of_set(state, ix, buf, bits, priors, cnt, touched, members, acc, weight)
                    em_sum[i] += e
                    kl_sum[i] += k
                if stop_at_one and c == 1:
                    break
                more = next_combination(idx, length) and idx[0] < item_stop[i]
            unique[i] = sizes[1]
            for j in range(n_partners):  # {u} or {u, v} once, weighted by how many subsets gave it
                v = partners[j]
                times = partner_count[v]
                partner_count[v] = 0
                buf[0, 0] = min(u, v)
                if v != u:  # buf may have a single column when every list has one person
                    buf[0, 1] = max(u, v)
                state[0], state[2], state[3] = OWN_LIST, 1 if v == u else 2, 0
                e, k = em_kl_of_set(state, ix, buf, bits, priors, cnt, touched, members, acc, weight * times)
                em_sum[i] += e * times
                kl_sum[i] += k * times
            min_size[i] = smallest
            for j in range(n_seen):
                k = seen[j]
                hist[part, k] += sizes[k] * weight
                sizes[k] = 0
    return unique, inv_sum, min_size, em_sum, kl_sum, done, hist.sum(axis=0), acc_parts.sum(axis=0)
