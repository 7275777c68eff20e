"""Numba kernel of the exact mode: |E(A)| (and EM/KL sums) for every p-subset A of every user's trace."""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays, Priors
from privacy_studio.core.kernels.disclosure import em_kl_of_set
from privacy_studio.core.kernels.intersect import walk_start, walk_step
from privacy_studio.core.kernels.sample_pass import N_PARTS


@nb.njit(parallel=True, cache=True, nogil=True)
def exact_pass(p: int, offsets: np.ndarray, ix: IndexArrays, with_em: bool, priors: Priors):
    """Sizes (and EM/KL sums) of every p-subset, flat in ``offsets`` order, and per-point EM sums."""
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    post_ptr, post_users, dense_slot, bitmaps = ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps
    n = len(trace_ptr) - 1
    n_points = len(post_ptr) - 1
    total = offsets[n]
    sizes = np.zeros(total, dtype=np.int64)
    em = np.zeros(total if with_em else 0)
    kl = np.zeros(total if with_em else 0)
    acc_parts = np.zeros((N_PARTS, n_points if with_em else 1))
    max_list = 1
    for x in range(n_points):
        max_list = max(max_list, post_ptr[x + 1] - post_ptr[x])
    for part in nb.prange(N_PARTS):
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        cnt = np.zeros(n_points, dtype=np.int64)
        touched = np.empty(n_points, dtype=np.int64)
        members = np.empty(n, dtype=np.int32)
        idx = np.empty(p, dtype=np.int64)
        chosen = np.empty(p, dtype=np.int64)
        acc = acc_parts[part]
        for u in range(part * n // N_PARTS, (part + 1) * n // N_PARTS):
            ta, tb = trace_ptr[u], trace_ptr[u + 1]
            length = tb - ta
            n_sub = offsets[u + 1] - offsets[u]
            if n_sub == 0:
                continue
            weight = 1.0 / n_sub
            for i in range(p):
                idx[i] = i
            for k in range(offsets[u], offsets[u + 1]):
                for i in range(p):
                    chosen[i] = trace_pts[ta + idx[i]]
                # shortest posting lists first: the same set, less work
                for i in range(1, p):
                    j = i
                    while j > 0 and post_ptr[chosen[j] + 1] - post_ptr[chosen[j]] < (
                        post_ptr[chosen[j - 1] + 1] - post_ptr[chosen[j - 1]]
                    ):
                        chosen[j], chosen[j - 1] = chosen[j - 1], chosen[j]
                        j -= 1
                c = walk_start(chosen[0], post_ptr, dense_slot, state)
                for i in range(1, p):
                    if c == 1:
                        break
                    c = walk_step(chosen[i], post_ptr, post_users, dense_slot, bitmaps, buf, bits, state)
                sizes[k] = c
                if with_em:
                    em[k], kl[k] = em_kl_of_set(
                        state, ix, buf, bits, priors, cnt, touched, members, acc, weight
                    )
                # next combination in lexicographic order
                i = p - 1
                while i >= 0 and idx[i] == length - p + i:
                    i -= 1
                if i >= 0:
                    idx[i] += 1
                    for j in range(i + 1, p):
                        idx[j] = idx[j - 1] + 1
    acc = np.zeros(acc_parts.shape[1])
    for part in range(N_PARTS):
        acc += acc_parts[part]
    return sizes, em, kl, acc
