"""``kernels.large_arrays.empty_large``: a kernel's array of the asked shape and type, on huge pages whenever
numpy's own arrays get them (freeing a kernel's 2 GB array on 4 KiB pages held the GIL 145 ms, issue #27)."""

from __future__ import annotations

import sys
from pathlib import Path

import numba as nb
import numpy as np
import pytest

from privacy_studio.core.kernels.large_arrays import HUGE_FROM, empty_large


@nb.njit(cache=False)
def _filled_vector(n, dtype):
    out = empty_large(n, dtype)
    for i in range(n):
        out[i] = i % 100
    return out


@nb.njit(cache=False, parallel=True)
def _filled_matrix(rows, cols):
    out = empty_large((rows, cols), np.float64)
    for r in nb.prange(rows):
        for c in range(cols):
            out[r, c] = r - c
    return out


@pytest.mark.parametrize("n", [0, 1, 1000, HUGE_FROM // 4 + 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_a_vector_of_the_asked_length_and_type(n, dtype):
    got = _filled_vector(n, dtype)
    assert got.dtype == dtype and got.shape == (n,)
    assert np.array_equal(got, np.arange(n) % 100)


@pytest.mark.parametrize("shape", [(0, 5), (3, 4), (1100, 1000)])
def test_a_matrix_of_the_asked_shape(shape):
    got = _filled_matrix(*shape)
    rows, cols = np.indices(shape)
    assert got.shape == shape and got.dtype == np.float64
    assert np.array_equal(got, rows - cols)


def _huge_kib(array: np.ndarray) -> int:
    """AnonHugePages (KiB) of the mapping that holds the middle of ``array``'s data (the advice splits the
    mapping: its first, unaligned page is a mapping of its own)."""
    address = array.ctypes.data + array.nbytes // 2
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            low, high = (int(x, 16) for x in head.split("-"))
            inside = low <= address < high
        elif inside and head == "AnonHugePages:":
            return int(line.split()[1])
    return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="huge pages on request are Linux's")
def test_on_huge_pages_when_numpy_arrays_are():
    size = HUGE_FROM
    control = np.empty(size // 8)
    control[:] = 1.0
    if _huge_kib(control) == 0:
        pytest.skip("this system gives numpy's arrays no transparent huge pages either")
    kernel = _filled_vector(size // 8, np.int64)
    assert _huge_kib(kernel) > 0
