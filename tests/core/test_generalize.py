"""Generalization to CSR traces against a plain-Python reference built with datetime and dicts."""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core import generalize as generalize_module
from privacy_studio.core.events import LocationTable, build_event_table, to_local_seconds
from privacy_studio.core.generalize import (
    LocalClock,
    Profile,
    SpatialLevel,
    TemporalLevel,
    _unique_cells,
    coarsen,
    generalize,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.event_traces import BUCKET_MAX, event_traces

T0 = 1_709_251_200  # 2024-03-01 00:00 UTC: the window covers the European DST change of 31 March


def reference_local_bin(utc: int, tz: str, width: int | None) -> int:
    """Bin index counted from the Monday 1970-01-05 in local wall-clock time (None width: one bin)."""
    if width is None:
        return 0
    local = datetime.fromtimestamp(utc, UTC).astimezone(ZoneInfo(tz)).replace(tzinfo=None)
    monday = datetime(1970, 1, 5)
    return math.floor((local - monday) / timedelta(seconds=width))


def reference_traces(users, times, locs, tz, width, unit_of_location):
    """user id -> {(unit, absolute bin): count} computed one event at a time."""
    out: dict[str, Counter] = defaultdict(Counter)
    for u, t, loc in zip(users, times, locs, strict=True):
        out[str(u)][(unit_of_location(loc), reference_local_bin(int(t), tz, width))] += 1
    return out


def decode(traces, events):
    """Turn CSR traces back into the reference's dict form using the profile's unit and bin numbering."""
    first_bin = None
    if traces.profile.temporal.seconds is not None:
        first_bin = (traces.bin_origin - 4 * 86400) // traces.profile.temporal.seconds
    out: dict[str, Counter] = {}
    for code, uid in enumerate(events.user_ids):
        pts = traces.trace(code)
        cnt = traces.counts[traces.indptr[code] : traces.indptr[code + 1]]
        units = traces.unit_ids[traces.point_unit(pts)]
        bins = traces.point_bin(pts) + (first_bin or 0)
        out[str(uid)] = Counter(
            {(str(un), int(b)): int(c) for un, b, c in zip(units, bins, cnt, strict=True)}
        )
        assert np.all(np.diff(pts) > 0), "points must be strictly ascending within a user"
    return out


events_strategy = st.lists(
    st.tuples(
        st.integers(0, 6),  # user
        st.integers(0, 60 * 86400),  # seconds after T0
        st.integers(0, 7),  # location
    ),
    min_size=1,
    max_size=80,
)


@given(
    rows=events_strategy,
    tz=st.sampled_from(["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata"]),
    width=st.sampled_from([None, 60, 900, 3600, 6 * 3600, 86400, 7 * 86400, 5000]),
)
def test_generalize_matches_reference_on_raw_locations(rows, tz, width) -> None:
    users = np.array([f"u{r[0]}" for r in rows])
    times = np.array([T0 + r[1] for r in rows], dtype=np.int64)
    locs = np.array([f"L{r[2]}" for r in rows])
    events = build_event_table(users, times, locs, tz=tz)
    profile = Profile(SpatialLevel("raw"), TemporalLevel(width))
    traces = generalize(events, profile)
    expected = reference_traces(users, times, locs, tz, width, lambda loc: str(loc))
    assert decode(traces, events) == expected
    assert traces.nnz == sum(len(c) for c in expected.values())
    assert traces.counts.sum() == len(rows)
    assert traces.d == events.n_locations * traces.n_bins


@given(rows=events_strategy, keep=st.sets(st.integers(0, 6)))
def test_offsets_and_period_are_kept_per_table_and_fresh_for_a_subset(rows, keep) -> None:
    """Offsets and period are computed once per table; a subset of users gets its own, never its parent's."""
    users = np.array([f"u{r[0]}" for r in rows])
    events = build_event_table(users, np.array([T0 + r[1] for r in rows], dtype=np.int64), users)
    first = events.user_offsets()
    assert events.user_offsets() is first
    assert np.array_equal(first, np.concatenate([[0], np.cumsum(np.bincount(events.user))]))
    assert events.period() == (events.time.min(), events.time.max())
    part = events.subset_users(np.array(sorted(k for k in keep if k < events.n_users), dtype=np.int64))
    counts = np.bincount(part.user, minlength=part.n_users)
    assert np.array_equal(part.user_offsets(), np.concatenate([[0], np.cumsum(counts)]))
    assert part.period() == ((part.time.min(), part.time.max()) if part.n_events else (0, 0))


@given(
    rows=events_strategy, fine=st.sampled_from([3600, 2 * 3600]), factor=st.sampled_from([1, 3, 6, 12, 84])
)
def test_coarsen_equals_generalizing_the_events(rows, fine, factor) -> None:
    users = np.array([r[0] for r in rows])
    times = np.array([T0 + 1800 + r[1] for r in rows], dtype=np.int64)
    locs = np.array([r[2] for r in rows])
    events = build_event_table(users, times, locs, tz="Europe/Paris")
    district = np.array([int(i) % 3 for i in events.location_ids])
    hier = Hierarchy.from_mapping(events.location_ids, "antenna", {"district": district})
    fine_traces = generalize(events, Profile(SpatialLevel("raw"), TemporalLevel(fine)), hier)
    for temporal in (TemporalLevel(fine * factor), TemporalLevel(None)):
        profile = Profile(SpatialLevel("level", name="district"), temporal)
        direct = generalize(events, profile, hier)
        derived = coarsen(
            fine_traces,
            profile,
            hier.unit_codes["district"],
            hier.n_units("district"),
            hier.unit_ids["district"],
        )
        np.testing.assert_array_equal(direct.indptr, derived.indptr)
        np.testing.assert_array_equal(direct.points, derived.points)
        np.testing.assert_array_equal(direct.counts, derived.counts)
        assert (direct.n_bins, direct.bin_origin) == (derived.n_bins, derived.bin_origin)


def test_hierarchy_level_and_dimensionality() -> None:
    events = build_event_table(
        np.array(["a", "a", "b", "c"]),
        np.array([T0, T0 + 7200, T0 + 60, T0 + 86400]),
        np.array(["x1", "x2", "x1", "x3"]),
    )
    hier = Hierarchy.from_mapping(events.location_ids, "antenna", {"zip": np.array(["Z1", "Z1", "Z2"])})
    traces = generalize(events, Profile.parse("zip", "1d"), hier)
    assert traces.n_units == 2 and traces.n_bins == 2 and traces.d == 4
    assert traces.lengths().tolist() == [1, 1, 1]  # a's two events fall in the same (zip, day)
    assert traces.counts.tolist() == [2, 1, 1]
    assert traces.fill_rate() == pytest.approx(3 / (3 * 4))
    # The location level itself means raw.
    assert generalize(events, Profile.parse("antenna", "1d"), hier).n_units == 3


def test_grid_cells_follow_coordinates() -> None:
    x = np.array([0.1, 0.9, 1.2, 5.5, 0.4])
    y = np.array([0.1, 0.2, 0.3, 5.5, 0.9])
    events = build_event_table(np.array([1, 1, 2, 2, 3]), np.full(5, T0), None, x_km=x, y_km=y)
    traces = generalize(events, Profile.parse("grid:1", "all"))
    # cells: (0,0) holds x=0.1,0.9,0.4; (1,0) holds 1.2; (5,5) holds 5.5
    assert traces.n_units == 3
    assert traces.lengths().tolist() == [1, 2, 1]
    assert generalize(events, Profile.parse("grid:10", "all")).n_units == 1


def test_coordinates_only_raw_level_uses_distinct_pairs() -> None:
    x = np.array([1.0, 1.0, 2.0])
    y = np.array([3.0, 3.0, 3.0])
    events = build_event_table(np.array([1, 2, 2]), np.full(3, T0), None, x_km=x, y_km=y)
    traces = generalize(events, Profile.parse("raw", "1h"))
    assert traces.n_units == 2
    assert traces.lengths().tolist() == [1, 2]


def test_price_bins_are_log_spaced() -> None:
    amount = np.array([1.0, 9.0, 10.0, 99.0, 100.0])
    events = build_event_table(np.zeros(5, dtype=int), np.full(5, T0), np.array(["s"] * 5), amount=amount)
    traces = generalize(events, Profile.parse("raw", "1d", price_per_decade=1))
    assert traces.n_price_bins == 3
    assert traces.counts.tolist() == [2, 2, 1]


@pytest.mark.parametrize(
    ("text", "message"),
    [("grid:abc", "not a number"), ("grid:-1", "positive"), ("", "empty")],
)
def test_bad_spatial_levels(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SpatialLevel.parse(text)


@pytest.mark.parametrize("text", ["1 fortnight", "h", "-1h", "0h"])
def test_bad_time_widths(text: str) -> None:
    with pytest.raises(ValueError):
        TemporalLevel.parse(text)


def test_time_width_labels_round_trip() -> None:
    for text in ("15min", "1h", "6h", "12h", "1d", "1w", "all"):
        assert TemporalLevel.parse(text).label == text


def test_unknown_hierarchy_level_names_the_known_ones() -> None:
    events = build_event_table(np.array([1]), np.array([T0]), np.array(["x"]))
    hier = Hierarchy.from_mapping(events.location_ids, "antenna", {"zip": np.array(["Z"])})
    with pytest.raises(ValueError, match="antenna, zip"):
        generalize(events, Profile.parse("county", "1h"), hier)
    with pytest.raises(ValueError, match="hierarchy"):
        generalize(events, Profile.parse("zip", "1h"))


def test_local_time_honours_daylight_saving() -> None:
    before = 1_711_846_800  # 2024-03-31 01:00 UTC = 03:00 CEST (just after the change)
    local = to_local_seconds(np.array([before - 3600, before]), "Europe/Paris")
    assert (local - np.array([before - 3600, before])).tolist() == [3600, 7200]


def test_location_table_orders_codes() -> None:
    table = LocationTable(np.array(["b", "a"]), np.zeros(2), np.zeros(2), np.array([1.0, 2.0]), np.zeros(2))
    events = build_event_table(
        np.array([1, 1]), np.array([T0, T0 + 1]), np.array(["a", "b"]), locations=table
    )
    assert events.location.tolist() == [1, 0]
    assert events.location_ids.tolist() == ["b", "a"]


def test_points_are_int32_when_they_fit_and_int64_beyond() -> None:
    """d over 2^31 (1-second bins over 70 years) keeps int64 point ids; the traces match the reference."""
    users = np.array(["a", "a", "b", "a"])
    times = np.array([0, 70 * 365 * 86400, 5, 70 * 365 * 86400], dtype=np.int64) + T0
    locs = np.array(["L0", "L1", "L0", "L1"])
    events = build_event_table(users, times, locs, tz="UTC")
    for width, dtype in ((86400, np.int32), (1, np.int64)):
        traces = generalize(events, Profile(SpatialLevel("raw"), TemporalLevel(width)))
        assert traces.points.dtype == dtype and traces.counts.dtype == np.int32
        assert (traces.d >= 2**31) == (dtype == np.int64)
        expected = reference_traces(users, times, locs, "UTC", width, lambda loc: str(loc))
        assert decode(traces, events) == expected


@given(
    offsets=st.lists(st.integers(-3 * 3600, 400 * 86400), min_size=1, max_size=40),
    tz=st.sampled_from(["UTC", "Europe/Paris", "America/New_York", "Australia/Lord_Howe"]),
)
def test_local_clock_range_equals_the_stored_local_times(offsets, tz) -> None:
    """LocalClock's first/last local second (only the ends are shifted) equal those of every event shifted."""
    times = np.array([T0 + o for o in offsets], dtype=np.int64)
    events = build_event_table(
        np.array(["u"] * len(times)), np.sort(times), np.array(["L"] * len(times)), tz=tz
    )
    local = to_local_seconds(events.time, tz)
    clock = LocalClock.of(events)
    assert (clock.first_second, clock.last_second) == (int(local.min()), int(local.max()))


@given(rows=events_strategy, tz=st.sampled_from(["UTC", "Europe/Paris", "Australia/Lord_Howe"]))
def test_sorting_and_bucketing_by_unit_give_the_same_traces(rows, tz) -> None:
    """Levels with more than BUCKET_MAX units sort each user's keys instead of bucketing them by unit."""
    users = np.array([f"u{r[0]}" for r in rows])
    times = np.array([T0 + r[1] for r in rows], dtype=np.int64)
    events = build_event_table(users, times, np.array([f"L{r[2]}" for r in rows]), tz=tz)
    profile = Profile(SpatialLevel("raw"), TemporalLevel(3600))
    bucketed = generalize(events, profile)

    def sorting(*args):
        return event_traces(*args[:3], BUCKET_MAX + 1, *args[4:])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(generalize_module, "event_traces", sorting)
        sorted_ = generalize(events, profile)
    for name in ("indptr", "points", "counts"):
        np.testing.assert_array_equal(getattr(bucketed, name), getattr(sorted_, name))


@given(
    st.lists(st.tuples(st.integers(-(10**7), 10**7), st.integers(-(10**7), 10**7)), max_size=60),
    st.integers(0, 3),
)
def test_unique_cells_equal_numpy_unique_rows(points, repeat):
    """The km-grid cells found through one int64 key are numpy's distinct rows, in its order, with its
    inverse (the slow, obvious reference)."""
    xy = np.asarray(points * (repeat + 1), dtype=np.int64).reshape(-1, 2)
    cells, inverse = _unique_cells(xy[:, 0], xy[:, 1])
    if not len(xy):
        assert cells.shape == (0, 2) and not len(inverse)
        return
    expected, expected_inverse = np.unique(xy, axis=0, return_inverse=True)
    assert np.array_equal(cells, expected)
    assert np.array_equal(inverse, expected_inverse.ravel())


def test_finest_first_worked_example() -> None:
    from privacy_studio.core.generalize import finest_first

    spatial = ["grid:5", "district", "raw", "grid:1", "zip"]
    temporal = ["1h", "all", "1w", "1d", "30min"]
    assert finest_first(spatial, temporal) == (
        ["grid:1", "district", "raw", "grid:5", "zip"],  # squares sorted in their own slots, the rest kept
        ["30min", "1h", "1d", "1w", "all"],
    )


WIDTH_LABELS = ["15min", "30min", "1h", "2h", "6h", "12h", "1d", "2d", "1w", "all"]


@given(st.permutations(WIDTH_LABELS), st.lists(st.sampled_from(["raw", "zip", "district"]), unique=True))
def test_finest_first_sorts_widths_by_length_and_keeps_other_places(widths, named) -> None:
    """Reference: the slow way — widths by their length in seconds (the whole period last); named levels
    keep their relative order; the result is a permutation of the input."""
    from privacy_studio.core.generalize import TemporalLevel, finest_first

    grids = [f"grid:{km}" for km in (20, 1, 5)]
    spatial = named + grids
    got_spatial, got_temporal = finest_first(spatial, list(widths))
    expected = sorted(widths, key=lambda w: TemporalLevel.parse(w).seconds or math.inf)
    assert got_temporal == expected
    assert sorted(got_spatial) == sorted(spatial)
    assert [s for s in got_spatial if not s.startswith("grid")] == named
    assert [s for s in got_spatial if s.startswith("grid")] == ["grid:1", "grid:5", "grid:20"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([-1.5, 0.0, 0.25, 3.0]), st.sampled_from([-2.0, 0.0, 0.5, 7.0])),
        max_size=40,
    )
)
def test_unique_pairs_matches_numpy_unique_rows(points):
    """unique_pairs (lexsort, lets other threads run) = np.unique(axis=0, return_inverse=True), the slow
    obvious reference that held the GIL."""
    from privacy_studio.core.generalize import unique_pairs

    x = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    rows, inverse = unique_pairs(x, y)
    assert rows.shape[1] == 2 and inverse.shape == x.shape
    if points:
        expected_rows, expected_inverse = np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    else:
        assert len(rows) == 0


