"""The noise matches the manifest: OpenDP's calibration, the error figures, and repeated runs within them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.aggregate import AggregateOptions, prepare_aggregate
from privacy_studio.core.aggregate.figures import map_loss
from privacy_studio.core.aggregate.noise import bound_covering, calibrate, noise_distribution
from privacy_studio.core.utility import _spread_error
from tests.aggregate.conftest import START, dataset_of


def test_laplace_scale_is_bound_over_epsilon_and_its_error_in_closed_form():
    m = calibrate(0.5, 0.0, 4)
    assert m.name == "discrete Laplace" and m.library == "opendp" and m.library_version.startswith("0.16")
    assert m.scale == pytest.approx(8.0) and m.sensitivity == 4
    # discrete Laplace: P(x) ∝ a^|x|, a = e^(-1/scale): E|X| = 2a / (1 - a²), P(|X| > b) = 2 a^(b+1) / (1 + a)
    a = math.exp(-1 / m.scale)
    assert m.expected_abs_error == pytest.approx(2 * a / (1 - a * a), rel=1e-9)
    assert m.expected_abs_error_empty == pytest.approx(a / (1 - a * a), rel=1e-9)  # E[max(X, 0)]
    b = m.error_bound_95
    assert 2 * a ** (b + 1) / (1 + a) <= 0.05 < 2 * a**b / (1 + a)


def test_gaussian_uses_the_zcdp_conversion_and_beats_laplace_for_large_bounds():
    gauss, laplace = calibrate(1.0, 1e-6, 50), calibrate(1.0, 0.0, 50)
    assert gauss.name == "discrete Gaussian" and gauss.sensitivity == pytest.approx(math.sqrt(50))
    assert gauss.rho == pytest.approx(50 / (2 * gauss.scale**2), rel=1e-6)  # ρ = Δ₂² / 2σ²
    assert gauss.expected_abs_error < laplace.expected_abs_error


def test_the_95_bound_is_the_smallest_covering_one():
    support, pmf = noise_distribution("discrete Gaussian", 3.0)
    b = bound_covering(support, pmf, 0.95)
    inside = pmf[np.abs(support) <= b].sum()
    assert inside >= 0.95 > pmf[np.abs(support) <= b - 1].sum()


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_repeated_runs_stay_within_the_manifest_figures(delta):
    # 40 places x 5 days, 60 people in every cell: far above the noise, so clamping at 0 never acts
    rows = [
        (f"p{place}-{day}-{i}", START + day * 86400 + 3600, str(place))
        for place in range(40)
        for day in range(5)
        for i in range(60)
    ]
    dataset = dataset_of(rows)
    options = AggregateOptions("raw", "1d", "density", 1.0, delta, 3)
    errors = []
    for _ in range(6):
        prepared = prepare_aggregate(dataset, options)
        assert (prepared.counts.bounded == 60).all() and (prepared.released > 0).all()
        errors.append(prepared.released - prepared.counts.bounded)
    errors = np.abs(np.concatenate(errors))  # 1,200 cells
    m = prepared.mechanism
    assert (errors <= m.error_bound_95).mean() >= 0.93
    assert errors.mean() == pytest.approx(m.expected_abs_error, rel=0.12)


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=30))
def test_map_loss_is_the_tradeoff_loss_with_nothing_to_spread(pairs):
    true, released = (np.asarray(v, dtype=np.int64) for v in zip(*pairs, strict=True))
    cells = np.arange(len(true))
    spread = _spread_error(true, cells, cells, released, np.ones(len(true)))  # one edge per cell, to itself
    assert map_loss(true, released) == pytest.approx(spread)


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_empty_cells_clamped_at_zero_err_by_the_empty_cell_figure(delta):
    rows = [("p0", START + 3600, "0"), *[(f"q{i}", START + 9 * 86400, str(i % 50)) for i in range(50)]]
    dataset = dataset_of(rows)  # 50 places x 10 days: all but 51 of 500 cells are empty
    options = AggregateOptions("raw", "1d", "density", 1.0, delta, 3)
    errors = []
    for _ in range(6):
        prepared = prepare_aggregate(dataset, options)
        empty = prepared.counts.true == 0
        errors.append(prepared.released[empty])  # the true count is 0: the released value is the error
    m = prepared.mechanism
    assert np.concatenate(errors).mean() == pytest.approx(m.expected_abs_error_empty, rel=0.12)
