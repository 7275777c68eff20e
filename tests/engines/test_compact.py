"""The in-memory engine's compact columns (issue #30): same results as the full table, less memory."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core import generalize as gen
from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile, generalize, user_blocks
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.io.assemble import factorize
from privacy_studio.core.kernels.rows import permute_in_place, sorted_codes_in_place
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.sample import generate_city

SPATIAL = ["raw", "zip", "district", "grid:1.5"]
TEMPORAL = ["1h", "6h", "1w"]


@pytest.fixture(scope="module")
def city(tmp_path_factory):
    """A generated week of 300 people as an operator's file gives it (user, time, antenna; the places'
    coordinates in antennas.csv), in CSV and Parquet, and the generator's own CSV (coordinates per event)."""
    root = tmp_path_factory.mktemp("city")
    paths = generate_city(300, 7, 5, root / "c", periods=1, cdr_layout="none")
    table = pacsv.read_csv(paths.events).select(["user", "time", "location"])
    pq.write_table(table, root / "events.parquet")
    pacsv.write_csv(table, root / "events.csv")
    options = ReaderOptions(
        antennas=str(paths.antennas), hierarchy=str(paths.hierarchy), tz="Europe/Paris", use_cache=False
    )
    return paths, root / "events.parquet", options


def _grid(knowledge: str = "uniform") -> RiskSettings:
    return RiskSettings(SPATIAL, TEMPORAL, p_values=[1, 2, 3, 5], samples=120, knowledge=knowledge)


def test_compact_table_holds_the_same_events_without_per_event_coordinates(city):
    _, parquet, options = city
    full = load_dataset(str(parquet), options)
    compact = load_dataset(str(parquet), options, compact=True)
    a, b = full.events, compact.events
    assert b.coordinates_at_places and b.x_km is None and b.lat is None and b.has_coordinates()
    for name in ("user", "location", "user_ids", "location_ids"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    # times as int32 seconds from the period's first whole UTC hour: the same instants
    assert b.time.dtype == np.int32 and a.time.dtype == np.int64 and a.time_origin == 0
    assert b.time_origin % 3600 == 0 and 0 <= b.time.min() < 3600
    assert np.array_equal(b.utc_seconds(), a.time) and b.period() == a.period()
    assert np.array_equal(b.local_time(), a.local_time())
    for name in ("x_km", "y_km", "lat", "lon"):
        assert np.array_equal(getattr(a.locations, name), getattr(b.locations, name), equal_nan=True)
        # the full table's per-event column is its place's value, which the compact table does not store
        assert np.array_equal(getattr(a, name), getattr(a.locations, name)[a.location], equal_nan=True)
    assert full.report.to_dict() == compact.report.to_dict()
    assert full.summary() == compact.summary()


@pytest.mark.parametrize("knowledge", ["uniform", "activity", "top", "records"])
def test_compact_path_gives_the_same_profile_results(city, knowledge):
    _, parquet, options = city
    settings = _grid(knowledge)
    before = [r.to_dict() for r in run_grid(load_dataset(str(parquet), options), settings)]
    with open_engine("numba") as engine:
        after = [r.to_dict() for r in engine.run_grid(EventFiles(str(parquet), options), settings)]
    for r in before + after:
        r.pop("timings")
    assert after == before


def test_compact_path_reads_csv_as_parquet(city):
    _, parquet, options = city
    settings = RiskSettings(["raw", "grid:1.5"], ["6h"], p_values=[1, 2, 4], samples=100)
    csv = parquet.with_suffix(".csv")
    with open_engine("numba") as engine:
        from_csv = [r.to_dict() for r in engine.run_grid(EventFiles(str(csv), options), settings)]
        from_parquet = [r.to_dict() for r in engine.run_grid(EventFiles(str(parquet), options), settings)]
    for r in from_csv + from_parquet:
        r.pop("timings")
    assert from_csv == from_parquet


def test_events_with_their_own_coordinates_keep_them(city):
    paths, _, options = city
    events = load_dataset(str(paths.events), options, compact=True).events
    assert not events.coordinates_at_places and events.x_km is not None


@st.composite
def _events(draw):
    n_users = draw(st.integers(1, 12))
    n = draw(st.integers(1, 200))
    user = draw(st.lists(st.integers(0, n_users - 1), min_size=n, max_size=n))
    time = draw(st.lists(st.integers(1_709_500_000, 1_709_500_000 + 9 * 86400), min_size=n, max_size=n))
    location = draw(st.lists(st.integers(0, 7), min_size=n, max_size=n))
    return np.asarray(user), np.asarray(time, dtype=np.int64), np.asarray(location)


@settings(max_examples=60, deadline=None)
@given(_events(), st.integers(1, 40), st.sampled_from(["1h", "6h", "1d", "all"]))
def test_generalizing_by_blocks_of_users_equals_one_pass(data, block, width):
    user, time, location = data
    events = build_event_table(user, time, location, tz="Europe/Paris")
    profile = Profile.parse("raw", width)
    whole = generalize(events, profile)
    saved = gen.BLOCK_EVENTS
    gen.BLOCK_EVENTS = block
    try:
        blocked = generalize(events, profile)
    finally:
        gen.BLOCK_EVENTS = saved
    for name in ("indptr", "points", "counts"):
        assert np.array_equal(getattr(whole, name), getattr(blocked, name)), name
        assert getattr(whole, name).dtype == getattr(blocked, name).dtype


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=300), st.integers(1, 50))
def test_user_blocks_cover_every_user_once(lengths, size):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    blocks = user_blocks(offsets, size)
    assert [a for a, _ in blocks] == [0] + [b for _, b in blocks[:-1]]
    assert blocks[-1][1] == len(lengths)
    for a, b in blocks:
        assert b > a and (b - a == 1 or offsets[b] - offsets[a] <= size)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["b", "a", "é", "10", "9", "", "zz"]), max_size=20), max_size=5))
