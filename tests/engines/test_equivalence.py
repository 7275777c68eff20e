"""DuckDB and numba give identical class sizes, hence identical results, for the same seed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import fetch, open_engine
from privacy_studio.core.engines.ingest import load_source
from privacy_studio.core.engines.relational import generalize_sql
from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile, generalize, price_edge
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import (
    DST_CHANGE,
    DatasetOf,
    cell_settings,
    comparable,
    disclosure,
    disclosure_labels,
    random_city,
    unit_centres,
)

PROFILES = [("raw", "1h"), ("zone", "6h"), ("grid:1.5", "1d"), ("antenna", "all"), ("region", "30min")]


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_users=st.integers(1, 30),
    n_locations=st.integers(1, 12),
    knowledge=st.sampled_from(["uniform", "activity", "top"]),
    draws=st.integers(1, 3),
    samples=st.integers(1, 40),
    cells=st.lists(st.sampled_from(PROFILES), min_size=1, max_size=3, unique=True),
    tz=st.sampled_from(["Europe/Paris", "UTC", "America/New_York"]),
    em_samples=st.integers(1, 40),
    risk_k=st.integers(2, 6),
)
def test_duckdb_equals_numba_on_random_data(
    seed, n_users, n_locations, knowledge, draws, samples, cells, tz, em_samples, risk_k
):
    events, hierarchy = random_city(seed, n_users, n_locations, mean_events=4.0, tz=tz)
    risk = cell_settings(
        cells,
        knowledge=knowledge,
        measures=[
            "unicity",
            "kdisc",
            "kanon",
            "worst",
            "em",
            "kl",
            "records_at_risk",
            "highest_risk",
            "records_at_highest_risk",
        ],
        samples=samples,
        draws=draws,
        seed=seed,
        em_samples=em_samples,
        records_at_risk_k=risk_k,
    )
    expected = list(run_grid(events, risk, hierarchy))
    with open_engine("duckdb", threads=2) as engine:
        got = list(engine.run_grid(DatasetOf(events, hierarchy), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    for mine, theirs in zip(got, expected, strict=True):
        assert disclosure_labels(mine) == disclosure_labels(theirs)
        assert disclosure(mine) == pytest.approx(disclosure(theirs), rel=1e-9, nan_ok=True)


@pytest.mark.parametrize(
    "profile",
    [Profile.parse("raw", "1h"), Profile.parse("zone", "1d"), Profile.parse("grid:1.5", "6h")],
)
def test_traces_streamed_out_of_sql_equal_generalize_whatever_the_batch_size(profile, monkeypatch):
    """The CSR built from ``ps_gen`` in small batches (rows in any order) is generalize's, array for array."""
    events, hierarchy = random_city(7, 200, 10, mean_events=6.0)
    want = generalize(events, profile, hierarchy)
    monkeypatch.setattr(fetch, "BATCH_ROWS", 37)
    with open_engine("duckdb", threads=2) as engine:
        loaded = load_source(engine, DatasetOf(events, hierarchy), TaskControl())
        shape = generalize_sql(engine, loaded, profile)
        got = fetch.fetch_traces(engine, profile, loaded.n_users, loaded.n_events, shape)
    for name in ("indptr", "points", "counts"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        assert getattr(got, name).dtype == getattr(want, name).dtype
    assert (got.n_units, got.n_bins, got.bin_origin) == (want.n_units, want.n_bins, want.bin_origin)
    assert list(got.unit_ids) == list(want.unit_ids)


def test_events_with_coordinates_only_give_the_in_memory_units_and_disclosure():
    """Without location ids the raw units are the coordinate pairs and grid cells come from events alone."""
    rng = np.random.default_rng(2)
    n = 2000
    spot = rng.integers(0, 25, n)
    events = build_event_table(
        np.asarray([f"u{k}" for k in rng.integers(0, 150, n)]),
        DST_CHANGE + rng.integers(0, 3 * 86400, n),
        None,
        x_km=(spot % 5) * 0.7 + 0.1,
        y_km=(spot // 5) * 0.9 + 0.2,
    )
    risk = RiskSettings(
        exact_budget=0,
        spatial=["raw", "grid:1"],
        temporal=["6h"],
        p_values=[1, 2, 3],
        samples=120,
        draws=2,
        em_samples=50,
    )
    expected = list(run_grid(events, risk))
    with open_engine("duckdb") as engine:
        got = list(engine.run_grid(DatasetOf(events, None), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    for mine, theirs in zip(got, expected, strict=True):
        assert disclosure_labels(mine) == disclosure_labels(theirs)
        assert disclosure(mine) == pytest.approx(disclosure(theirs), rel=1e-9, nan_ok=True)
        assert unit_centres(mine) == pytest.approx(unit_centres(theirs), rel=1e-9, nan_ok=True)


#: Amounts on and one double below the edges of 3 and 7 bins per factor of ten, where log10 alone may err.
EDGES = [price_edge(k, n) for n in (3, 7) for k in range(-2, 8)]
AMOUNTS = [0.0, 0.01, 1.0, 2.154, 4.33, 10.0, 15.13, 43.78, 100.0, 146.0, -15.13, -100.0, 999.99]
AMOUNTS += EDGES + [float(np.nextafter(e, 0.0)) for e in EDGES] + [-e for e in EDGES[:5]]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_users=st.integers(1, 25),
    n_locations=st.integers(1, 10),
    knowledge=st.sampled_from(["uniform", "activity", "top"]),
    price=st.lists(st.sampled_from(["none", "1", "3", "7"]), min_size=1, max_size=3, unique=True),
    cells=st.lists(st.sampled_from(PROFILES), min_size=1, max_size=2, unique=True),
    refunds=st.booleans(),
)
def test_duckdb_equals_numba_with_price_bins(seed, n_users, n_locations, knowledge, price, cells, refunds):
    """DuckDB computes the price bin in SQL: same bins, points and class sizes as numba's generalize."""
    events, hierarchy = random_city(seed, n_users, n_locations, mean_events=4.0)
    rng = np.random.default_rng(seed)
    pool = [a for a in AMOUNTS if refunds or a >= 0]
    mixed = np.where(rng.random(events.n_events) < 0.5, rng.choice(pool, events.n_events), 0.0)
    lognormal = np.round(rng.lognormal(3.0, 1.2, events.n_events), 2)
    events = replace(events, amount=np.where(mixed != 0, mixed, lognormal))
    risk = cell_settings(
        cells,
        knowledge=knowledge,
        measures=["unicity", "kdisc", "kanon", "worst", "em", "kl"],
        samples=30,
        seed=seed,
        em_samples=20,
        price=price,
    )
    expected = list(run_grid(events, risk, hierarchy))
    with open_engine("duckdb", threads=2) as engine:
        got = list(engine.run_grid(DatasetOf(events, hierarchy), risk))
    assert [comparable(r) | {"price": r.price} for r in got] == [
        comparable(r) | {"price": r.price} for r in expected
    ]
    for mine, theirs in zip(got, expected, strict=True):
        assert disclosure(mine) == pytest.approx(disclosure(theirs), rel=1e-9, nan_ok=True)


def test_price_bins_in_sql_need_an_amount_on_every_event():
    events, hierarchy = random_city(1, 5, 3, mean_events=2.0)
    risk = cell_settings([("raw", "1h")], price=["3"], measures=["unicity"])
    with open_engine("duckdb") as engine, pytest.raises(ValueError, match="amount column"):
        list(engine.run_grid(DatasetOf(events, hierarchy), risk))
