"""The sorted-list intersection kernels against numpy: the branch-free merge (lists of alike lengths), the
gallop with its branch-free bisection (one list much longer), and the bisection alone."""

from __future__ import annotations

import numba as nb
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.kernels.intersect import (
    AHEAD,
    GALLOP_RATIO,
    first_not_below,
    intersect_sorted,
    merge_sorted,
    prefetch,
)

users = st.lists(st.integers(0, 5_000), unique=True, max_size=300).map(
    lambda v: np.array(sorted(v), np.int32)
)


def _intersection(a: np.ndarray, b: np.ndarray, kernel) -> np.ndarray:
    room = min(len(a), len(b))
    dst = np.full(room + 1, -7, dtype=np.int32)
    n = kernel(a, len(a), b, len(b), dst)
    assert dst[room] == -7  # a buffer as long as the shorter list is enough
    return dst[:n]


@settings(max_examples=300, deadline=None)
@given(users, users)
def test_intersect_sorted_matches_numpy(a, b):
    """Both paths (merge when the lengths are within GALLOP_RATIO, else gallop), either argument order."""
    expected = np.intersect1d(a, b)
    assert np.array_equal(_intersection(a, b, intersect_sorted), expected)
    assert np.array_equal(_intersection(b, a, intersect_sorted), expected)
    assert np.array_equal(_intersection(a, b, merge_sorted), expected)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 200_000), unique=True, min_size=1, max_size=8), st.integers(1, 40))
def test_gallop_through_a_much_longer_list(short, stride):
    """A few users against a list over GALLOP_RATIO times longer: the gallop and its bisection."""
    a = np.array(sorted(short), dtype=np.int32)
    b = np.arange(0, 200_001, stride, dtype=np.int32)
    assert len(b) > GALLOP_RATIO * len(a)
    expected = np.intersect1d(a, b)
    assert np.array_equal(_intersection(a, b, intersect_sorted), expected)
    assert np.array_equal(_intersection(b, a, intersect_sorted), expected)


@settings(max_examples=300, deadline=None)
@given(users, st.integers(-5, 5_005), st.data())
def test_first_not_below_is_numpys_left_search(b, v, data):
    """The first index of b[lo:hi] not below v (hi if none), as np.searchsorted(side='left') on the slice."""
    lo = data.draw(st.integers(0, len(b)))
    hi = data.draw(st.integers(lo, len(b)))
    expected = lo + int(np.searchsorted(b[lo:hi], v, side="left"))
    assert first_not_below(b, lo, hi, v) == expected


@nb.njit(cache=False)
def _visits(members: np.ndarray, trace_ptr: np.ndarray, trace_pts: np.ndarray, ahead: bool) -> np.ndarray:
    """Per point, how many of ``members`` visit it (asking for traces ahead as the EM walk does, or not)."""
    out = np.zeros(trace_pts.max() + 1, dtype=np.int64)
    n = len(members)
    for s in range(n):
        if ahead and s + AHEAD < n:
            prefetch(trace_ptr, members[min(s + 2 * AHEAD, n - 1)])
            prefetch(trace_pts, trace_ptr[members[s + AHEAD]])
        v = members[s]
        for t in range(trace_ptr[v], trace_ptr[v + 1]):
            out[trace_pts[t]] += 1
    return out


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), max_size=12), min_size=1, max_size=80), st.data())
def test_prefetch_is_only_a_hint(traces, data):
    """A walk asking for its members' traces ahead (the last one's end included) counts the same visits."""
    trace_ptr = np.zeros(len(traces) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in traces], out=trace_ptr[1:])
    trace_pts = np.array([x for t in traces for x in t] + [0], dtype=np.int32)
    members = np.array(sorted(data.draw(st.sets(st.integers(0, len(traces) - 1)))), dtype=np.int32)
    expected = _visits(members, trace_ptr, trace_pts, False)
    assert np.array_equal(_visits(members, trace_ptr, trace_pts, True), expected)
    assert expected.sum() == sum(len(traces[v]) for v in members)
