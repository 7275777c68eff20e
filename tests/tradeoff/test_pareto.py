"""Pareto front and dominance against a brute-force reference written straight from the definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.tradeoff import pareto


def brute_force(risk, utility):
    """dominated label -> dominators, and the front, one pair of profiles at a time."""
    n = len(risk)
    dominated = {}
    for j in range(n):
        by = [
            i
            for i in range(n)
            if risk[i] <= risk[j]
            and utility[i] >= utility[j]
            and (risk[i] < risk[j] or utility[i] > utility[j])
        ]
        if by:
            dominated[j] = by
    return [j for j in range(n) if j not in dominated], dominated


# Few distinct values so that ties on one or both objectives are common.
values = st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.integers(0, 4)), max_size=12)


@given(values)
def test_front_and_dominators_match_brute_force(rows):
    risk = [r for r, _ in rows]
    utility = [float(u) for _, u in rows]
    labels = [f"p{i}" for i in range(len(rows))]
    result = pareto(labels, np.asarray(risk), np.asarray(utility))
    front, dominated = brute_force(risk, utility)
    assert sorted(result.front) == sorted(labels[i] for i in front)
    assert result.dominated_by == {labels[j]: [labels[i] for i in by] for j, by in dominated.items()}
    assert result.missing == []
    assert [risk[labels.index(x)] for x in result.front] == sorted(risk[i] for i in front)


def test_identical_profiles_do_not_dominate_each_other():
    result = pareto(["a", "b", "c"], np.array([0.2, 0.2, 0.3]), np.array([5.0, 5.0, 5.0]))
    assert result.front == ["a", "b"]
    assert result.dominated_by == {"c": ["a", "b"]}


def test_missing_values_are_listed_not_dropped():
    result = pareto(["a", "b", "c"], np.array([0.2, np.nan, 0.1]), np.array([5.0, 9.0, np.nan]))
    assert result.front == ["a"] and result.missing == ["b", "c"]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="distinct"):
        pareto(["a", "a"], np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="2 profiles but 3 risks"):
        pareto(["a", "b"], np.zeros(3), np.zeros(2))
