"""Inverted index of one generalization profile: every visited point -> the sorted users who visit it.

Points are compacted to the visited ones (dense ids 0..n_points-1) so arrays stay small even when d is
huge. Long posting lists (at least n/128 users) also get a dense bitmap so intersections with them are
word-wise ANDs or bit tests; bitmaps take at most twice the posting lists' memory (or 32 MiB).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.generalize import Traces
from privacy_studio.core.kernels.arrays import IndexArrays
from privacy_studio.core.kernels.gil_free import distinct
from privacy_studio.core.kernels.postings import compact_points, fill_bitmaps, fill_postings

#: Bitmaps may always use this much memory, however short the posting lists.
BITMAP_BUDGET_MIN = 32 * 2**20


@dataclass
class PointIndex:
    """Posting lists (CSR over compact points) plus each user's trace in compact point ids."""

    n_users: int
    d: int  # dimensionality of the profile (visited or not)
    point_ids: np.ndarray  # int64 profile point id of each compact point, ascending
    post_ptr: np.ndarray  # int64, n_points + 1
    post_users: np.ndarray  # int32, users ascending within each point
    trace_ptr: np.ndarray  # int64, n_users + 1 (the traces' indptr)
    trace_pts: np.ndarray  # int32 compact point of every trace entry
    trace_cnt: np.ndarray  # int32 or int64 events of the user at that point (the traces' counts)
    dense_slot: np.ndarray  # int32 per point: row in ``bitmaps`` or -1
    bitmaps: np.ndarray  # uint64 (n_dense, n_words)
    list_len: np.ndarray  # int64 |D_x| per compact point
    max_list: int  # longest posting list

    @property
    def n_points(self) -> int:
        return len(self.point_ids)

    @property
    def n_words(self) -> int:
        return self.bitmaps.shape[1]

    @property
    def nnz(self) -> int:
        return len(self.trace_pts)

    def arrays(self) -> IndexArrays:
        """The index's arrays bundled for the kernels."""
        return IndexArrays(
            self.trace_ptr,
            self.trace_pts,
            self.trace_cnt,
            self.post_ptr,
            self.post_users,
            self.dense_slot,
            self.bitmaps,
            self.list_len,
        )

    def nbytes(self) -> int:
        """Memory held by the index itself (posting lists, compact traces, bitmaps)."""
        return sum(
            a.nbytes
            for a in (
                self.point_ids,
                self.post_ptr,
                self.post_users,
                self.trace_pts,
                self.dense_slot,
                self.bitmaps,
            )
        )


def build_index(traces: Traces, dense_min: int | None = None) -> PointIndex:
    """Index ``traces``; lists with at least ``dense_min`` users (default n/128, min 64) also get bitmaps."""
    n = traces.n_users
    points = traces.points
    if traces.d <= 4 * len(points) + (1 << 20):
        seen = np.zeros(traces.d, dtype=bool)
        seen[points] = True
        point_ids = np.flatnonzero(seen).astype(np.int64)
        remap = np.full(traces.d, -1, dtype=np.int32)
        remap[point_ids] = np.arange(len(point_ids), dtype=np.int32)
        del seen
    else:
        point_ids = distinct(points)
        remap = None
    trace_pts, counts = compact_points(points, point_ids, remap)
    post_ptr = np.zeros(len(point_ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=post_ptr[1:])
    trace_ptr = np.ascontiguousarray(traces.indptr, dtype=np.int64)
    post_users = fill_postings(trace_ptr, trace_pts, post_ptr)
    threshold = max(64, n // 128) if dense_min is None else dense_min
    dense_points = np.flatnonzero(counts >= threshold).astype(np.int64)
    n_words = (n + 63) // 64
    room = max(BITMAP_BUDGET_MIN, 2 * post_users.nbytes) // (8 * n_words)
    if len(dense_points) > room:  # keep the longest lists within the memory budget
        longest = np.argsort(-counts[dense_points], kind="stable")[:room]
        dense_points = np.sort(dense_points[longest])
    dense_slot = np.full(len(point_ids), -1, dtype=np.int32)
    dense_slot[dense_points] = np.arange(len(dense_points), dtype=np.int32)
    bitmaps = fill_bitmaps(post_ptr, post_users, dense_points, n_words)
    return PointIndex(
        n,
        traces.d,
        point_ids,
        post_ptr,
        post_users,
        trace_ptr,
        trace_pts,
        np.ascontiguousarray(traces.counts),
        dense_slot,
        bitmaps,
        counts,
        int(counts.max(initial=1)),
    )
