"""The targeted worst-case search: for each person, p-subsets of their trace chosen to shrink the anonymity
set, rarest points first, then more (a beam search).

Level 1 starts from the ``beam`` rarest points of the trace; each further level adds to every kept subset
each point of the trace it lacks, counts the anonymity set of every such subset, and keeps the ``beam``
smallest distinct subsets. Every size it returns is that of a real p-subset, so 1 / size is a lower bound
of the person's worst-case risk; a search that reaches a set of one is exact (risk 1 is the maximum).
Each person's search depends on nothing else, so results do not depend on the number of threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays
from privacy_studio.core.kernels.exact import shortest_lists_first
from privacy_studio.core.kernels.intersect import walk_start, walk_step
from privacy_studio.core.kernels.sample_pass import N_PARTS


@nb.njit(cache=True, nogil=True)
def _set_size(
    chosen: np.ndarray,
    k: int,
    scratch: np.ndarray,
    ix: IndexArrays,
    buf: np.ndarray,
    bits: np.ndarray,
    state: np.ndarray,
) -> int:
    """|E| of the first ``k`` points of ``chosen``, intersected shortest lists first."""
    scratch[:k] = chosen[:k]
    shortest_lists_first(scratch[:k], ix.post_ptr)
    c = walk_start(scratch[0], ix.post_ptr, ix.dense_slot, state)
    for j in range(1, k):
        if c == 1:
            break
        c = walk_step(scratch[j], ix.post_ptr, ix.post_users, ix.dense_slot, ix.bitmaps, buf, bits, state)
    return c


@nb.njit(cache=True, nogil=True)
def _same_points(a: np.ndarray, b: np.ndarray, k: int, scratch_a: np.ndarray, scratch_b: np.ndarray) -> bool:
    """Whether the first ``k`` points of ``a`` and ``b`` are the same set."""
    scratch_a[:k] = np.sort(a[:k])
    scratch_b[:k] = np.sort(b[:k])
    return bool((scratch_a[:k] == scratch_b[:k]).all())


@nb.njit(parallel=True, cache=True, nogil=True)
def worst_search(users: np.ndarray, ix: IndexArrays, max_list: int, pmax: int, beam: int) -> np.ndarray:
    """(S, pmax) smallest anonymity set found among each person's k-subsets, k = 1..pmax (0: fewer points).

    At k = 1 the value is exact (the rarest point of the trace); once a set of one is found, every larger k
    is 1 too (a superset of the knowledge never has a larger set).
    """
    trace_ptr, trace_pts, list_len = ix.trace_ptr, ix.trace_pts, ix.list_len
    n_s = len(users)
    best = np.zeros((n_s, pmax), dtype=np.int64)
    for part in nb.prange(N_PARTS):
        buf = np.empty((2, max_list), dtype=np.int32)
        bits = np.empty(ix.bitmaps.shape[1], dtype=np.uint64)
        state = np.zeros(4, dtype=np.int64)
        scratch = np.empty(pmax, dtype=np.int64)
        scratch_b = np.empty(pmax, dtype=np.int64)
        for s in range(part * n_s // N_PARTS, (part + 1) * n_s // N_PARTS):
            u = users[s]
            pts = trace_pts[trace_ptr[u] : trace_ptr[u + 1]].astype(np.int64)
            m = len(pts)
            if m == 0:
                continue
            pts = pts[np.argsort(list_len[pts], kind="mergesort")]
            width = min(beam, m)
            kept = np.empty((width, pmax), dtype=np.int64)
            n_kept = width
            for b in range(width):
                kept[b, 0] = pts[b]
            best[s, 0] = list_len[pts[0]]
            top = min(pmax, m)
            k = 1
            while k < top and best[s, k - 1] > 1:
                # every kept subset plus one point it lacks: (subset, point, size)
                n_cand = n_kept * (m - k)
                cand_from = np.empty(n_cand, dtype=np.int64)
                cand_point = np.empty(n_cand, dtype=np.int64)
                cand_size = np.empty(n_cand, dtype=np.int64)
                c = 0
                row = np.empty(pmax, dtype=np.int64)
                for b in range(n_kept):
                    row[:k] = kept[b, :k]
                    for y in pts:
                        inside = False
                        for j in range(k):
                            if row[j] == y:
                                inside = True
                                break
                        if inside:
                            continue
                        row[k] = y
                        cand_from[c] = b
                        cand_point[c] = y
                        cand_size[c] = _set_size(row, k + 1, scratch, ix, buf, bits, state)
                        c += 1
                order = np.argsort(cand_size[:c], kind="mergesort")
                nxt = np.empty((min(beam, c), pmax), dtype=np.int64)
                n_next = 0
                for i in order:
                    if n_next == len(nxt):
                        break
                    row[:k] = kept[cand_from[i], :k]
                    row[k] = cand_point[i]
                    duplicate = False
                    for b in range(n_next):
                        if _same_points(nxt[b], row, k + 1, scratch, scratch_b):
                            duplicate = True
                            break
                    if not duplicate:
                        nxt[n_next, : k + 1] = row[: k + 1]
                        n_next += 1
                best[s, k] = cand_size[order[0]]
                kept, n_kept = nxt, n_next
                k += 1
            for j in range(k, top):
                best[s, j] = 1  # a set of one was found at a smaller k
    return best