@given(
    st.lists(st.lists(st.integers(0, 59), max_size=25), max_size=12),
    st.sampled_from([1, 2, 3, 5, 12]),
    st.integers(0, 11),
    st.lists(st.integers(0, 3), min_size=60, max_size=60),
)
def test_coarse_kernels_equal_mapping_each_point(rows, n_bins, shift, targets) -> None:
    """coarse_lengths / fill_coarse against mapping every point one by one and merging in a dict."""
    from privacy_studio.core.kernels.derive import coarse_lengths, fill_coarse

    factor = n_bins + shift % 3
    n_units = 60 // n_bins
    traces = [sorted({p for p in r if p < n_units * n_bins}) for r in rows]
    unit_map = np.asarray(targets[:n_units], dtype=np.int64)
    n_bins_out = (n_bins - 1 + shift) // factor + 1
    indptr = np.zeros(len(traces) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(t) for t in traces])
    points = np.asarray([p for t in traces for p in t], dtype=np.int32)
    counts = np.arange(1, len(points) + 1, dtype=np.int32)
    want, at = [], 0
    for t in traces:
        merged: Counter = Counter()
        for p in t:
            key = int(unit_map[p // n_bins]) * n_bins_out + (p % n_bins + shift) // factor
            merged[key] += int(counts[at])
            at += 1
        want.append(sorted(merged.items()))
    args = (indptr, points, counts, unit_map, n_bins, factor, shift, n_bins_out)
    new_ptr = np.zeros(len(traces) + 1, dtype=np.int64)
    np.cumsum(coarse_lengths(*args), out=new_ptr[1:])
    new_points = np.empty(new_ptr[-1], dtype=np.int32)
    new_counts = np.empty(new_ptr[-1], dtype=np.int32)
    fill_coarse(*args, new_ptr, new_points, new_counts)
    got = [
        list(zip(new_points[a:b].tolist(), new_counts[a:b].tolist(), strict=True))
        for a, b in itertools.pairwise(new_ptr)
    ]
    assert got == want
