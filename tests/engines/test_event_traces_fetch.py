"""A grid's base traces grouped on the client from every event's point (``fetch_event_traces``) are the
traces of ``ps_gen`` (the same rows grouped in SQL): each user's distinct points in ascending order with
the number of events at each, checked against grouping the events one user at a time in Python."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import fetch
from privacy_studio.core.generalize import Profile

PROFILE = Profile.parse("raw", "1h")


def shape(d: int) -> fetch.TraceShape:
    """A shape of ``d`` points (one unit, ``d`` time bins)."""
    return fetch.TraceShape(1, d, 1, np.asarray(["a"]), np.zeros((1, 2)), 0)


class Events:
    """A back end whose ``ps_ev`` holds one event per row of ``u``, at ``point``, read in batches of
    ``batch`` rows: the user column (``SELECT u FROM ps_ev``), then every event's user and point."""

    collects_whole = False

    def __init__(self, u: list[int], point: list[int], batch: int = 3) -> None:
        self.rows = pa.table({"u": pa.array(u, pa.int32()), "point": pa.array(point, pa.int64())})
        self.batch = batch

    def batches(self, sql: str, rows: int):
        columns = ["u"] if sql == "SELECT u FROM ps_ev" else ["u", "point"]
        return iter(self.rows.select(columns).to_batches(self.batch))


def grouped_in_python(u: list[int], point: list[int], n_users: int) -> tuple[list, list, list]:
    """indptr, points and counts of the events grouped per user with ``np.unique`` (the reference)."""
    indptr, points, counts = [0], [], []
    u_arr, p_arr = np.asarray(u, dtype=np.int64), np.asarray(point, dtype=np.int64)
    for user in range(n_users):
        values, n = np.unique(p_arr[u_arr == user], return_counts=True)
        points += values.tolist()
        counts += n.tolist()
        indptr.append(len(points))
    return indptr, points, counts


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n_users: st.tuples(
            st.just(n_users),
            st.lists(st.tuples(st.integers(0, n_users - 1), st.integers(0, 9)), max_size=40),
            st.integers(1, 7),
        )
    )
)
def test_events_grouped_on_the_client_equal_grouping_each_user_in_python(case):
    n_users, rows, batch = case
    u, point = [r[0] for r in rows], [r[1] for r in rows]
    traces = fetch.fetch_event_traces(Events(u, point, batch), PROFILE, n_users, len(rows), shape(10), "Q")
    indptr, points, counts = grouped_in_python(u, point, n_users)
    assert traces.indptr.tolist() == indptr
    assert traces.points.tolist() == points and traces.counts.tolist() == counts
    assert traces.points.dtype == np.int32 and traces.counts.dtype == np.int32  # as generalize types them


def test_a_point_outside_the_profile_is_one_clear_error():
    with pytest.raises(ValueError, match="place-and-time code 10"):
        fetch.fetch_event_traces(Events([0, 1], [3, 10]), PROFILE, 2, 2, shape(10), "Q")


class GrownEvents(Events):
    """Events whose second read has one more event for the last user than the first read counted."""

    def batches(self, sql: str, rows: int):
        if sql == "SELECT u FROM ps_ev":
            return super().batches(sql, rows)
        u = self.rows.column("u").to_pylist()
        u = [*u, u[-1]]
        return iter(pa.table({"u": pa.array(u, pa.int32()), "point": [1] * len(u)}).to_batches(2))


def test_more_events_than_counted_are_refused_before_any_lands_outside_its_users_slots():
    with pytest.raises(RuntimeError, match="changed while they were read"):
        fetch.fetch_event_traces(GrownEvents([0, 1, 1], [2, 3, 4]), PROFILE, 2, 3, shape(10), "Q")
