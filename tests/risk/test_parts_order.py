"""The order in which the sampled pass and the targeted search take their fixed parts of the people."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.kernels.sample_pass import spread_parts


@given(st.integers(1, 64), st.integers(0, 70))
def test_parts_are_dealt_round_robin(n_parts: int, threads: int) -> None:
    """Every part once; thread t's contiguous block of the loop holds parts t, t + T, t + 2T, ..."""
    order = spread_parts(n_parts, threads)
    t = max(1, threads)
    assert order.tolist() == [p for first in range(t) for p in range(first, n_parts, t)]
    assert sorted(order.tolist()) == list(range(n_parts))


@numba.njit(parallel=True)
def _thread_of_each_part(parts: np.ndarray) -> np.ndarray:
    out = np.empty(len(parts), dtype=np.int64)
    for i in numba.prange(len(parts)):
        out[parts[i]] = numba.get_thread_id()
    return out


def test_neighbouring_parts_run_on_different_threads() -> None:
    """With two threads the first four parts (the people EM/KL is computed for) alternate threads."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        if numba.get_num_threads() < 2:
            pytest.skip("numba has one thread here")
        threads = _thread_of_each_part(spread_parts(8, numba.get_num_threads()))
    finally:
        numba.set_num_threads(before)
    assert threads[:4].tolist() in ([0, 1, 0, 1], [1, 0, 1, 0])
