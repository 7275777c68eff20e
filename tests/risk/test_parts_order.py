"""The order in which the sampled pass and the targeted search take their fixed parts of the people: dealt
round robin to the threads, and the figures do not depend on it."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.index import build_index
from privacy_studio.core.kernels.sample_pass import N_PARTS, spread_parts
from privacy_studio.core.knowledge import UNIFORM
from privacy_studio.core.measures import unicity, worstcase
from tests.risk.helpers import traces_from_sets


@given(st.integers(1, 64), st.integers(0, 70))
def test_parts_are_dealt_round_robin(n_parts: int, threads: int) -> None:
    """Dealt like cards: part p goes to hand p mod T; the hands, one after the other, are the order (a
    thread's contiguous block of the loop is then its own hand)."""
    hands: list[list[int]] = [[] for _ in range(max(1, threads))]
    for part in range(n_parts):
        hands[part % len(hands)].append(part)
    assert spread_parts(n_parts, threads).tolist() == [part for hand in hands for part in hand]


@numba.njit(parallel=True)
def _thread_of_each_part(parts: np.ndarray) -> np.ndarray:
    out = np.empty(len(parts), dtype=np.int64)
    for i in numba.prange(len(parts)):
        out[parts[i]] = numba.get_thread_id()
    return out


def test_neighbouring_parts_run_on_different_threads() -> None:
    """With two threads the first four parts (the people EM/KL is computed for) alternate threads (under
    the threading layers that give each thread one contiguous block: OpenMP and workqueue)."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        if numba.get_num_threads() < 2:
            pytest.skip("numba has one thread here")
        threads = _thread_of_each_part(spread_parts(8, numba.get_num_threads()))
    finally:
        numba.set_num_threads(before)
    if numba.threading_layer() not in ("omp", "workqueue"):
        pytest.skip(f"the {numba.threading_layer()} layer schedules iterations its own way")
    assert threads[:4].tolist() in ([0, 1, 0, 1], [1, 0, 1, 0])


ORDERS = {
    "own": lambda n, t: np.arange(n, dtype=np.int64),
    "reversed": lambda n, t: np.arange(n, dtype=np.int64)[::-1].copy(),
    "round robin": spread_parts,
}


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.sets(st.integers(0, 11), min_size=1, max_size=8), min_size=N_PARTS + 1, max_size=40),
    st.integers(0, 2**31),
)
def test_figures_do_not_depend_on_the_order_of_the_parts(sets, seed) -> None:
    """Sizes, EM, KL, rarest-first walks and the targeted search's sets are the same whichever order the
    parts are taken in (each part's work and sums are its own; they are added in part order)."""
    index = build_index(traces_from_sets(sets, 12))
    users = np.arange(len(sets), dtype=np.int64)
    results = []
    for order in ORDERS.values():
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(unicity, "spread_parts", order)
            patch.setattr(worstcase, "spread_parts", order)
            sampled = unicity.sample_sizes(
                index, users, kind=UNIFORM, pmax=3, draws=2, seed=seed, em_p=[1, 2, 3],
                em_users=len(users) // 2, ref_p=2, worst=True,
            )  # fmt: skip
            found, cut = worstcase.targeted_sizes(index, users, 3, sampled["rare"], budget=50.0)
        results.append((sampled, found, cut))
    first = results[0]
    for sampled, found, cut in results[1:]:
        assert set(sampled) == set(first[0])
        for key in sampled:
            np.testing.assert_array_equal(np.asarray(sampled[key]), np.asarray(first[0][key]), err_msg=key)
        np.testing.assert_array_equal(found, first[1])
        np.testing.assert_array_equal(cut, first[2])
