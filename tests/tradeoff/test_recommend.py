"""The recommendation on hand-made grids: ceiling met, not met, ties, and the upper bound in charge."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.tradeoff import recommend

LABELS = ["zip × 1h", "zip × 1w", "district × 6h", "district × 1w", "municipality × 1w"]
RISK = np.array([0.97, 0.14, 0.42, 0.0017, 0.0005])
UPPER = np.array([0.98, 0.15, 0.44, 0.0030, 0.0010])
UTILITY = np.array([9.0, 5.0, 7.0, 4.0, 2.0])


def test_ceiling_met_picks_most_useful_under_it():
    rec = recommend(LABELS, RISK, UTILITY, 0.05, UPPER, measure="ε₄", utility_name="transport")
    assert rec.label == "district × 1w"
    assert rec.meets_ceiling == ["district × 1w", "municipality × 1w"]
    assert rec.warning is None
    assert "districts × 1 week" in rec.reasoning and "upper end" in rec.reasoning  # the profile in words
    assert "Pareto front" in rec.reasoning
    assert "ε₄ = 0.17% (upper bound 0.3%)" in rec.reasoning  # percentages, not raw fractions


def test_upper_bound_decides_not_the_estimate():
    # zip × 1w has estimate 0.14 under a 0.145 ceiling, but its upper bound 0.15 is above it.
    assert recommend(LABELS, RISK, UTILITY, 0.145, UPPER).label == "district × 1w"
    assert recommend(LABELS, RISK, UTILITY, 0.145).label == "zip × 1w"


def test_ceiling_not_met_warns_and_names_the_least_risky():
    rec = recommend(LABELS, RISK, UTILITY, 0.0001, UPPER)
    assert rec.label is None and rec.meets_ceiling == []
    assert "No profile" in rec.warning and "municipality × 1 week" in rec.warning


def test_ties_are_broken_by_bound_then_estimate_then_grid_order():
    labels = ["a", "b", "c", "d"]
    utility = np.array([6.0, 6.0, 6.0, 6.0])
    risk = np.array([0.02, 0.01, 0.01, 0.01])
    upper = np.array([0.03, 0.04, 0.03, 0.03])
    rec = recommend(labels, risk, utility, 0.05, upper)
    assert rec.label == "c"  # a and c share the lowest bound; c has the lower estimate; d ties with c
    assert "ties" in rec.reasoning
    assert recommend(labels[::-1], risk[::-1], utility, 0.05, upper[::-1]).label == "d"


def test_chosen_profile_dominated_outside_the_ceiling_is_explained():
    rec = recommend(["a", "b"], np.array([0.01, 0.01]), np.array([5.0, 5.0]), 0.05, np.array([0.06, 0.02]))
    assert rec.label == "b" and "Pareto front" in rec.reasoning
    rec = recommend(["a", "b"], np.array([0.009, 0.01]), np.array([5.0, 5.0]), 0.05, np.array([0.06, 0.02]))
    assert rec.label == "b" and "dominated by a" in rec.reasoning


def test_bad_ceiling_is_refused():
    with pytest.raises(ValueError, match="ceiling"):
        recommend(LABELS, RISK, UTILITY, -1.0)


def test_nothing_scored_says_so():
    rec = recommend(LABELS, RISK, np.full(5, np.nan), 0.05, UPPER, utility_name="epidemiology")
    assert rec.label is None and "epidemiology score yet" in rec.warning
