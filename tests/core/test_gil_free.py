"""``kernels.gil_free`` gives exactly what numpy's own calls give (``np.unique`` hashed and ``np.cumsum`` with
a cast held the GIL, issue #27)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privacy_studio.core.kernels.gil_free import cumsum64, distinct

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
