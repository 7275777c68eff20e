"""Unicity's interval when each sampled person has several draws: a person's draws are alike, so the
interval is Wilson's on their effective number (Kish's design effect), never narrower than independent
draws would give, and exactly the people's own Wilson interval when their draws always agree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.measures.setsizes import SetsAtP, design_effect, unicity
from privacy_studio.core.measures.wilson import wilson_interval


def _sets(sizes: np.ndarray) -> SetsAtP:
    n = len(sizes)
    weights = np.bincount(sizes.ravel())
    nan = np.full(sizes.shape, np.nan)
    return SetsAtP(4, False, sizes, None, None, weights, nan, nan, np.ones(n), 5)


people = st.lists(st.lists(st.integers(1, 3), min_size=1, max_size=1), min_size=1, max_size=60)


@given(people)
def test_one_draw_each_is_plain_wilson(rows):
    sizes = np.array(rows, dtype=np.int64)
    share, (lo, hi) = unicity(_sets(sizes))
    unique = int((sizes == 1).sum())
    assert share == unique / len(sizes) and (lo, hi) == pytest.approx(wilson_interval(unique, len(sizes)))


@given(st.lists(st.integers(1, 3), min_size=2, max_size=60), st.integers(2, 8))
def test_draws_that_always_agree_count_as_one_person_each(per_person, draws):
    sizes = np.repeat(np.array(per_person, dtype=np.int64)[:, None], draws, axis=1)
    share, interval = unicity(_sets(sizes))
    unique = sum(s == 1 for s in per_person)
    assert share == pytest.approx(unique / len(per_person))
    assert interval == pytest.approx(wilson_interval(unique, len(per_person)))


@given(st.lists(st.lists(st.integers(1, 3), min_size=4, max_size=4), min_size=1, max_size=60))
def test_never_narrower_than_independent_draws(rows):
    sizes = np.array(rows, dtype=np.int64)
    _, (lo, hi) = unicity(_sets(sizes))
    unique = int((sizes == 1).sum())
    plain_lo, plain_hi = wilson_interval(unique, sizes.size)
    assert lo <= plain_lo + 1e-12 and hi >= plain_hi - 1e-12
    assert design_effect(sizes == 1) <= sizes.shape[1] + 1e-9


def test_coverage_with_correlated_draws_on_a_known_population():
    """People each unique with their own probability (drawn once), R = 10 draws each: the interval must
    cover the population's unicity about 95 % of the time; independent-draw Wilson covers far less."""
    rng = np.random.default_rng(7)
    truth = rng.beta(0.3, 5.0, size=20_000)  # a person's share of unique draws: most near 0, a few high
    covered = plain_covered = 0
    for _ in range(400):
        chosen = rng.choice(len(truth), size=300, replace=False)
        hits = rng.random((300, 10)) < truth[chosen][:, None]
        sizes = np.where(hits, 1, 2).astype(np.int64)
        _, (lo, hi) = unicity(_sets(sizes))
        covered += lo <= truth.mean() <= hi
        plo, phi = wilson_interval(int(hits.sum()), hits.size)
        plain_covered += plo <= truth.mean() <= phi
    assert covered / 400 >= 0.92 and plain_covered / 400 < 0.85
