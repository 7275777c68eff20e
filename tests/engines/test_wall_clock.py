"""Times without an offset, read by an engine, land on the instants the reader gives them, also in the hours
when the clocks change (skipped and repeated wall-clock times), as text and as naive Parquet timestamps."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines.wallclock import HOUR, wall_clock_table
from privacy_studio.core.io import ReaderOptions
from privacy_studio.core.io.timeparse import localize
from tests.engines.helpers import CLOCK_CHANGES, engine_times, naive_time_files, reader_times, wall


def _plain_utc(local: np.ndarray, tz: str) -> np.ndarray:
    """The reader's conversion, one time at a time."""
    return np.array([int(localize(np.array([x]), tz)[0]) for x in local], dtype=np.int64)


def _table_utc(local: np.ndarray, tz: str) -> np.ndarray:
    """What the SQL computes from ``ps_wall``, in numpy."""
    table = wall_clock_table(local // HOUR, tz).to_pydict()
    row = {h: i for i, h in enumerate(table["lh"])}
    out = []
    for x in local:
        i = row[int(x // HOUR)]
        first = x - table["lh"][i] * HOUR < table["split"][i]
        a, b = (table["a1"][i], table["b1"][i]) if first else (table["a2"][i], table["b2"][i])
        out.append(a * int(x) + b)
    return np.array(out, dtype=np.int64)


near_changes = st.sampled_from(sorted(CLOCK_CHANGES)).flatmap(
    lambda tz: st.tuples(
        st.just(tz),
        st.lists(
            st.sampled_from(CLOCK_CHANGES[tz]).flatmap(
                lambda c: st.integers(wall(c) - 2 * HOUR, wall(c) + 2 * HOUR)
            ),
            min_size=1,
            max_size=60,
        ),
    )
)


@settings(max_examples=60, deadline=None)
@given(case=near_changes)
def test_the_hour_table_converts_like_the_reader(case):
    tz, local = case
    local = np.asarray(local, dtype=np.int64)
    assert _table_utc(local, tz).tolist() == _plain_utc(local, tz).tolist()


@pytest.mark.parametrize("tz", sorted(CLOCK_CHANGES))
def test_duckdb_reads_naive_times_around_clock_changes_like_the_reader(tmp_path, tz):
    local = np.concatenate([np.arange(wall(c) - HOUR, wall(c) + 2 * HOUR, 307) for c in CLOCK_CHANGES[tz]])
    options = ReaderOptions(tz=tz, use_cache=False)
    for path in naive_time_files(tmp_path, local):
        assert engine_times("duckdb", path, options) == reader_times(path, options), path.name
