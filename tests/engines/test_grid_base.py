"""One pass over the events per grid: which grids are coarsened from ``ps_base``, and that a coarsened
grid gives the in-memory numbers where the bins of different widths start at different hours."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.engines import open_engine
from privacy_studio.core.engines.ingest import Loaded, load_source
from privacy_studio.core.engines.relational import _LoadedEvents, grid_base, shared_base
from privacy_studio.core.generalize import MONDAY_EPOCH, Profile
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.runner import DerivationPlan, run_grid
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


@pytest.mark.parametrize(
    ("cells", "base"),
    [
        ([("raw", "1h"), ("zone", "6h"), ("region", "1w")], ("raw", "1h")),
        ([("zone", "1d"), ("region", "1h"), ("zone", "1h")], ("zone", "1h")),  # no raw: the finest level
        ([("antenna", "1h"), ("region", "1d")], ("antenna", "1h")),
        ([("raw", "1h"), ("antenna", "1d")], None),  # raw and antenna: neither derives from the other
        ([("zone", "1h"), ("grid:1.5", "1h")], None),
    ],
)
def test_the_shared_base_is_the_in_memory_engines_base_when_every_profile_derives_from_it(cells, base):
    events, hierarchy = random_city(5, 20, 9, mean_events=4.0)
    profiles = [Profile.parse(s, t) for s, t in cells]
    with open_engine("duckdb", threads=1) as engine:
        load = load_source(engine, DatasetOf(events, hierarchy), TaskControl())
        got = shared_base(load, profiles, DerivationPlan(_LoadedEvents(load), hierarchy))
    assert got == (None if base is None else Profile.parse(*base))


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
    # each profile coarsened from the same kept traces as in memory (zone from raw, region from zone)
    assert [r.derived_from for r in got] == [r.derived_from for r in expected]
    sources = {r.label: r.derived_from for r in got}
    assert sources["raw × 30min"] is None and sources["zone × 1h"].startswith("raw")
    assert all(sources[f"region × {w}"].split(" ×")[0] in ("zone", "region") for w in ("all", "1d", "1w"))
