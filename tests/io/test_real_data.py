"""The real files in shared/real_data load with the row and user counts their README gives."""

from __future__ import annotations

import pytest

from privacy_studio.core.io import ReaderOptions, load_dataset

from .conftest import REAL_DATA

pytestmark = pytest.mark.skipif(not REAL_DATA.exists(), reason="shared real data not available")


def test_gowalla_headerless_tsv_gz() -> None:
    options = ReaderOptions(header=False, columns=["user", "time", "lat", "lon", "location"])
    ds = load_dataset(str(REAL_DATA / "gowalla_nyc" / "gowalla_events_nyc.tsv.gz"), options)
    s = ds.summary()
    assert (s["events"], s["users"], s["locations"]) == (138_957, 7_115, 21_509)
    assert (s["period_start"][:10], s["period_end"][:10]) == ("2009-04-23", "2010-10-23")
    assert s["events_per_user"]["q50"] == 5 and s["events_per_user"]["q100"] == 1794
    assert ds.report.rows_rejected == 0


def test_geolife() -> None:
    s = load_dataset(str(REAL_DATA / "geolife_privacy" / "geolife_privacy.csv")).summary()
    assert (s["events"], s["users"]) == (1_656, 20)
    assert (s["period_start"][:10], s["period_end"][:10]) == ("2007-04-12", "2012-05-07")
    assert (s["events_per_user"]["q0"], s["events_per_user"]["q50"], s["events_per_user"]["q100"]) == (
        3,
        30,
        716,
    )


def test_skmob_toy() -> None:
    ev = load_dataset(str(REAL_DATA / "skmob_privacy_toy" / "privacy_toy.csv")).events
    assert (ev.n_events, ev.n_users) == (23, 7)


def test_bandicoot_folder_and_single_file() -> None:
    folder = REAL_DATA / "bandicoot_demo"
    ds = load_dataset(str(folder))
    assert ds.events.user_ids.tolist() == ["A", "ego"]
    assert ds.events.n_events == 314 + 42 and ds.events.n_locations == 27
    ego = load_dataset(str(folder / "ego.csv"), ReaderOptions(antennas=str(folder / "antennas.csv"))).events
    counts = {
        (ego.interaction_names[i], d): int(((ego.interaction == i) & (ego.direction == d)).sum())
        for i in range(len(ego.interaction_names))
        for d in (1, -1)
    }
    assert counts == {("call", 1): 44, ("call", -1): 31, ("text", 1): 166, ("text", -1): 73}
    assert len(set(ego.location.tolist())) == 10
