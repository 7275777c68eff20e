"""Power-law fit of risk against coarseness: exact laws recovered, plain regression agreed, sizes defined."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.generalize import SpatialLevel, TemporalLevel
from privacy_studio.core.tradeoff.powerlaw import (
    GuardedPowerLaw,
    fit_power_law,
    guarded_text,
    unit_area_km2,
    unit_areas,
    width_hours,
)


def test_exact_law_is_recovered_and_inverted():
    size = np.array([1.0, 6.0, 12.0, 168.0, 4.0, 24.0])
    risk = 0.9 * size**-0.7
    fit = fit_power_law([f"p{i}" for i in range(6)], size, risk)
    assert fit.exponent == pytest.approx(-0.7) and fit.prefactor == pytest.approx(0.9)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.size_for(0.05) == pytest.approx((0.05 / 0.9) ** (1 / -0.7))
    assert fit.predict(fit.size_for(0.05)) == pytest.approx(0.05)
    inside = GuardedPowerLaw(fit, (1.0, 168.0))
    assert "not a measurement" in guarded_text(inside, 0.05, "ε₄", [], np.zeros(0), np.zeros(0))


@given(
    st.lists(
        st.tuples(st.floats(0.1, 1000), st.floats(1e-4, 1.0)),
        min_size=2,
        max_size=10,
        unique_by=lambda r: round(math.log(r[0]), 2),
    )
)
def test_fit_equals_plain_least_squares(rows):
    xs = [math.log(s) for s, _ in rows]
    ys = [math.log(r) for _, r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    fit = fit_power_law([str(i) for i in range(len(rows))], [s for s, _ in rows], [r for _, r in rows])
    assert fit.exponent == pytest.approx(slope, rel=1e-6, abs=1e-9)
    assert fit.log_prefactor == pytest.approx(intercept, rel=1e-6, abs=1e-9)
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    ss_tot = sum((y - my) ** 2 for y in ys)
    assert fit.r2 == pytest.approx(1 - ss_res / ss_tot if ss_tot > 0 else 1.0, abs=1e-6)


def test_zero_risk_profiles_are_left_out_by_name():
    fit = fit_power_law(["a", "b", "c"], np.array([1.0, 2.0, 4.0]), np.array([0.5, 0.25, 0.0]))
    assert fit.left_out == ["c"] and fit.n_used == 2
    with pytest.raises(ValueError, match="two different"):
        fit_power_law(["a", "b"], np.array([1.0, 1.0]), np.array([0.5, 0.4]))


def test_rising_risk_predicts_no_coarsening():
    fit = fit_power_law(["a", "b"], np.array([1.0, 2.0]), np.array([0.1, 0.2]))
    assert math.isnan(fit.size_for(0.05))
    law = GuardedPowerLaw(fit, (1.0, 2.0))
    assert "predicts no coarsening" in guarded_text(law, 0.05, "risk", [], np.zeros(0), np.zeros(0))


def test_unit_sizes():
    assert unit_area_km2(SpatialLevel.parse("grid:2"), None) == 4.0
    square = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], dtype=float)
    assert unit_area_km2(SpatialLevel.parse("district"), square) == pytest.approx(4 / 5)
    assert unit_area_km2(SpatialLevel.parse("district"), square, region_km2=10.0) == pytest.approx(2.0)
    assert math.isnan(unit_area_km2(SpatialLevel.parse("raw"), np.array([[0, 0], [1, 1], [2, 2.0]])))
    assert math.isnan(unit_area_km2(SpatialLevel.parse("raw"), None))
    assert width_hours(TemporalLevel.parse("6h"), 0) == 6.0
    assert width_hours(TemporalLevel.parse("all"), 7 * 86400) == 168.0


def test_unit_areas_from_the_data():
    from privacy_studio.core.events import LocationTable, build_event_table
    from privacy_studio.core.hierarchy import Hierarchy

    ids = np.array(["a", "b", "c", "d", "e"])
    x = np.array([0.0, 2.0, 0.0, 2.0, 1.0])
    y = np.array([0.0, 0.0, 2.0, 2.0, 1.0])
    locations = LocationTable(ids, np.full(5, np.nan), np.full(5, np.nan), x, y)
    events = build_event_table(np.array(["u"] * 5), np.arange(5), ids, locations=locations, x_km=x, y_km=y)
    hierarchy = Hierarchy.from_mapping(ids, "antenna", {"district": np.array(["n", "n", "s", "s", "s"])})
    areas = unit_areas(events, ["raw", "grid:0.5", "district", "nowhere"], hierarchy)
    # The locations cover a 2 km x 2 km square: 5 antennas share it, and so do 2 districts.
    assert areas["raw"] == pytest.approx(4 / 5) and areas["grid:0.5"] == 0.25
    assert areas["district"] == pytest.approx(4 / 2)
    assert math.isnan(areas["nowhere"])
    coords_only = build_event_table(np.array(["u"] * 5), np.arange(5), x_km=x, y_km=y)
    assert unit_areas(coords_only, ["raw"])["raw"] == pytest.approx(4 / 5)


def test_dataset_unit_areas_cover_raw_the_location_level_and_the_hierarchy():
    from types import SimpleNamespace

    from privacy_studio.core.events import LocationTable, build_event_table
    from privacy_studio.core.hierarchy import Hierarchy
    from privacy_studio.core.tradeoff.powerlaw import dataset_unit_areas

    ids = np.array(["a", "b", "c", "d"])
    x = np.array([0.0, 2.0, 0.0, 2.0])
    y = np.array([0.0, 0.0, 2.0, 2.0])
    locations = LocationTable(ids, np.full(4, np.nan), np.full(4, np.nan), x, y)
    events = build_event_table(np.array(["u"] * 4), np.arange(4) * 3600, ids, locations=locations)
    hierarchy = Hierarchy.from_mapping(ids, "antenna", {"district": np.array(["n", "n", "s", "s"])})
    areas, period = dataset_unit_areas(SimpleNamespace(events=events, hierarchy=hierarchy))
    assert areas == pytest.approx({"raw": 1.0, "antenna": 1.0, "district": 2.0})
    assert period == 3 * 3600
    no_hierarchy, _ = dataset_unit_areas(SimpleNamespace(events=events, hierarchy=None))
    assert list(no_hierarchy) == ["raw"]
