"""Suppression on CSR traces against the dictionary reference, its guarantees, and a worked example."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.generalize import Profile, Traces
from privacy_studio.core.release.options import ReleaseOptions
from privacy_studio.core.release.suppression import Removal, people_per_row_point, suppress
from tests.release import reference

N_POINTS = 6


def to_csr(traces: reference.Traces, n_users: int) -> Traces:
    indptr, points, counts = [0], [], []
    for u in range(n_users):
        for p, c in sorted(traces.get(u, {}).items()):
            points.append(p)
            counts.append(c)
        indptr.append(len(points))
    return Traces(
        Profile.parse("raw", "all"),
        np.asarray(indptr, dtype=np.int64),
        np.asarray(points, dtype=np.int64),
        np.asarray(counts, dtype=np.int64),
        N_POINTS,
        1,
    )


def from_csr(traces: Traces) -> reference.Traces:
    return {
        u: {
            int(p): int(c)
            for p, c in zip(
                traces.points[traces.indptr[u] : traces.indptr[u + 1]],
                traces.counts[traces.indptr[u] : traces.indptr[u + 1]],
                strict=True,
            )
        }
        for u in range(traces.n_users)
    }


people = st.lists(
    st.dictionaries(st.integers(0, N_POINTS - 1), st.integers(1, 5), max_size=4), min_size=0, max_size=25
)
threshold = st.none() | st.integers(1, 4)


@given(people, threshold, threshold, threshold)
def test_suppression_equals_the_reference(traces_list, m, k, n):
    traces = dict(enumerate(traces_list))
    options = ReleaseOptions("raw", "all", min_people_per_point=m, k_anonymity=k, max_points_per_person=n)
    result = suppress(to_csr(traces, len(traces_list)), options)
    kept, removals = result.traces, result.removals
    expected = reference.suppress(traces, m, k, n)
    assert from_csr(kept) == expected
    removed_events = sum(sum(t.values()) for t in traces.values()) - sum(
        sum(t.values()) for t in expected.values()
    )
    assert sum(r.events for r in removals) == removed_events
    lost = sum(1 for u in traces if traces[u] and not expected[u])
    assert sum(r.people for r in removals) == lost


@given(people.filter(lambda traces_list: any(traces_list)), st.integers(1, 10**9))
def test_people_per_point_counts_sparse_ids_as_dense_ones(traces_list, spread):
    """Counted per point id or over the distinct ids (ids spread far apart): each row gets the number of
    people holding its point."""
    traces = to_csr(dict(enumerate(traces_list)), len(traces_list))
    held = Counter(p for t in traces_list for p in t)
    expected = [held[int(p)] for p in traces.points]
    assert people_per_row_point(traces).tolist() == expected
    spread_out = Traces(traces.profile, traces.indptr, traces.points * spread, traces.counts, N_POINTS, 1)
    assert people_per_row_point(spread_out).tolist() == expected


@given(people, threshold, threshold, threshold)
def test_every_guarantee_holds_on_the_result(traces_list, m, k, n):
    options = ReleaseOptions("raw", "all", min_people_per_point=m, k_anonymity=k, max_points_per_person=n)
    kept = from_csr(suppress(to_csr(dict(enumerate(traces_list)), len(traces_list)), options).traces)
    released = {u: t for u, t in kept.items() if t}
    if n is not None:
        assert all(len(t) <= n for t in released.values())
    if m is not None:
        holders = Counter(p for t in released.values() for p in t)
        assert all(c >= m for c in holders.values())
    if k is not None:
        classes = Counter(frozenset(t) for t in released.values())
        assert all(c >= k for c in classes.values())


def test_worked_example():
    """Four people over points 0..3; every number below was counted by hand."""
    traces = {
        0: {0: 5, 1: 1, 2: 1},  # capped to {0, 1} (1 and 2 tie at one event: the smaller id stays)
        1: {0: 2, 1: 2},
        2: {0: 1, 1: 3},
        3: {3: 4},  # alone at point 3: the point goes, and with it the person
    }
    options = ReleaseOptions("raw", "all", min_people_per_point=2, k_anonymity=3, max_points_per_person=2)
    result = suppress(to_csr(traces, 4), options)
    kept, removals = result.traces, result.removals
    assert from_csr(kept) == {0: {0: 5, 1: 1}, 1: {0: 2, 1: 2}, 2: {0: 1, 1: 3}, 3: {}}
    assert removals == [
        Removal("max_points_per_person", 0, 1, 1),
        Removal("min_people_per_point", 1, 4, 1),
        Removal("k_anonymity", 0, 0, 0),
        Removal("min_people_per_point", 0, 0, 0, again=True),
    ]
