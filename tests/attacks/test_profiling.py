"""Profiling attack: every histogram distance against scipy on dense vectors, rank/top-k against a loop,
and the accuracy curve on planted identities."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial import distance

from privacy_studio.core.generalize import SpatialLevel
from privacy_studio.core.kernels.attacks import rank_of_target
from privacy_studio.core.measures.attacks.planted import planted_pair
from privacy_studio.core.measures.attacks.profiling import (
    accuracy_at,
    profiling_attack,
    profiling_costs,
    run_profiling,
)
from tests.attacks.test_matching import users, vectors

N_BINS = 6


def dense(rows: list[dict[int, int]]) -> np.ndarray:
    out = np.zeros((len(rows), N_BINS))
    for i, row in enumerate(rows):
        for b, c in row.items():
            out[i, b] = c
    return out


def reference_cost(p: np.ndarray, q: np.ndarray, name: str) -> float:
    p1, q1 = p / p.sum(), q / q.sum()
    if name == "js":
        return distance.jensenshannon(p1, q1) ** 2  # scipy returns the square root, natural log
    if name == "cosine":
        return distance.cosine(p, q)
    if name == "l1":
        return float(np.abs(p1 - q1).sum())
    return -float(p1 @ q1)


@given(first=users, second=users, name=st.sampled_from(["js", "cosine", "l1", "dot"]))
def test_costs_equal_scipy_on_dense_histograms(first, second, name):
    got = profiling_costs(vectors(first, N_BINS), vectors(second, N_BINS), name)
    p, q = dense(first), dense(second)
    want = np.array([[reference_cost(p[i], q[j], name) for j in range(len(q))] for i in range(len(p))])
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def top_k_by_orderings(row: np.ndarray, target: int, k: int) -> float:
    """Share of the cost-sorted orders of the columns (ties in any order) with the target in the first k."""
    orders = [p for p in itertools.permutations(range(len(row))) if all(np.diff(row[list(p)]) >= 0)]
    return sum(target in p[:k] for p in orders) / len(orders)


@given(
    costs=st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=6),
    seed=st.integers(0, 100),
)
def test_rank_of_target_and_tied_top_k_equal_loops(costs, seed):
    c = np.asarray(costs, dtype=float)
    target = np.random.default_rng(seed).integers(-1, 4, size=len(c))
    better, tied = rank_of_target(c, target)
    want_b = [-1 if t < 0 else sum(c[u, v] < c[u, t] for v in range(4)) for u, t in enumerate(target)]
    want_t = [
        -1 if t < 0 else sum(c[u, v] == c[u, t] and v != t for v in range(4)) for u, t in enumerate(target)
    ]
    assert better.tolist() == want_b and tied.tolist() == want_t
    paired = [u for u in range(len(c)) if target[u] >= 0]
    if paired:
        got = accuracy_at(c, target, (1, 2, 3))
        for k in (1, 2, 3):
            want = np.mean([top_k_by_orderings(c[u], target[u], k) for u in paired])
            assert got[f"top_{k}"] == pytest.approx(want)


def test_top_k_does_not_count_ties_as_wins():
    # Row 0's partner ties with both other columns (no overlap with anyone): a one-in-three guess.
    costs = np.array([[0.7, 0.7, 0.7], [0.9, 0.1, 0.5], [0.9, 0.5, 0.2]])
    out = accuracy_at(costs, np.array([0, 1, 2]), (1, 2))
    assert out["top_1"] == pytest.approx((1 / 3 + 1 + 1) / 3)
    assert out["top_2"] == pytest.approx((2 / 3 + 1 + 1) / 3)


def test_accuracy_and_top_k_by_hand():
    costs = np.array([[0.1, 0.2, 0.9], [0.3, 0.1, 0.2], [0.5, 0.4, 0.6]])
    # Assignment: 0->0, 1->2, 2->1; truth 0->0, 1->1, 2->2.
    out = accuracy_at(costs, np.array([0, 1, 2]), (1, 2))
    assert out["accuracy"] == pytest.approx(1 / 3)
    assert out["top_1"] == pytest.approx(2 / 3)  # rows 0 and 1 rank their truth first
    assert out["top_2"] == pytest.approx(2 / 3)


def test_disjoint_histograms_are_guessed_not_matched_by_position():
    n = 30
    first = vectors([{0: 1} for _ in range(n)], N_BINS)
    second = vectors([{1: 1} for _ in range(n)], N_BINS)
    curve = profiling_attack(first, second, np.arange(n), sizes=(10,), top_k=(1, 5))
    for row in curve:
        assert row["correct"] <= row["population"] // 2
        assert row["top_1"] == pytest.approx(1 / row["population"])
        assert row["top_5"] == pytest.approx(5 / row["population"])


def test_unknown_distance_is_refused():
    v = vectors([{0: 1}], N_BINS)
    with pytest.raises(ValueError, match="unknown distance"):
        profiling_costs(v, v, "euclid")
    with pytest.raises(ValueError, match="at least 1, got -3"):
        profiling_attack(v, v, np.zeros(1, dtype=np.int64), sizes=(-3,))
    with pytest.raises(ValueError, match="at least 1, got 0"):
        profiling_attack(v, v, np.zeros(1, dtype=np.int64), top_k=(0,))


def test_planted_periods_curve():
    a, b = planted_pair(150, shift_weeks=1, seed=11)
    result = run_profiling(a, b, SpatialLevel.parse("raw"), hour_of_week=True, sizes=(20, 50, 100))
    assert [r["population"] for r in result.curve] == [20, 50, 100, 150]
    assert all(r["accuracy"] >= 0.9 for r in result.curve)
    assert all(r["top_1"] <= r["top_5"] <= r["top_10"] for r in result.curve)
