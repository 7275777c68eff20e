"""Times kept as int32 seconds from an origin (compact tables, issue #30) against the int64 epoch seconds."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import LocalClock, Profile, generalize
from privacy_studio.core.io.assemble import from_period_start
from privacy_studio.core.io.buffers import INT32_SPAN, OffsetTimes

T0 = 1_711_846_800  # 2024-03-31 01:00 UTC: the European clock change
seconds = st.integers(-3 * 86400, 3 * 86400)
far = st.integers(-(2**33), 2**33)  # beyond what an int32 holds around one origin


@given(st.lists(st.lists(seconds | far, max_size=30), max_size=6), st.integers(0, 50))
def test_offset_times_hold_the_epoch_seconds_appended(pieces: list[list[int]], capacity: int) -> None:
    """Whatever the batches, origin + offsets give back every second appended; int32 while the span allows."""
    buffer = OffsetTimes(capacity)
    for piece in pieces:
        buffer.append(np.asarray(piece, dtype=np.int64) + T0)
    want = np.asarray([v for piece in pieces for v in piece], dtype=np.int64) + T0
    np.testing.assert_array_equal(buffer.epoch_view(), want)
    if len(want):
        first = np.asarray(next(p for p in pieces if p), dtype=np.int64) + T0
        origin = int(first.min()) // 3600 * 3600
        fits = (want - origin >= -INT32_SPAN).all() and (want - origin < INT32_SPAN).all()
        assert buffer.view().dtype == (np.int32 if fits else np.int64)
    origin, times = buffer.origin or 0, buffer.take()
    np.testing.assert_array_equal(times.astype(np.int64) + origin, want)


@given(st.lists(st.integers(-(2**31), 2**31 - 1), max_size=40), st.integers(-1000, 1000))
@example([-2_147_482_801], 0)  # the shift to the first whole hour is itself below int32's range
def test_from_period_start_counts_from_the_first_whole_hour(values: list[int], hours: int) -> None:
    """Recounted times are the same instants, from the whole hour at or before the earliest when they fit."""
    origin = (T0 // 3600 + hours) * 3600
    time = np.asarray(values, dtype=np.int32)
    want = time.astype(np.int64) + origin
    out, new_origin = from_period_start(time.copy(), origin)
    assert out.dtype == np.int32 and new_origin % 3600 == 0
    np.testing.assert_array_equal(out.astype(np.int64) + new_origin, want)
    if len(values) and int(want.max()) - int(want.min()) < 2**31 - 3600:
        assert 0 <= int(out.min()) < 3600


@given(
    rows=st.lists(st.tuples(st.integers(0, 5), seconds, st.integers(0, 6)), min_size=1, max_size=60),
    tz=st.sampled_from(["UTC", "Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]),
    width=st.sampled_from(["1h", "30min", "6h", "1d", "1w", "all"]),
)
def test_generalizing_int32_offsets_equals_epoch_seconds(rows, tz, width) -> None:
    """The same events with int32 times from an origin give the same traces, local clock and period."""
    epoch = build_event_table(
        np.array([f"u{r[0]}" for r in rows]),
        np.array([T0 + r[1] for r in rows], dtype=np.int64),
        np.array([f"L{r[2]}" for r in rows]),
        tz=tz,
    )
    time, origin = from_period_start((epoch.time - T0).astype(np.int32), T0)
    offsets = replace(epoch, time=time, time_origin=origin, _period=None, _local_time=None)
    assert offsets.period() == epoch.period()
    np.testing.assert_array_equal(offsets.local_time(), epoch.local_time())
    a, b = LocalClock.of(epoch), LocalClock.of(offsets)
    assert (a.first_second, a.last_second) == (b.first_second, b.last_second)
    profile = Profile.parse("raw", width)
    want, got = generalize(epoch, profile), generalize(offsets, profile)
    for name in ("indptr", "points", "counts"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    assert (got.n_bins, got.bin_origin) == (want.n_bins, want.bin_origin)


def test_an_origin_off_the_hour_is_refused() -> None:
    table = build_event_table(np.array(["u"]), np.array([T0]), np.array(["L"]))
    with pytest.raises(ValueError, match="whole UTC hour"):
        replace(table, time=table.time.astype(np.int32), time_origin=T0 + 1)
