"""``kernels.distinct`` gives exactly ``np.unique`` on integer arrays (it sorts instead of hashing, which held
the GIL, issue #27)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privacy_studio.core.kernels.distinct import distinct

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
