"""Record linkage: every distance against a brute-force nearest-record loop, easy cases at 100 %, and weights
learned by the mixed-integer program beating equal weights when one attribute is noisy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.masking import add_noise, microaggregate
from privacy_studio.core.measures.attacks.linkage import (
    learn_weights,
    linked_share,
    mahalanobis_transform,
    record_linkage,
    standardize_pair,
)
from tests.attacks import reference


@given(n=st.integers(2, 25), m=st.integers(1, 4), seed=st.integers(0, 10_000), level=st.floats(0.0, 2.0))
def test_euclidean_and_mahalanobis_equal_brute_force(n, m, seed, level):
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(n, m)), 1)
    y = np.round(x + level * rng.normal(size=(n, m)), 1)
    za, zb = standardize_pair(x, y)
    np.testing.assert_allclose(za, reference.zscore(x))
    assert linked_share(za, zb, np.eye(m)) == pytest.approx(reference.nearest_credit(za, zb))
    t = mahalanobis_transform(za, zb)
    assert linked_share(za, zb, t) == pytest.approx(reference.nearest_credit(za @ t, zb @ t))


def test_mahalanobis_transform_inverts_the_difference_covariance():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = x + rng.normal(size=(200, 3)) * [0.1, 1.0, 3.0]
    za, zb = standardize_pair(x, y)
    t = mahalanobis_transform(za, zb)
    np.testing.assert_allclose(t @ t.T, np.linalg.inv(np.cov(za - zb, rowvar=False)), rtol=1e-8)


def test_easy_case_is_fully_reidentified_by_every_distance():
    x = np.random.default_rng(1).normal(size=(40, 3))
    y = add_noise(x, 1e-6, np.random.default_rng(2))
    out = record_linkage(x, y)
    assert {k: v["percent_correct"] for k, v in out["distances"].items()} == {
        "euclidean": 100.0,
        "mahalanobis": 100.0,
        "learned": 100.0,
    }
    assert out["learned"]["relaxed"] is False


def test_learned_weights_find_the_clean_attribute():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 3))
    y = x + rng.normal(size=(40, 3)) * [0.01, 2.0, 2.0]  # only attribute 0 still identifies
    za, zb = standardize_pair(x, y)
    learned = learn_weights(za, zb)
    assert learned.weights[0] > 0.9 and learned.weights.sum() == pytest.approx(1.0)
    # The solver's count of correct training records is the real count under its weights.
    share = linked_share(za, zb, np.diag(np.sqrt(learned.weights)))
    assert learned.train_correct == round(share * 40)
    assert share >= linked_share(za, zb, np.eye(3))


def test_equal_weights_kept_when_the_solver_stops_with_worse_ones(monkeypatch):
    from types import SimpleNamespace

    from privacy_studio.core.measures.attacks import linkage

    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 3))
    za, zb = standardize_pair(x, x + rng.normal(size=(30, 3)) * [0.05, 0.05, 3.0])
    stopped = np.zeros(2 * 3 + 30)
    stopped[2] = 1.0  # all weight on the noisy attribute, as an interrupted solve might leave it
    monkeypatch.setattr(
        linkage, "milp", lambda **kw: SimpleNamespace(x=stopped, message="Time limit reached")
    )
    learned = learn_weights(za, zb)
    np.testing.assert_allclose(learned.weights, [1 / 3] * 3)
    assert learned.status.endswith("equal weights kept")
    assert learned.train_correct == round(linked_share(za, zb, np.eye(3)) * 30)


def test_relaxed_weights_worse_than_equal_on_the_whole_file_are_replaced(monkeypatch):
    from privacy_studio.core.measures.attacks import linkage

    rng = np.random.default_rng(6)
    x = rng.normal(size=(80, 3))
    y = x + rng.normal(size=(80, 3)) * [0.05, 0.05, 3.0]
    sampled = linkage.LearnedWeights(np.array([0.0, 0.0, 1.0]), True, "Time limit reached", 100, 10)
    monkeypatch.setattr(linkage, "learn_weights", lambda *a, **k: sampled)
    out = record_linkage(x, y, ("euclidean", "learned"))
    assert out["learned"]["equal_weights_kept"] is True
    assert out["learned"]["weights"] == pytest.approx([1 / 3] * 3)
    assert out["distances"]["learned"] == pytest.approx(out["distances"]["euclidean"])


def test_ties_of_microaggregation_share_credit():
    x = np.random.default_rng(4).normal(size=(30, 2))
    out = record_linkage(x, microaggregate(x, 3), ("euclidean",))
    # Every record sits in a group of >= 3 identical masked records: at most 1/3 credit each.
    assert out["distances"]["euclidean"]["percent_correct"] <= 100 / 3 + 1e-9


def test_relaxation_is_used_and_reported_for_larger_files():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(120, 2))
    out = record_linkage(x, x + 0.3 * rng.normal(size=x.shape), ("learned",))
    assert out["learned"]["relaxed"] is True and out["learned"]["train_records"] == 100


def test_bad_inputs():
    x = np.zeros((4, 2))
    with pytest.raises(ValueError, match="same records"):
        record_linkage(x, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="unknown distance"):
        record_linkage(x, x, ("manhattan",))
    with pytest.raises(ValueError, match="at least two records"):
        record_linkage(x[:1], x[:1])
