"""Matching attack: the bivariate-Poisson score against scipy.stats, the sparse kernel against a dense loop,
eccentricity against a plain loop, and recovery of planted identities."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.generalize import Profile
from privacy_studio.core.kernels.attacks import eccentricity, poisson_log_ratio
from privacy_studio.core.measures.attacks.matching import (
    assign_max,
    matching_attack,
    matching_scores,
    precision_recall_curve,
    run_matching,
)
from privacy_studio.core.measures.attacks.planted import planted_pair
from privacy_studio.core.measures.attacks.sparse_users import UserVectors, shuffled
from tests.attacks import reference


def vectors(rows: list[dict[int, int]], n_bins: int) -> UserVectors:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    keys, vals = [], []
    for i, row in enumerate(rows):
        for b in sorted(row):
            keys.append(b)
            vals.append(row[b])
        indptr[i + 1] = len(keys)
    return UserVectors(indptr, np.asarray(keys, dtype=np.int64), np.asarray(vals, dtype=float), n_bins)


users = st.lists(
    st.dictionaries(st.integers(0, 5), st.integers(1, 4), min_size=1, max_size=4), min_size=2, max_size=6
)


@given(
    a1=st.integers(0, 8),
    a2=st.integers(0, 8),
    lam1=st.floats(0.05, 5.0),
    lam2=st.floats(0.05, 5.0),
    c=st.floats(0.0, 0.95),
)
def test_log_ratio_matches_scipy_stats(a1, a2, lam1, lam2, c):
    theta = c * min(lam1, lam2)
    assert poisson_log_ratio(a1, a2, lam1, lam2, theta) == pytest.approx(
        reference.log_ratio(a1, a2, lam1, lam2, theta), rel=1e-9, abs=1e-9
    )


def test_log_ratio_worked_values():
    # One event on each side with theta = 0.5, lam = 1: P_same = e^-1.5 (0.25 + 0.5) and P_diff = e^-2.
    assert poisson_log_ratio(1, 1, 1.0, 1.0, 0.5) == pytest.approx(0.5 + np.log(0.75))
    assert poisson_log_ratio(0, 0, 2.0, 3.0, 1.0) == pytest.approx(1.0)


@given(first=users, second=users, c=st.sampled_from([0.0, 0.3, 0.5, 0.9]))
def test_sparse_scores_equal_dense_reference(first, second, c):
    got = matching_scores(vectors(first, 6), vectors(second, 6), c)
    np.testing.assert_allclose(got, reference.matching_scores(first, second, c), rtol=1e-9, atol=1e-9)


@given(first=users, second=users, seed=st.integers(0, 100))
def test_shuffled_population_gives_the_same_scores_in_its_order(first, second, seed):
    v = vectors(second, 6)
    truth = np.arange(len(first)) % (len(second) + 1) - 1  # some users without a partner
    moved, new_truth, order = shuffled(v, truth, seed)
    got = matching_scores(vectors(first, 6), moved)
    np.testing.assert_array_equal(got, matching_scores(vectors(first, 6), v)[:, order])
    assert [order[t] if t >= 0 else -1 for t in new_truth] == truth.tolist()


@given(scores=st.lists(st.lists(st.floats(-50, 50), min_size=3, max_size=3), min_size=2, max_size=5))
def test_eccentricity_equals_loop(scores):
    s = np.asarray(scores)
    chosen = np.arange(len(s)) % 3
    chosen[0] = -1
    np.testing.assert_allclose(
        eccentricity(s, chosen), reference.eccentricity(s, chosen), rtol=1e-9, atol=1e-12
    )


def test_precision_recall_by_hand():
    assignment = np.array([0, 1, 2, -1])
    ecc = np.array([3.0, 0.5, 2.0, np.nan])
    truth = np.array([0, 2, 2, 3])
    curve = precision_recall_curve(assignment, ecc, truth, (0.0, 1.0, 2.5))
    assert [r["matched"] for r in curve] == [3, 2, 1]
    assert [r["correct"] for r in curve] == [2, 2, 1]
    assert curve[0]["precision"] == pytest.approx(2 / 3) and curve[0]["recall"] == pytest.approx(2 / 4)
    assert curve[2]["precision"] == 1.0 and curve[2]["recall"] == 0.25


def test_scores_do_not_depend_on_thread_count():
    a, b = planted_pair(60, seed=3)
    from privacy_studio.core.generalize import generalize
    from privacy_studio.core.measures.attacks.shared_space import merge_tables
    from privacy_studio.core.measures.attacks.sparse_users import split_traces

    merged = merge_tables(a, b)
    first, second = split_traces(generalize(merged.events, Profile.parse("raw", "1h")), merged.n_first)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = matching_scores(first, second)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = matching_scores(first, second)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, many)


def test_planted_identities_recovered_with_high_precision():
    a, b = planted_pair(200, events=12, hours=10, seed=7)
    result = run_matching(a, b, Profile.parse("raw", "6h"), epsilons=(0.0, 1.0, 2.0))
    strict = result.curve[-1]
    assert strict["matched"] > 0
    assert strict["precision"] >= 0.9
    assert result.n_true_pairs == 200
    # The filter trades recall for precision.
    assert result.curve[0]["recall"] >= strict["recall"]


def test_without_shared_bins_the_assignment_is_a_guess_not_the_identity():
    # Nobody shares a bin: every score ties, so equal ids must not make the solver's diagonal look right.
    n = 40
    first = vectors([{i: 1} for i in range(n)], 2 * n)
    second = vectors([{n + i: 1} for i in range(n)], 2 * n)
    assignment, ecc, curve = matching_attack(first, second, np.arange(n), epsilons=(0.0,))
    assert sorted(assignment.tolist()) == list(range(n))
    assert (assignment == np.arange(n)).sum() <= 5
    assert np.isneginf(ecc).all() and curve[0]["matched"] == 0


def test_assignment_of_more_identified_than_anonymous_users():
    scores = np.array([[5.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
    assert assign_max(scores).tolist() == [0, 1, -1]


def test_bad_shared_component_is_refused():
    v = vectors([{0: 1}, {1: 2}], 2)
    with pytest.raises(ValueError, match="c must be in"):
        matching_scores(v, v, 1.0)


def test_too_large_populations_are_refused_before_allocating(monkeypatch):
    from privacy_studio.core.measures.attacks import sparse_users

    monkeypatch.setattr(sparse_users, "MAX_PAIRS", 3)
    v = vectors([{0: 1}, {1: 2}], 2)
    with pytest.raises(ValueError, match="attack a sample of the users"):
        matching_scores(v, v)
