"""One pass over the events per grid: which grids are coarsened from ``ps_base``, and that a coarsened
grid gives the in-memory numbers where the bins of different widths start at different hours."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.engines import open_engine
from privacy_studio.core.engines.ingest import Loaded
from privacy_studio.core.engines.relational import coarse_source, grid_base
from privacy_studio.core.generalize import MONDAY_EPOCH, Profile, Traces
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import DatasetOf, cell_settings, comparable, random_city


def loaded(located: bool = True, n_events: int = 10) -> Loaded:
    start = MONDAY_EPOCH + 7 * 86400 + 5 * 3600 + 17  # a Tuesday 05:00:17: no width starts there
    return Loaded(
        1, n_events, "UTC", np.asarray(["a"]), None, False, located, False, (start, start + 9 * 86400), None
    )


@pytest.mark.parametrize(
    ("cells", "width"),
    [
        ([("raw", "1h"), ("zone", "6h"), ("region", "1w"), ("raw", "all")], 3600),
        ([("zone", "all"), ("region", "all")], None),
        ([("raw", "30min"), ("zone", "1h")], 1800),
        ([("raw", "1h"), ("zone", "90min")], "none"),  # 90 minutes is no multiple of an hour
        ([("raw", "1h"), ("grid:1.5", "1h")], "none"),  # km cells come from coordinates
        ([("raw", "1h")], "none"),  # one profile: nothing to share
    ],
)
def test_the_base_is_the_finest_width_when_every_width_is_a_multiple_of_it(cells, width):
    profiles = [Profile.parse(s, t) for s, t in cells]
    base = grid_base(loaded(), profiles)
    if width == "none":
        assert base is None
    else:
        assert base is not None and base.width == width
        assert (base.origin - MONDAY_EPOCH) % (width or 1) == 0  # aligned to Monday as time_bins aligns


def test_no_base_without_a_location_on_every_event_or_without_events():
    profiles = [Profile.parse("raw", "1h"), Profile.parse("zone", "1d")]
    assert grid_base(loaded(located=False), profiles) is None
    assert grid_base(loaded(n_events=0), profiles) is None
    assert grid_base(loaded(), [Profile.parse("raw", "1h", 3), Profile.parse("zone", "1d")]) is None


@pytest.mark.parametrize("tz", ["Europe/Paris", "America/New_York"])
def test_a_grid_coarsened_across_a_clock_change_equals_the_in_memory_run(tz):
    events, hierarchy = random_city(17, 60, 9, mean_events=12.0, tz=tz)
    cells = [("raw", "30min"), ("zone", "6h"), ("region", "1d"), ("antenna", "1w"), ("zone", "all")]
    risk = cell_settings(cells, measures=["unicity", "kdisc", "kanon", "worst"], samples=40, draws=2, seed=4)
    expected = list(run_grid(events, risk, hierarchy))
    with open_engine("duckdb", threads=1) as engine:
        got = list(engine.run_grid(DatasetOf(events, hierarchy), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]


def _traces(spatial: str, temporal: str, price: int | None = None) -> Traces:
    """Empty traces of a profile: what ``coarse_source`` looks at is the profile."""
    return Traces(Profile.parse(spatial, temporal, price), np.zeros(1, np.int64), np.zeros(0, np.int32),
                  np.zeros(0, np.int32), 1, 1, 1, np.asarray(["a"]), np.zeros((1, 2)), 0)  # fmt: skip


@pytest.mark.parametrize(
    ("last", "profile", "from_last"),
    [
        (("zone", "6h"), ("zone", "12h"), True),
        (("zone", "1h"), ("zone", "all"), True),
        (("zone", "6h"), ("zone", "1h"), False),  # finer than the last: from the base
        (("zone", "6h"), ("zone", "90min"), False),  # 90 minutes do not hold whole 6-hour bins
        (("zone", "all"), ("zone", "1w"), False),
        (("zone", "1h"), ("region", "1h"), False),  # other places: from the base
        (None, ("zone", "1h"), False),
    ],
)
def test_a_profile_coarsens_from_the_last_one_at_its_places_when_its_bins_hold_the_last_ones(
    last, profile, from_last
):
    base = _traces("raw", "30min")
    previous = None if last is None else _traces(*last)
    source = coarse_source(base, previous, Profile.parse(*profile))
    assert source is (previous if from_last else base)


@pytest.mark.parametrize("tz", ["Europe/Paris", "America/New_York"])
def test_a_grid_coarsened_in_chains_at_each_level_equals_the_in_memory_run(tz):
    events, hierarchy = random_city(23, 60, 9, mean_events=12.0, tz=tz)
    cells = [("raw", "30min"), ("raw", "1h"), ("raw", "1d"), ("zone", "1h"), ("zone", "6h"), ("zone", "1w"),
             ("zone", "all"), ("region", "all"), ("region", "1d"), ("region", "1w")]  # fmt: skip
    risk = cell_settings(cells, measures=["unicity", "kdisc", "kanon", "worst"], samples=40, draws=2, seed=4)
    expected = list(run_grid(events, risk, hierarchy))
    with open_engine("duckdb", threads=1) as engine:
        got = list(engine.run_grid(DatasetOf(events, hierarchy), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
