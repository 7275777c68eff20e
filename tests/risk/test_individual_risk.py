"""Records at risk, highest individual risk and records at the highest risk against slow references,
sampled and exact, and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import results_by_p, run_grid
from tests.risk import reference
from tests.risk.helpers import table_from_sets

MEASURES = ["unicity", "k_disclosure", "records_at_risk", "highest_risk", "records_at_highest_risk"]


@st.composite
def set_lists(draw, max_users: int = 10, max_d: int = 7):
    d = draw(st.integers(2, max_d))
    n = draw(st.integers(1, max_users))
    sets = [set(draw(st.lists(st.integers(0, d - 1), min_size=1, max_size=d, unique=True))) for _ in range(n)]
    return sets, d


def exact_run(sets: list[set[int]], d: int, p_values: list[int], k: int):
    settings_ = RiskSettings(
        ["raw"], ["all"], p_values=p_values, exact=True, measures=MEASURES, records_at_risk_k=k, reference_p=1
    )
    return next(run_grid(table_from_sets(sets, d), settings_))


def test_worked_example_by_hand():
    """u0 = u1 = {0, 1}, u2 = {0, 2}. At p = 1: |E({0})| = 3, |E({1})| = 2, |E({2})| = 1."""
    sets = [{0, 1}, {0, 1}, {0, 2}]
    by_p = {r.p: r for r in exact_run(sets, 3, [1, 2], k=3).by_p}
    # p = 1: every person has one of two subsets below 3 (|E| = 2 for u0, u1; |E| = 1 for u2)
    assert by_p[1].records_at_risk == pytest.approx(0.5)
    assert by_p[1].highest_risk == 1.0
    # p = 2: E = {u0, u1} (size 2) for u0 and u1, {u2} for u2: everyone below 3
    assert by_p[2].records_at_risk == 1.0
    assert by_p[2].highest_risk == 1.0
    at_k2 = {r.p: r for r in exact_run(sets, 3, [1, 2], k=2).by_p}
    assert at_k2[1].records_at_risk == pytest.approx(1 / 6)
    assert at_k2[2].records_at_risk == pytest.approx(1 / 3)
    nobody_alone = exact_run([{0, 1}, {0, 1}], 2, [1], k=2).by_p[0]
    assert nobody_alone.records_at_risk == 0.0 and nobody_alone.highest_risk == 0.5
    assert nobody_alone.records_at_highest_risk == 1.0  # everyone shares the worst exposure (|E| = 2)


def test_records_at_the_highest_risk_by_hand():
    """u0 = u1 = {0, 1}, u2 = {0, 2}: at p = 1 only u2's subset {2} is alone (|E| = 1), one of u2's two
    subsets, so (0 + 0 + 1/2) / 3 = 1/6; at p = 2, u2's one subset: 1/3."""
    by_p = {r.p: r for r in exact_run([{0, 1}, {0, 1}, {0, 2}], 3, [1, 2], k=3).by_p}
    assert by_p[1].records_at_highest_risk == pytest.approx(1 / 6)
    assert by_p[2].records_at_highest_risk == pytest.approx(1 / 3)


@settings(max_examples=30, deadline=None)
@given(set_lists(), st.integers(1, 3), st.integers(2, 5))
def test_exact_mode_matches_reference(data, p, k):
    sets, d = data
    row = exact_run(sets, d, [p], k).by_p[0]
    risks = reference.individual_risks(sets, p)
    if not risks:
        assert row.records_at_risk is None and row.highest_risk is None
        assert row.records_at_highest_risk is None
        return
    assert row.records_at_risk == pytest.approx(reference.records_at_risk(risks, k), abs=1e-12)
    assert row.highest_risk == pytest.approx(reference.highest_risk(risks), abs=1e-12)
    expected = reference.records_at_highest_risk(risks)
    assert row.records_at_highest_risk == pytest.approx(expected, abs=1e-12)
    # unicity is records at risk for k = 2, and the highest risk bounds the average risk
    assert exact_run(sets, d, [p], 2).by_p[0].records_at_risk == pytest.approx(row.unicity, abs=1e-12)
    assert row.k_disclosure <= row.highest_risk + 1e-12


@st.composite
def sampled_sizes(draw):
    """(S, R, pmax) anonymity-set sizes as the sample pass returns them: non-increasing in p, 0 past m."""
    n_s, draws, pmax = draw(st.integers(1, 8)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    sizes = np.zeros((n_s, draws, pmax), dtype=np.int64)
    for s in range(n_s):
        m = draw(st.integers(0, pmax))
        for r in range(draws):
            size = draw(st.integers(1, 20))
            for j in range(m):
                size = draw(st.integers(1, size))
                sizes[s, r, j] = size
    return sizes


@settings(max_examples=60, deadline=None)
@given(sampled_sizes(), st.integers(2, 8))
def test_sampled_summaries_match_reference(sizes, k):
    """Every engine summarizes its sampled draws with results_by_p: pooled over people and draws."""
    n_s, _, pmax = sizes.shape
    risk = RiskSettings(
        ["raw"], ["all"], p_values=list(range(1, pmax + 1)), measures=MEASURES, records_at_risk_k=k
    )
    nan = np.full(sizes.shape, np.nan)
    by_p, _ = results_by_p(sizes, sizes[:, 0, :], nan, nan, risk, set(MEASURES))
    for row in by_p:
        drawn = [int(x) for s in range(n_s) if sizes[s, 0, row.p - 1] > 0 for x in sizes[s, :, row.p - 1]]
        if not drawn:
            assert row.records_at_risk is None and row.highest_risk is None
            assert row.records_at_highest_risk is None
            continue
        assert row.records_at_risk == pytest.approx(sum(x < k for x in drawn) / len(drawn), abs=1e-12)
        assert row.highest_risk == pytest.approx(max(1 / x for x in drawn), abs=1e-12)
        at_top = sum(x == min(drawn) for x in drawn) / len(drawn)
        assert row.records_at_highest_risk == pytest.approx(at_top, abs=1e-12)
        assert row.n_draws == len(drawn)


def test_sampled_run_agrees_with_unicity_and_exact_on_the_whole_population():
    """Sampling everyone with many draws: records at risk for k = 2 is the sampled unicity, to the bit,
    and both sit near the exact values."""
    rng = np.random.default_rng(4)
    sets = [set(rng.choice(12, size=int(rng.integers(2, 6)), replace=False).tolist()) for _ in range(60)]
    sampled = RiskSettings(
        ["raw"], ["all"], p_values=[2], samples=60, draws=50, measures=MEASURES, records_at_risk_k=2
    )
    row = next(run_grid(table_from_sets(sets, 12), sampled)).by_p[0]
    assert row.records_at_risk == row.unicity
    exact = exact_run(sets, 12, [2], k=2).by_p[0]
    assert math.isclose(row.records_at_risk, exact.records_at_risk, abs_tol=0.05)
    assert row.highest_risk == exact.highest_risk
