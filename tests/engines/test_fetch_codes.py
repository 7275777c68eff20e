"""A back end's rows are checked before the kernels index arrays with them: a point or user code outside
the profile's declared sizes is one clear error, not traces silently written out of place."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from privacy_studio.core.engines import fetch
from privacy_studio.core.generalize import Profile

PROFILE = Profile.parse("district", "1w")
SHAPE = fetch.TraceShape(3, 2, 1, np.asarray(["a", "b", "c"]), np.zeros((3, 2)), 0)  # 6 points


class Rows:
    """A back end whose ``ps_gen`` is the crafted table ``rows`` (only the two reads fetch makes: the user
    column, then the rows)."""

    collects_whole = False

    def __init__(self, u: list[int], point: list[int]) -> None:
        self.rows = pa.table({"u": u, "point": point, "cnt": [1] * len(u)}, schema=SCHEMA)

    def batches(self, sql: str, rows: int):
        columns = sql.removeprefix("SELECT ").split(" FROM ")[0].split(", ")
        return iter(self.rows.select(columns).to_batches(2))


class WholeRows(Rows):
    """A back end that brings results whole to the client (Spark): fetch counts the users itself."""

    collects_whole = True

    def execute(self, sql: str) -> pa.Table:
        assert "GROUP BY" not in sql
        return self.rows


BACKENDS = pytest.mark.parametrize("backend", [Rows, WholeRows])
SCHEMA = pa.schema([("u", pa.int64()), ("point", pa.int64()), ("cnt", pa.int64())])


@BACKENDS
def test_codes_in_range_are_read(backend):
    traces = fetch.fetch_traces(backend([0, 0, 1, 2], [5, 1, 0, 3]), PROFILE, 3, 10, SHAPE)
    assert traces.indptr.tolist() == [0, 2, 3, 4] and traces.points.tolist() == [1, 5, 0, 3]


@BACKENDS
def test_users_without_points_get_empty_rows_and_rows_arrive_in_any_order(backend):
    traces = fetch.fetch_traces(backend([2, 0, 2, 0, 2], [4, 3, 0, 1, 2]), PROFILE, 4, 10, SHAPE)
    assert traces.indptr.tolist() == [0, 2, 2, 5, 5]
    assert traces.points.tolist() == [1, 3, 0, 2, 4]


@pytest.mark.parametrize(
    ("u", "point", "says"),
    [
        ([0, 1, 2], [1, 6, 0], "place-and-time code 6, outside the profile's 6 place-and-times (0 to 5)"),
        ([0, 1, 2], [1, -1, 0], "place-and-time code -1"),
    ],
)
@BACKENDS
def test_a_point_code_out_of_range_is_one_clear_error(u, point, says, backend):
    with pytest.raises(ValueError, match="district × 1w: the engine gave ") as error:
        fetch.fetch_traces(backend(u, point), PROFILE, 3, 10, SHAPE)
    assert says in str(error.value)


@pytest.mark.parametrize("user", [3, -1])
@BACKENDS
def test_a_user_code_out_of_range_is_one_clear_error(user, backend):
    with pytest.raises(ValueError, match=f"district × 1w: the engine gave user code {user}, outside "):
        fetch.fetch_traces(backend([0, user, 1], [1, 2, 0]), PROFILE, 3, 10, SHAPE)


class ChangingRows(Rows):
    """A back end whose rows change between the count of each user's rows and the rows themselves."""

    def __init__(self, counted: list[int], streamed: list[int]) -> None:
        super().__init__(counted, [0] * len(counted))
        self.streamed = pa.table(
            {"u": streamed, "point": [1] * len(streamed), "cnt": [1] * len(streamed)}, schema=SCHEMA
        )

    def batches(self, sql: str, rows: int):
        if sql.startswith("SELECT u FROM"):
            return super().batches(sql, rows)
        return iter(self.streamed.to_batches(2))


@pytest.mark.parametrize(
    ("counted", "streamed"),
    [([0, 1, 2], [0, 1, 2, 2]), ([0, 1, 2], [0, 2, 2]), ([0, 1, 2], [0, 1])],
    ids=["one more row for the last user", "a row moved to another user", "one row fewer"],
)
def test_rows_that_disagree_with_their_count_are_refused_without_writing_past_a_slot(counted, streamed):
    scatter = fetch.scatter_rows
    seen: list[int] = []

    def spy(fill, ends, *rest):
        stop = scatter(fill, ends, *rest)
        seen.append(stop)
        assert (fill <= ends).all()
        return stop

    fetch.scatter_rows = spy
    try:
        with pytest.raises(RuntimeError, match="changed while they were read"):
            fetch.fetch_traces(ChangingRows(counted, streamed), PROFILE, 3, 10, SHAPE)
    finally:
        fetch.scatter_rows = scatter
    assert seen
