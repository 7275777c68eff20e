"""Masking methods: MDAV against a record-by-record reference and its group sizes, rank swapping's marginal
and window, noise variance, and information loss."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.masking import (
    add_noise,
    information_loss,
    mask,
    mdav_groups,
    microaggregate,
    rank_swap,
    rank_swap_distribution,
    window_ranks,
)
from tests.attacks import reference

tables = st.tuples(st.integers(1, 40), st.integers(1, 3), st.integers(0, 10_000))


def random_table(n: int, m: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, m)) * np.arange(1, m + 1)


@given(shape=tables, k=st.integers(1, 6))
def test_mdav_equals_reference_and_groups_have_k(shape, k):
    x = random_table(*shape)
    if k > len(x):
        with pytest.raises(ValueError, match="group size"):
            mdav_groups(x, k)
        return
    group = mdav_groups(x, k)
    sizes = np.bincount(group)
    assert sizes.min() >= k and (len(x) < k or sizes.max() <= 2 * k - 1 or len(sizes) == 1)
    got = sorted(sorted(np.flatnonzero(group == g).tolist()) for g in range(len(sizes)))
    assert got == sorted(sorted(g) for g in reference.mdav(x, k))


def test_microaggregation_replaces_by_group_means():
    x = random_table(30, 2, 1)
    masked = microaggregate(x, 4)
    group = mdav_groups(x, 4)
    for g in np.unique(group):
        np.testing.assert_allclose(
            masked[group == g], np.tile(x[group == g].mean(axis=0), ((group == g).sum(), 1))
        )
    np.testing.assert_allclose(masked.mean(axis=0), x.mean(axis=0))


@given(shape=tables, p=st.floats(1.0, 50.0), swap_seed=st.integers(0, 1000))
def test_rank_swap_keeps_marginals_and_window(shape, p, swap_seed):
    x = random_table(*shape)
    y = rank_swap(x, p, np.random.default_rng(swap_seed))
    w = window_ranks(len(x), p)
    for j in range(x.shape[1]):
        assert np.array_equal(np.sort(x[:, j]), np.sort(y[:, j]))
        rank_x = np.argsort(np.argsort(x[:, j], kind="stable"), kind="stable")
        rank_y = np.searchsorted(np.sort(x[:, j]), y[:, j])
        assert np.abs(rank_x - rank_y).max() <= w


def test_rank_swap_moves_values():
    x = random_table(200, 2, 3)
    y = rank_swap(x, 5.0, np.random.default_rng(0))
    assert (x != y).mean() > 0.5


def test_p_distribution_keeps_marginals():
    x = random_table(100, 3, 4)
    y = rank_swap_distribution(x, 10.0, np.random.default_rng(1))
    for j in range(3):
        assert np.array_equal(np.sort(x[:, j]), np.sort(y[:, j]))
    assert information_loss(x, y)["variances"] == pytest.approx(0.0, abs=1e-12)


def test_additive_noise_variance_is_k_times_variance():
    x = random_table(20_000, 2, 5)
    y = add_noise(x, 0.5, np.random.default_rng(2))
    np.testing.assert_allclose((y - x).var(axis=0), 0.5 * x.var(axis=0), rtol=0.05)


def test_information_loss_components():
    x = random_table(50, 3, 6)
    assert information_loss(x, x) == {
        "means": 0.0,
        "variances": 0.0,
        "covariances": 0.0,
        "correlations": 0.0,
        "score": 0.0,
    }
    shifted = x + x.std(axis=0)
    assert information_loss(x, shifted)["means"] == pytest.approx(1.0)
    assert information_loss(x, 2 * x)["variances"] == pytest.approx(3.0)
    assert information_loss(x, 2 * x)["correlations"] == pytest.approx(0.0, abs=1e-12)


def test_bad_inputs_have_clear_messages():
    x = random_table(5, 2, 0)
    with pytest.raises(ValueError, match="between 1 and the number of records"):
        mask(x, "micro", k=6)
    with pytest.raises(ValueError, match="unknown masking method"):
        mask(x, "shuffle")
    with pytest.raises(ValueError, match="record 2, attribute 1"):
        mask(np.array([[1.0, 2.0], [np.nan, 1.0]]), "noise")
    with pytest.raises(ValueError, match="percent"):
        mask(x, "rankswap", p=0)
    with pytest.raises(ValueError, match="5 x 2 but masked file is 5 x 1"):
        information_loss(x, x[:, :1])  # message names both shapes
