"""Counter-based random numbers for numba kernels: the value of (seed, user, draw, i) ignores threads."""

from __future__ import annotations

import numba as nb
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@nb.njit(cache=True, nogil=True)
def splitmix64(x: np.uint64) -> np.uint64:
    """The splitmix64 finalizer: a bijective mix of 64 bits."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def stream_key(seed: int, user: int, draw: int) -> np.uint64:
    """The key of the random stream of one (seed, user, draw)."""
    h = splitmix64(np.uint64(seed))
    h = splitmix64(h ^ np.uint64(user))
    return splitmix64(h ^ (np.uint64(draw) * _M1))


@nb.njit(cache=True, nogil=True)
def uniform01(key: np.uint64, i: int) -> float:
    """The i-th uniform number in (0, 1) of the stream ``key``."""
    z = splitmix64(key + np.uint64(i + 1) * _GOLDEN)
    return ((z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)
