"""The city's geography: antenna counts, density, nested units, neighbours and shops."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.sample.layout import antenna_count, build_layout


def test_antenna_count_scales_with_users():
    assert 380 <= antenna_count(2_000) <= 440
    assert antenna_count(1_000_000) == 10_000
    counts = [antenna_count(n) for n in (1, 100, 10_000, 100_000, 10_000_000)]
    assert counts == sorted(counts) and counts[0] >= 40


@pytest.fixture(scope="module", params=[50, 2_000, 60_000])
def layout(request):
    return build_layout(request.param, np.random.default_rng(3))


def test_units_are_nested_and_sized_like_a_city(layout):
    n = layout.n_antennas
    assert len(layout.zip_ids) == len(set(layout.zip_ids.tolist())) and len(layout.district) == len(
        layout.zip_ids
    )
    assert len(layout.municipality) == len(layout.district_ids)
    assert np.all(np.bincount(layout.zip_code) > 0)  # every ZIP has antennas
    assert np.all(np.bincount(layout.district) > 0)  # every district has ZIPs
    assert np.all(np.bincount(layout.municipality) > 0)  # every municipality has districts
    assert 3 <= len(layout.municipality_ids) < len(layout.district_ids) < len(layout.zip_ids) < n
    if n >= 400:  # about 7 antennas per ZIP and 34 per district once the city is big enough
        assert 4 <= n / len(layout.zip_ids) <= 12 and 20 <= n / len(layout.district_ids) <= 50


def test_antennas_are_denser_in_the_centre(layout):
    r = np.hypot(layout.x_km, layout.y_km)
    inner = np.sum(r < np.median(r) / 2) / (np.pi * (np.median(r) / 2) ** 2)
    outer = np.sum((r >= np.median(r)) & (r < 2 * np.median(r))) / (np.pi * 3 * np.median(r) ** 2)
    assert inner > 2 * outer


def test_neighbours_are_the_nearest_other_antennas(layout):
    pts = np.column_stack([layout.x_km, layout.y_km])
    for a in range(0, layout.n_antennas, max(1, layout.n_antennas // 40)):
        d = np.hypot(*(pts - pts[a]).T)
        d[a] = np.inf
        assert a not in layout.neighbours[a]
        assert np.allclose(np.sort(d[layout.neighbours[a]]), np.sort(d)[:3])


def test_every_antenna_has_shops_nearby(layout):
    per_antenna = np.diff(layout.shop_offsets)
    assert per_antenna.min() >= 1 and per_antenna.sum() == len(layout.shop_ids)
    assert np.array_equal(layout.shop_antenna, np.repeat(np.arange(layout.n_antennas), per_antenna))
    gap = np.hypot(
        layout.shop_x_km - layout.x_km[layout.shop_antenna],
        layout.shop_y_km - layout.y_km[layout.shop_antenna],
    )
    assert gap.max() <= 0.31


def test_nearest_antenna_is_brute_force_nearest(layout):
    rng = np.random.default_rng(0)
    x, y = rng.normal(0, 10, 200), rng.normal(0, 10, 200)
    got = layout.nearest_antenna(x, y)
    d = np.hypot(layout.x_km[None, :] - x[:, None], layout.y_km[None, :] - y[:, None])
    assert np.allclose(d[np.arange(200), got], d.min(axis=1))
