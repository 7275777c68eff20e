"""``kernels.gil_free`` gives exactly what numpy's own calls give (``np.unique`` hashed, ``np.cumsum`` with
a cast and ``np.repeat`` held the GIL, issues #27 and #30)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privacy_studio.core.kernels.gil_free import cumsum64, distinct, repeat

INTEGERS = st.sampled_from([np.int8, np.int32, np.int64, np.uint16, np.uint64, np.bool_])


@given(INTEGERS.flatmap(lambda dtype: hnp.arrays(dtype, st.integers(0, 200))))
def test_the_values_and_dtype_of_np_unique(values):
    got, expected = distinct(values), np.unique(values)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected)


def test_a_two_dimensional_array_is_flattened_as_np_unique_does():
    values = np.array([[3, 1], [3, 2]], dtype=np.int64)
    assert np.array_equal(distinct(values), np.unique(values))


def test_floats_are_refused():
    with pytest.raises(TypeError):
        distinct(np.array([0.0, -0.0, np.nan]))


@given(INTEGERS.flatmap(lambda dtype: hnp.arrays(dtype, st.integers(0, 200))))
def test_cumsum64_is_np_cumsum_with_int64(values):
    got = cumsum64(values)
    assert got.dtype == np.int64
    assert np.array_equal(got, np.cumsum(values, dtype=np.int64))


def test_cumsum64_refuses_floats():
    with pytest.raises(TypeError):
        cumsum64(np.array([0.5]))


@st.composite
def values_and_counts(draw):
    dtype = draw(st.sampled_from([np.int8, np.int32, np.int64, np.uint64, np.float32, np.float64, np.bool_]))
    values = draw(hnp.arrays(dtype, st.integers(0, 60)))
    counts = draw(hnp.arrays(np.int64, len(values), elements=st.integers(0, 5)))
    return values, counts


@given(values_and_counts())
def test_repeat_is_np_repeat(case):
    values, counts = case
    got, expected = repeat(values, counts), np.repeat(values, counts)
    assert got.dtype == expected.dtype
    assert np.array_equal(got, expected, equal_nan=values.dtype.kind == "f")


@given(hnp.arrays(np.int64, st.integers(0, 30)), st.integers(0, 4), st.booleans())
def test_repeat_with_one_count_for_every_value_is_np_repeat(values, count, as_array):
    counts = np.array([count]) if as_array else count
    assert np.array_equal(repeat(values, counts), np.repeat(values, counts))


def test_repeat_takes_a_strided_view_and_int32_counts():
    values = np.arange(10, dtype=np.int64)[::2]
    counts = np.array([1, 0, 3, 2, 1], dtype=np.int32)
    assert repeat(values, counts).tolist() == [0, 4, 4, 4, 6, 6, 8]


@pytest.mark.parametrize("counts", [[1, 2], [1, -1, 2]])
def test_repeat_refuses_counts_that_np_repeat_refuses(counts):
    values = np.array([1, 2, 3])
    with pytest.raises(ValueError):
        np.repeat(values, counts)
    with pytest.raises(ValueError):
        repeat(values, counts)


def longest_wait_beside(copy) -> tuple[float, float]:
    """While another thread runs ``copy()``: the longest this thread waited between two turns of a loop, and
    how long the copy took (seconds)."""
    import threading
    import time

    done = threading.Event()
    worker = threading.Thread(target=lambda: (copy(), done.set()))
    start = last = time.perf_counter()
    longest = 0.0
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest, time.perf_counter() - start


def test_repeat_lets_other_threads_run_while_it_copies():
    """The point of it: a thread calling ``repeat`` leaves the GIL to the others; ``np.repeat`` holds it for
    the whole copy (the control, so the test can tell them apart)."""
    values = np.arange(4_000_000, dtype=np.int64)
    counts = np.full(len(values), 8, dtype=np.int64)
    repeat(values[:10], counts[:10])  # compiled (or loaded) before the timing
    held, took = longest_wait_beside(lambda: np.repeat(values, counts))
    assert held > 0.5 * took
    waited, took = longest_wait_beside(lambda: repeat(values, counts))
    assert waited < 0.5 * took
