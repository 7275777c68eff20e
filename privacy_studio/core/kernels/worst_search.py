"""The targeted worst-case search: for each person, p-subsets of their trace chosen to shrink the anonymity
set, rarest points first, then more (a beam search).

Level 1 starts from the ``beam`` rarest points of the trace; each further level adds to every kept subset
each point of the trace it lacks, counts the anonymity set of every such subset, and keeps the ``beam``
smallest distinct subsets. Every size it returns is that of a real p-subset, so 1 / size is a lower bound
of the person's worst-case risk; a search that reaches a set of one is exact (risk 1 is the maximum).
Each person's search depends on nothing else, so results do not depend on the number of threads.

The work has a budget decided before the search starts: ``budget`` units per person, pooled over each of
the fixed parts of the people (so it does not depend on the number of threads). Extending one kept subset
costs its shortest list's length times the trace's length (what intersecting its candidates walks at most).
People are searched in order; each may spend what is left of the part's budget divided by the people left
in it, so what a quick search leaves goes to the next ones. A search stops before the extension that
would exceed its allowance: the level then keeps the candidates counted so far (real subsets: still a
lower bound), every larger p takes the smallest set found (a superset's set is no larger), and the person
is marked cut short from that p on. A search that never reaches its allowance is the unlimited one.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from privacy_studio.core.kernels.arrays import IndexArrays
from privacy_studio.core.kernels.exact import shortest_lists_first
from privacy_studio.core.kernels.intersect import (
    filter_by_bits,
    intersect_sorted,
    prefetch_traces_ahead,
    walk_members,
    walk_start,
    walk_step,
)
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
def _same_points(a: np.ndarray, b: np.ndarray, k: int) -> bool:
    """Whether the first ``k`` points of ``a`` and ``b`` are the same set: each holds k distinct points, so
    finding every point of ``a`` in ``b`` is enough (k is at most p: no sorted copies to allocate)."""
    for i in range(k):
        found = False
        for j in range(k):
            if a[i] == b[j]:
                found = True
                break
        if not found:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _count_members(
    inside: np.ndarray, ix: IndexArrays, at: np.ndarray, counts: np.ndarray, m: int, budget: float
) -> bool:
    """``counts[i]``: how many of ``inside`` visit the person's i-th point (``at[x]``: x's position, else
    -1), i.e. |E(A + y)| for every y; False, leaving the counts unfinished, once their traces exceed
    ``budget`` entries (then intersecting each candidate's lists is cheaper)."""
    trace_ptr, trace_pts = ix.trace_ptr, ix.trace_pts
    walked = 0
    for v in inside:
        walked += trace_ptr[v + 1] - trace_ptr[v]
    if walked > budget:
        return False
    counts[:m] = 0
    for s in range(len(inside)):
        prefetch_traces_ahead(inside, s, trace_ptr, trace_pts)
        v = inside[s]
        for t in range(trace_ptr[v], trace_ptr[v + 1]):
            i = at[trace_pts[t]]
            if i >= 0:
                counts[i] += 1
    return True


@nb.njit(cache=True, nogil=True)
def _extend(
    kept: np.ndarray,
    n_kept: int,
    k: int,
    pts: np.ndarray,
    at: np.ndarray,
    ix: IndexArrays,
    work: tuple,
    cand: np.ndarray,
    budget: float,
    spent: np.ndarray,
) -> tuple[int, bool]:
    """Every kept subset plus each point of the trace it lacks, as rows (subset, point, |E|) of ``cand``;
    and whether the work budget stopped it first (``spent[0]``: the person's work so far).

    |E(A + y)| is counted among the members of E(A) when their traces are shorter than the lists the
    candidates' intersections would walk (each at least A's shortest), else it is E(A) intersected with
    y's list (bit tests or a gallop over E(A), not A's k lists again): the same sizes in the same order."""
    buf, bits, state, scratch, members, counts, common = work
    post_ptr, post_users, dense_slot = ix.post_ptr, ix.post_users, ix.dense_slot
    m = len(pts)
    c = 0
    for b in range(n_kept):
        shortest = ix.list_len[kept[b, 0]]
        for j in range(1, k):
            shortest = min(shortest, ix.list_len[kept[b, j]])
        cost = float(shortest) * m
        if spent[0] + cost > budget:
            return c, True
        spent[0] += cost
        _set_size(kept[b], k, scratch, ix, buf, bits, state)
        inside = walk_members(post_ptr, post_users, dense_slot, ix.bitmaps, buf, bits, state, members)
        counted = _count_members(inside, ix, at, counts, m, float(m - k) * shortest)
        for i in range(m):
            y = pts[i]
            lacking = True
            for j in range(k):
                if kept[b, j] == y:
                    lacking = False
                    break
            if lacking:
                if counted:
                    size = counts[i]
                elif dense_slot[y] >= 0:  # |E(A + y)| = |E(A) ∩ D_y|: one pass over E(A), not k + 1 lists
                    size = filter_by_bits(inside, len(inside), ix.bitmaps[dense_slot[y]], common)
                else:
                    ya, yb = post_ptr[y], post_ptr[y + 1]
                    size = intersect_sorted(inside, len(inside), post_users[ya:yb], yb - ya, common)
                cand[c, 0], cand[c, 1], cand[c, 2] = b, y, size
                c += 1
    return c, False


@nb.njit(cache=True, nogil=True)
def _keep_smallest(
    kept: np.ndarray, cand: np.ndarray, c: int, k: int, beam: int
) -> tuple[np.ndarray, int, int]:
    """The ``beam`` distinct (k + 1)-subsets with the smallest sets, smallest first, and the smallest size."""
    order = np.argsort(cand[:c, 2], kind="mergesort")
    nxt = np.empty((min(beam, c), kept.shape[1]), dtype=np.int64)
    row = np.empty(kept.shape[1], dtype=np.int64)
    n_next = 0
    for i in order:
        if n_next == len(nxt):
            break
        row[:k] = kept[cand[i, 0], :k]
        row[k] = cand[i, 1]
        duplicate = False
        for b in range(n_next):
            if _same_points(nxt[b], row, k + 1):
                duplicate = True
                break
        if not duplicate:
            nxt[n_next, : k + 1] = row[: k + 1]
            n_next += 1
    return nxt, n_next, cand[order[0], 2]


@nb.njit(cache=True, nogil=True)
def _search_person(
    pts: np.ndarray,
    ix: IndexArrays,
    pmax: int,
    beam: int,
    at: np.ndarray,
    work: tuple,
    best: np.ndarray,
    budget: float,
) -> tuple[int, float]:
    """``best[k - 1]``: the smallest set found among the person's k-subsets (``pts`` rarest first); returns
    the first p whose value comes from a search the budget cut short (0: not cut) and the work spent."""
    m = len(pts)
    for i in range(m):
        at[pts[i]] = i
    width = min(beam, m)
    kept = np.empty((width, pmax), dtype=np.int64)
    n_kept = width
    for b in range(width):
        kept[b, 0] = pts[b]
    best[0] = ix.list_len[pts[0]]
    top = min(pmax, m)
    spent = np.zeros(1)
    cut = 0
    k = 1
    while k < top and best[k - 1] > 1:
        cand = np.empty((n_kept * (m - k), 3), dtype=np.int64)
        c, stopped = _extend(kept, n_kept, k, pts, at, ix, work, cand, budget, spent)
        if c:  # the smallest subset kept is extended first, so a cut level still beats its parent
            kept, n_kept, best[k] = _keep_smallest(kept, cand, c, k, beam)
        else:
            best[k] = best[k - 1]
        k += 1
        if stopped:
            cut = k if best[k - 1] > 1 else 0  # risk 1 is the maximum: exact even when cut
            break
    for j in range(k, top):
        best[j] = best[k - 1]  # a set of one found at a smaller k, or the cut search's smallest
    for i in range(m):
        at[pts[i]] = -1
    return cut, spent[0]


@nb.njit(parallel=True, cache=True, nogil=True)
def worst_search(
    users: np.ndarray,
    ix: IndexArrays,
    max_list: int,
    pmax: int,
    beam: int,
    budget: float = np.inf,
    parts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(S, pmax) smallest anonymity set found among each person's k-subsets, k = 1..pmax (0: fewer points),
    and (S,) per person the first p whose value comes from a search cut short by the budget (0: none);
    ``budget`` is the work per person, pooled within each part; the parts are taken in the order ``parts``
    (``sample_pass.spread_parts``; their own order when None).

    At k = 1 the value is exact (the rarest point of the trace); once a set of one is found, every larger k
    is 1 too (a superset of the knowledge never has a larger set).
    """
    trace_ptr, trace_pts, list_len = ix.trace_ptr, ix.trace_pts, ix.list_len
    n_s = len(users)
    best = np.zeros((n_s, pmax), dtype=np.int64)
    cut = np.zeros(n_s, dtype=np.int64)
    longest = 1
    for u in users:
        longest = max(longest, trace_ptr[u + 1] - trace_ptr[u])
    order = np.arange(N_PARTS) if parts is None else parts
    for i in nb.prange(N_PARTS):
        part = order[i]
        at = np.full(len(list_len), -1, dtype=np.int64)
        work = (
            np.empty((2, max_list), dtype=np.int32),  # buf
            np.empty(ix.bitmaps.shape[1], dtype=np.uint64),  # bits
            np.zeros(4, dtype=np.int64),  # state
            np.empty(max(pmax, longest), dtype=np.int64),  # scratch
            np.empty(max_list, dtype=np.int32),  # members
            np.zeros(max(pmax, longest), dtype=np.int64),  # counts: one per point of a trace
            np.empty(max_list, dtype=np.int32),  # the members of a candidate's set
        )
        lo, hi = part * n_s // N_PARTS, (part + 1) * n_s // N_PARTS
        left = budget * (hi - lo)
        for s in range(lo, hi):
            u = users[s]
            pts = trace_pts[trace_ptr[u] : trace_ptr[u + 1]].astype(np.int64)
            if len(pts):
                pts = pts[np.argsort(list_len[pts], kind="mergesort")]
                cut[s], spent = _search_person(pts, ix, pmax, beam, at, work, best[s], left / (hi - s))
                left -= spent
    return best, cut
