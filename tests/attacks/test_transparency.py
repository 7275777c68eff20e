"""Transparency attack on rank swapping: the slides' example, a brute-force reference on random swaps, and
that the true record is always a candidate."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.masking import rank_swap, window_ranks
from privacy_studio.core.measures.attacks.transparency import transparency_attack
from tests.attacks import reference

# Torra's slides: ten records, four attributes, window p = 2 ranks.
ORIGINAL = np.array(
    [[8, 9, 1, 3], [6, 7, 10, 2], [10, 3, 4, 1], [7, 1, 2, 6], [9, 4, 6, 4],
     [2, 2, 8, 8], [1, 10, 3, 9], [4, 8, 7, 10], [5, 5, 5, 5], [3, 6, 9, 7]], dtype=float,
)  # fmt: skip
MASKED = np.array(
    [[10, 10, 3, 5], [5, 5, 8, 1], [8, 4, 2, 2], [9, 2, 4, 4], [7, 3, 5, 6],
     [4, 1, 10, 10], [3, 9, 1, 7], [2, 6, 9, 8], [6, 7, 6, 3], [1, 8, 7, 9]], dtype=float,
)  # fmt: skip


def test_slides_example_pins_record_two():
    out = transparency_attack(ORIGINAL, MASKED, window=2)
    assert out["records"][1]["candidates"] == [2]
    assert out["records"][1]["linked"] == 2
    assert out["true_in_candidates_share"] == 1.0


def test_single_attribute_candidate_set_of_the_slides():
    out = transparency_attack(ORIGINAL[:, :1], MASKED[:, :1], window=2)
    # B_1(6) = masked records whose first value is 4..8: rows 2, 3, 5, 6, 9 (1-based).
    assert out["records"][1]["candidates"] == [2, 3, 5, 6, 9]


def test_window_from_percent():
    by_rank = transparency_attack(ORIGINAL, MASKED, window=2)
    by_percent = transparency_attack(ORIGINAL, MASKED, p_percent=20)  # 20 % of 10 records = 2 ranks
    assert by_rank == by_percent


@given(n=st.integers(3, 30), m=st.integers(1, 3), p=st.floats(5, 40), seed=st.integers(0, 1000))
def test_candidates_equal_brute_force_and_contain_the_truth(n, m, p, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 6, size=(n, m)).astype(float)  # many ties
    y = rank_swap(x, p, rng)
    w = window_ranks(n, p)
    out = transparency_attack(x, y, window=w)
    want = reference.transparency_sets(x, y, w)
    assert [r["candidates"] for r in out["records"]] == [sorted(i + 1 for i in s) for s in want]
    assert out["true_in_candidates_share"] == 1.0
    assert out["pinned_share"] == pytest.approx(np.mean([len(s) == 1 for s in want]))


def test_window_must_be_given_once():
    with pytest.raises(ValueError, match="exactly one"):
        transparency_attack(ORIGINAL, MASKED)
    with pytest.raises(ValueError, match="exactly one"):
        transparency_attack(ORIGINAL, MASKED, window=2, p_percent=3)