def test_factorize_equals_sorting_the_ids(batches):
    pieces = [pa.array(b, pa.string()).dictionary_encode() for b in batches]
    codes, ids = factorize(pieces)
    flat = [x for b in batches for x in b]
    expected_ids = sorted(set(flat))
    assert ids.tolist() == expected_ids
    assert codes.dtype == np.int32
    assert [expected_ids[c] for c in codes] == flat


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=300), st.randoms(use_true_random=False))
def test_permuting_in_place_equals_gathering(values, rng):
    values = np.asarray(values, dtype=np.int64)
    order = np.arange(len(values), dtype=np.int32)
    rng.shuffle(order)
    expected = values[order]
    kept = order.copy()
    permute_in_place(values, order)
    assert np.array_equal(values, expected) and np.array_equal(order, kept)


def test_a_compact_table_frees_its_rows_once_every_trace_derives_from_the_first(city):
    _, parquet, options = city
    settings = RiskSettings(["raw", "zip", "district"], TEMPORAL, p_values=[1, 2, 3, 5], samples=120)
    full = load_dataset(str(parquet), options)
    dataset = load_dataset(str(parquet), options, compact=True)
    n, summary = dataset.events.n_events, dataset.summary()
    before = [r.to_dict() for r in run_grid(full, settings)]
    after = [r.to_dict() for r in run_grid(dataset, settings)]
    for r in before + after:
        r.pop("timings")
    assert after == before
    events = dataset.events
    assert events.rows_dropped and len(events.time) == 0 and events.n_events == n
    assert dataset.summary() == summary
    with pytest.raises(RuntimeError, match="freed"):
        generalize(events, Profile.parse("raw", "1h"))


def test_rows_stay_when_a_profile_cannot_derive_from_the_first(city):
    _, parquet, options = city
    dataset = load_dataset(str(parquet), options, compact=True)
    list(run_grid(dataset, RiskSettings(["raw", "grid:1.5"], ["1h"], p_values=[1, 2], samples=50)))
    assert not dataset.events.rows_dropped


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-(2**40), 2**40), max_size=300),
    st.sampled_from([np.int64, np.int32, np.float64, np.int8]),
    st.randoms(use_true_random=False),
)
def test_permuting_in_place_equals_gathering_for_every_column_type(values, dtype, rng):
    """Wide int64 spans (no int32 offsets possible), narrow ones, 4-byte, float and int8 columns alike."""
    values = np.asarray(values).astype(dtype)
    order = np.arange(len(values), dtype=np.int32)
    rng.shuffle(order)
    expected = values[order]
    permute_in_place(values, order)
    assert np.array_equal(values, expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=200))
def test_sorting_codes_in_place_by_counting(codes):
    codes = np.asarray(codes, dtype=np.int32)
    expected = np.sort(codes)
    sorted_codes_in_place(codes, 10)
    assert np.array_equal(codes, expected)
