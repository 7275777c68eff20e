"""Places given by coordinates only: one place per identical coordinate pair, or per chain of points within
the user's tolerance; the same places on every engine, the option in the reader, the CLI and the dialog."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import open_engine
from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile, coordinate_places, generalize
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.runner import RiskSettings, run_grid
from tests.engines.helpers import DatasetOf, comparable


def reference_partition(x, y, tol_km):
    """Groups of point indices: union of every pair at most ``tol_km`` apart (or identical), brute force."""
    n = len(x)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            same = (x[i], y[i]) == (x[j], y[j])
            if same or (tol_km > 0 and np.hypot(x[i] - x[j], y[i] - y[j]) <= tol_km):
                parent[find(i)] = find(j)
    groups: dict[int, set] = {}
    for i in range(n):
        groups.setdefault(find(i), set()).add(i)
    return sorted(sorted(g) for g in groups.values())


def partition_of(codes):
    groups: dict[int, list] = {}
    for i, c in enumerate(codes):
        groups.setdefault(int(c), []).append(i)
    return sorted(groups.values())


@settings(max_examples=80, deadline=None)
@given(
    points=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=40),
    tol_m=st.sampled_from([0.0, 0.5, 0.7, 1.0, 2.5]),
)
def test_places_are_the_chains_of_points_within_the_tolerance(points, tol_m):
    x = np.array([a for a, _ in points]) * 0.0004  # 0.4 m steps: many pairs near each tolerance
    y = np.array([b for _, b in points]) * 0.0003
    units = coordinate_places(x, y, tol_m / 1000)
    assert partition_of(units.of_event) == reference_partition(x.tolist(), y.tolist(), tol_m / 1000)
    assert units.n_units == len(set(units.of_event.tolist()))
    order = np.lexsort((units.xy[:, 1], units.xy[:, 0]))
    assert order.tolist() == list(range(units.n_units)), "places numbered in (x, y) order"


def test_venues_70_cm_apart_stay_apart_unless_a_tolerance_joins_them(tmp_path):
    path = tmp_path / "venues.csv"
    # 0.7 m apart in latitude; the third point 10 cm from the first
    path.write_text(
        "user,time,lat,lon\n"
        "a,2024-01-01T10:00:00Z,40.7000000,-74.0\n"
        "b,2024-01-01T10:00:00Z,40.7000063,-74.0\n"
        "c,2024-01-01T10:00:00Z,40.7000009,-74.0\n"
        "d,2024-01-01T10:00:00Z,40.7000000,-74.0\n"
    )
    exact = load_dataset(str(path), ReaderOptions(use_cache=False))
    traces = generalize(exact.events, Profile.parse("raw", "all"))
    assert traces.n_units == 3, "identical coordinates only"
    assert traces.trace(0).tolist() == traces.trace(3).tolist()
    near = load_dataset(str(path), ReaderOptions(use_cache=False, place_tolerance_m=1.0))
    assert generalize(near.events, Profile.parse("raw", "all")).n_units == 1


def test_the_option_is_checked_and_reaches_the_cli(tmp_path, capsys):
    from privacy_studio.cli import main

    with pytest.raises(ValueError, match="metres"):
        ReaderOptions(place_tolerance_m=-1)
    path = tmp_path / "venues.csv"
    path.write_text("user,time,lat,lon\na,0,40.7,-74.0\nb,0,40.7000063,-74.0\n")
    out = tmp_path / "out.json"
    args = ["risk", str(path), "--spatial", "raw", "--temporal", "all", "--p", "1", "--json", str(out)]
    assert main([*args, "--place-tolerance", "1", "--no-cache"]) == 0
    assert '"d": 1' in out.read_text().replace("\n", "")
    assert main([*args, "--no-cache"]) == 0
    assert '"d": 2' in out.read_text().replace("\n", "")


def coordinate_events(tolerance_km: float):
    rng = np.random.default_rng(5)
    n = 600
    spot = rng.integers(0, 12, n)
    jitter = rng.integers(0, 3, n) * 0.0003  # three points 30 cm apart at every spot
    events = build_event_table(
        np.asarray([f"u{k}" for k in rng.integers(0, 60, n)]),
        1_700_000_000 + rng.integers(0, 86400, n),
        None,
        x_km=(spot % 4) * 0.5 + jitter,
        y_km=(spot // 4) * 0.5 + 0.0,
    )
    events.place_tolerance_km = tolerance_km
    return events


def test_duckdb_has_the_same_places_and_refuses_a_tolerance():
    risk = RiskSettings(
        ["raw"], ["6h"], p_values=[1, 2], samples=60, measures=["unicity", "kanon"], exact_budget=0
    )
    events = coordinate_events(0.0)
    expected = [comparable(r) for r in run_grid(events, risk)]
    n_bins = next(run_grid(events, RiskSettings(["grid:100"], ["6h"], p_values=[1]))).d
    assert expected[0]["d"] == 36 * n_bins, "12 spots x 3 points 30 cm apart"
    with open_engine("duckdb", threads=1) as engine:
        assert [comparable(r) for r in engine.run_grid(DatasetOf(events, None), risk)] == expected
        with pytest.raises(ValueError, match="--engine numba"):
            list(engine.run_grid(DatasetOf(coordinate_events(0.001), None), risk))
    assert next(run_grid(coordinate_events(0.001), risk)).d == 12 * n_bins
