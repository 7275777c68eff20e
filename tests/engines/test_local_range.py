"""The relational engines' first and last local second, which align every profile's time bins, equal the
slow reference (each event's own offset) when events sit around clock changes, where only the events
near either end of the period are joined with the offsets."""

from __future__ import annotations

import tempfile

import numpy as np
import pyarrow as pa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines.duckdb_engine import DuckDBEngine
from privacy_studio.core.engines.ingest import local_range
from privacy_studio.core.events import _offsets_at
from tests.engines.helpers import CLOCK_CHANGES, wall

HOUR = 3600


def _reference(utc: np.ndarray, tz: str) -> tuple[int, int]:
    """Every event shifted by its own offset, then the smallest and largest."""
    local = utc + _offsets_at(utc, tz)
    return int(local.min()), int(local.max())


def _utc_near(change: str, tz: str) -> int:
    """UTC second of the wall-clock time ``change`` read in ``tz`` (about when its clocks change)."""
    return int(wall(change) - _offsets_at(np.array([wall(change)]), tz)[0])


times_near_changes = st.sampled_from(sorted(CLOCK_CHANGES)).flatmap(
    lambda tz: st.tuples(
        st.just(tz),
        st.lists(
            st.sampled_from(CLOCK_CHANGES[tz]).flatmap(
                lambda c: st.integers(_utc_near(c, tz) - 2 * HOUR, _utc_near(c, tz) + 2 * HOUR)
            ),
            min_size=1,
            max_size=40,
        ),
    )
)


#: Paris, 27 Oct 2024 (clocks back at 01:00 UTC): 02:50 summer time, 02:05 and 02:55 winter time. The
#: earliest local second is the middle event's, neither end's.
FALL_BACK = 1729990800


@settings(max_examples=50, deadline=None)
@given(case=times_near_changes)
@example(case=("Europe/Paris", [FALL_BACK - 600, FALL_BACK + 300, FALL_BACK + 3300]))
def test_duckdb_local_range_equals_each_events_own_offset(case):
    tz, times = case
    utc = np.asarray(times, dtype=np.int64)
    with tempfile.TemporaryDirectory() as spill:
        engine = DuckDBEngine(memory_limit="256MB", temp_dir=spill, threads=1)
        try:
            engine.register("ps_ev", pa.table({"t": utc}))
            got = local_range(engine, tz, int(utc.min()), int(utc.max()))
        finally:
            engine.close()
    assert got == _reference(utc, tz)


def test_utc_local_range_is_the_period():
    with tempfile.TemporaryDirectory() as spill:
        engine = DuckDBEngine(memory_limit="256MB", temp_dir=spill, threads=1)
        try:
            engine.register("ps_ev", pa.table({"t": np.array([5, 7_000, 3_601], dtype=np.int64)}))
            assert local_range(engine, "UTC", 5, 7_000) == (5, 7_000)
        finally:
            engine.close()
