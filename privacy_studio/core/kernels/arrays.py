"""Arrays the numba kernels share, bundled as named tuples so a kernel takes a few arguments, not twenty."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class IndexArrays(NamedTuple):
    """A profile's inverted index as kernels see it (see ``core.index.PointIndex`` for each array)."""

    trace_ptr: np.ndarray  # int64, n_users + 1
    trace_pts: np.ndarray  # int32 compact point of every trace entry
    trace_cnt: np.ndarray  # int32 or int64 events of the user at that point
    post_ptr: np.ndarray  # int64, n_points + 1
    post_users: np.ndarray  # int32, users ascending within each point
    dense_slot: np.ndarray  # int32 per point: row in ``bitmaps`` or -1
    bitmaps: np.ndarray  # uint64 (n_dense, n_words)
    list_len: np.ndarray  # int64 |D_x| per compact point


class Priors(NamedTuple):
    """Per point the prior q_j = |D_j|/n and the KL term g_j of a zero posterior, and their sums; ln q_j and
    ln k for every set size k up to the longest list, so KL needs table look-ups instead of logarithms."""

    q: np.ndarray
    g: np.ndarray
    q_all: float
    g_all: float
    ln_q: np.ndarray
    ln_size: np.ndarray  # ln k for k = 0 .. max |D_x| (entry 0 unused)


#: What a kernel takes when EM/KL are not computed.
NO_PRIORS = Priors(np.zeros(0), np.zeros(0), 0.0, 0.0, np.zeros(0), np.zeros(0))
