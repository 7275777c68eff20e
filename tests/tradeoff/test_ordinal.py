"""Kendall's tau table against a plain pair-counting tau-b, and the 'same Pareto analysis' flag."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.tradeoff import ordinal_equivalence
from privacy_studio.core.tradeoff.ordinal import EQUIVALENT_MESSAGE


def reference_tau_b(x, y):
    """Tau-b from concordant, discordant and tied pairs."""
    conc = disc = tie_x = tie_y = 0
    for i, j in combinations(range(len(x)), 2):
        dx, dy = x[i] - x[j], y[i] - y[j]
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tie_x += 1
        elif dy == 0:
            tie_y += 1
        elif dx * dy > 0:
            conc += 1
        else:
            disc += 1
    denom = math.sqrt((conc + disc + tie_x) * (conc + disc + tie_y))
    return (conc - disc) / denom if denom else math.nan


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)), min_size=3, max_size=15))
def test_tau_matches_pair_counting(rows):
    cols = {name: np.asarray([r[k] for r in rows], dtype=float) for k, name in enumerate(["u", "em", "kl"])}
    table = ordinal_equivalence(cols)
    for i, a in enumerate(table.names):
        for j, b in enumerate(table.names):
            want = 1.0 if i == j else reference_tau_b(cols[a], cols[b])
            got = table.tau[i, j]
            assert (math.isnan(want) and math.isnan(got)) or abs(got - want) < 1e-12


def test_monotone_measures_are_equivalent():
    u = np.array([0.97, 0.79, 0.42, 0.0017, 0.14])
    table = ordinal_equivalence({"unicity": u, "k_disclosure": u**0.5 + 0.1, "em": np.log1p(u)})
    assert table.all_equivalent
    assert table.message() == EQUIVALENT_MESSAGE


def test_a_swap_breaks_equivalence_and_missing_values_are_skipped():
    table = ordinal_equivalence(
        {"unicity": np.array([0.9, 0.5, 0.1, np.nan]), "em": np.array([0.3, 0.4, 0.1, 0.2])}
    )
    assert not table.all_equivalent
    assert table.n_profiles[0, 1] == 3
    assert abs(table.tau[0, 1] - 1 / 3) < 1e-12
    assert "do not all rank" in table.message()
    assert "nothing to compare" in ordinal_equivalence({"unicity": np.array([0.1, 0.2])}).message()


X_VALUES = st.sampled_from([0.0, 0.5, 1.0, 2.0, math.nan])
Y_VALUES = st.sampled_from([0.0, 1.0, 3.0, math.nan])


@given(st.lists(st.tuples(X_VALUES, Y_VALUES), min_size=0, max_size=14))
def test_tau_with_unknown_values_matches_pair_counting_and_scipy_on_the_profiles_both_know(rows):
    """The written-out tau-b (scipy's wrapper was too slow for the window's thread) against the pair count
    and scipy itself, over the profiles where both measures are known."""
    import warnings

    from scipy.stats import kendalltau

    from privacy_studio.core.tradeoff.ordinal import kendall_tau_b

    x, y = (np.asarray([r[k] for r in rows], dtype=float) for k in (0, 1))
    both = np.isfinite(x) & np.isfinite(y)
    got = kendall_tau_b(x, y)
    want = reference_tau_b(x[both], y[both]) if both.sum() > 1 else math.nan
    assert (math.isnan(want) and math.isnan(got)) or abs(got - want) < 1e-12
    if both.sum() > 1:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on constant input, then gives NaN
            theirs = kendalltau(x[both], y[both]).statistic
        assert (math.isnan(theirs) and math.isnan(got)) or abs(got - theirs) < 1e-12
    table = ordinal_equivalence({"a": x, "b": y})
    assert table.n_profiles[0, 1] == both.sum()
