"""Numba kernels of the core; each has a plain-Python reference in the tests."""
