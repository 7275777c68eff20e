"""Population extrapolation: seeded subsamples, an exact plain-Python unicity on them, trend fits."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.progress import TaskControl
from privacy_studio.core.tradeoff.extrapolation import (
    extrapolate,
    fit_trend,
    runner_estimator,
    subsample_curve,
)


def exact_unicity_p1(traces: list[set], keep: np.ndarray) -> float:
    """Share of (user, point) choices that single the user out among the kept users (p = 1, exact)."""
    kept = [traces[i] for i in keep]
    shares = [sum(1 for x in t if sum(x in o for o in kept) == 1) / len(t) for t in kept]
    return sum(shares) / len(shares)


def test_subsamples_are_seeded_sized_and_reported():
    rng = np.random.default_rng(3)
    traces = [set(rng.choice(400, size=4, replace=False).tolist()) for _ in range(200)]
    seen = []
    control = TaskControl(lambda f, m: seen.append(m))
    curve = subsample_curve(
        200, lambda keep: exact_unicity_p1(traces, keep), repeats=2, seed=7, control=control
    )
    again = subsample_curve(200, lambda keep: exact_unicity_p1(traces, keep), repeats=2, seed=7)
    assert curve.n.tolist() == [n for n in range(20, 201, 20) for _ in range(2)]
    assert np.array_equal(curve.risk, again.risk)
    assert len(seen) == 20 and "20 users (10%)" in seen[0]
    # More people in the file means fewer unique points: the trend must go down.
    assert fit_trend(curve.n, curve.risk, "power").b < 0


def test_exact_trends_are_recovered_and_labelled():
    n = np.array([100.0, 200.0, 400.0, 800.0])
    power = fit_trend(n, 0.8 * n**-0.25, "power")
    assert (power.b, np.exp(power.a), power.r2) == pytest.approx((-0.25, 0.8, 1.0))
    assert float(power.predict(1e6)) == pytest.approx(0.8 * 1e6**-0.25)
    log = fit_trend(n, 0.9 - 0.1 * np.log(n), "log")
    assert (log.a, log.b) == pytest.approx((0.9, -0.1))
    assert float(log.predict(1e9)) == 0.0  # clipped at 0, never negative
    assert "Extrapolation (not a measurement)" in power.describe(1_000_000)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="fractions"):
        subsample_curve(10, len, fractions=[0.0, 0.5])
    with pytest.raises(ValueError, match="unknown trend model"):
        fit_trend(np.array([1, 2]), np.array([0.1, 0.2]), "cubic")
    with pytest.raises(ValueError, match="two sizes"):
        fit_trend(np.array([5.0, 5.0]), np.array([0.1, 0.2]))


def test_runner_estimator_measures_the_subset_with_the_risk_engine():
    from privacy_studio.core.events import build_event_table
    from privacy_studio.core.risk.settings import RiskSettings

    rng = np.random.default_rng(5)
    traces = [set(rng.choice(25, size=3, replace=False).tolist()) for _ in range(40)]
    rows = [(f"u{i:02d}", 1_700_000_000 + k, loc) for i, t in enumerate(traces) for k, loc in enumerate(t)]
    users, times, locs = (np.asarray(c) for c in zip(*rows, strict=True))
    events = build_event_table(users, times, locs)
    settings = RiskSettings(
        spatial=["raw"], temporal=["all"], p_values=[1], measures=["unicity"], exact=True, reference_p=1
    )
    estimate = runner_estimator(events, settings, p=1)
    keep = np.array([0, 3, 4, 10, 11, 20, 33, 39])
    # User codes follow the sorted ids u00..u39, so code i is traces[i].
    assert estimate(keep) == pytest.approx(exact_unicity_p1(traces, keep), abs=1e-12)
    dataset = SimpleNamespace(events=events, hierarchy=None)  # a Dataset: measure and p by position
    assert runner_estimator(dataset, settings, "unicity", 1)(keep) == estimate(keep)
    with pytest.raises(ValueError, match="no unicity at p = 4"):
        runner_estimator(events, settings, p=4)(keep)


def _reference_interval(n, risk, population, boot, seed):
    """The bootstrap written out: resample the subsamples with replacement, refit, read at population."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(boot):
        pick = rng.integers(0, len(n), len(n))
        x, y = np.log(n[pick]), np.log(risk[pick])
        if len(np.unique(x)) < 2:
            continue
        slope = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
        values.append(min(1.0, math.exp(y.mean() - slope * x.mean() + slope * math.log(population))))
    return np.percentile(values, [2.5, 97.5])


@given(st.integers(0, 10_000), st.floats(-0.5, -0.05), st.floats(0.05, 0.9))
def test_extrapolation_interval_equals_the_bootstrap_written_out(seed, slope, scale):
    n = np.array([100.0, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    noise = np.random.default_rng(seed).normal(0, 0.05, len(n))
    risk = np.clip(scale * (n / 1000) ** slope * np.exp(noise), 1e-6, 1.0)
    result = extrapolate(n, risk, 5000, boot=60, seed=seed)
    low, high = _reference_interval(n, risk, 5000, 60, seed)
    assert result.low == pytest.approx(low) and result.high == pytest.approx(high)
    assert result.value == pytest.approx(float(fit_trend(n, risk).predict(5000)))


def test_an_exact_law_has_a_zero_width_interval_and_far_populations_are_flagged():
    n = np.array([100.0, 200, 400, 800, 1600])
    risk = 0.5 * (n / 100) ** -0.3
    near = extrapolate(n, risk, 10_000)
    assert near.low == pytest.approx(near.value) == pytest.approx(near.high)
    assert not near.far and "Bootstrap 95 % interval" in near.describe()
    far = extrapolate(n, risk, 1_000_000)
    assert far.far and "more than 10 times the 1,600 measured" in far.describe()
    assert "e+" not in far.describe()
