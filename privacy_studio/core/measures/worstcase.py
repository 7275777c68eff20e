"""Worst-case risk (metrics.md §3): the largest 1/|E(A)| over all p-subsets A of a user's trace.

Exact for p = 1 (the rarest point of the trace decides) and by enumeration in exact mode; otherwise a lower
bound: the best of the sampled draws, of the rarest-points-first subset and of the targeted search
(``core/kernels/worst_search.py``: rarest points first, then a beam of the subsets with the smallest sets),
made non-decreasing in p (a superset of A never has a larger anonymity set).

The targeted search has a work budget per profile, shared equally by the sampled people before it starts
(:func:`search_budget`), so its cost cannot grow without bound on a national file; where it stops a person's
search early the result says for how many people (``PResult.worst_search_cut``).
"""

from __future__ import annotations

import numba
import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.sample_pass import N_PARTS, spread_parts
from privacy_studio.core.kernels.worst_search import worst_search

#: Subsets kept at each level of the targeted search. On the sample (district x 1w) and Gowalla NYC
#: (grid:20 x 1w) at p = 4 a beam of 16 finds the exact share at risk 1 to within 0.3 points (tests).
SEARCH_BEAM = 16
#: Work units a second and thread of the search (a kept subset's extension costs its shortest posting list
#: times the trace's length; see ``kernels/worst_search.py``). Measured on the 300k-person month of
#: ``benchmarks/bench_scale.py``, 1,000 people, no budget: district × 12h spends 3.3e8 units in 2.4 s (load
#: ≈ 2) to 7.9 s (load ≈ 5, another 2-thread run beside it), i.e. 70M to 21M a second and thread; the
#: median person there costs 0.3M units, and lists (so units) grow with the number of people.
SEARCH_RATE = 40_000_000


def search_budget(seconds: float, n_sampled: int, threads: int) -> float:
    """Each sampled person's work budget: ``seconds`` of the profile's threads at :data:`SEARCH_RATE`,
    shared equally, so it is decided before the search and its results do not depend on timing or thread
    scheduling (the settings' ``search_budget``)."""
    return seconds * SEARCH_RATE * max(1, threads) / max(1, n_sampled)


def targeted_sizes(
    index: PointIndex, users: np.ndarray, pmax: int, rare: np.ndarray, budget: float = np.inf
) -> tuple[np.ndarray, np.ndarray]:
    """(S, pmax) smallest anonymity set known per person and p: the targeted search's, or the
    rarest-points-first walk's ``rare`` where smaller (0 where the person has fewer points); and (S,) the
    first p whose value comes from a search cut short by ``budget`` (0: none)."""
    parts = spread_parts(N_PARTS, numba.get_num_threads())  # round robin over the threads
    found, cut = worst_search(np.ascontiguousarray(users, dtype=np.int64), index.arrays(), index.max_list,
                              pmax, SEARCH_BEAM, float(budget), parts)  # fmt: skip
    return np.where((rare > 0) & (rare < found), rare, found), cut


def worst_lower_bounds(sizes: np.ndarray, rare: np.ndarray) -> np.ndarray:
    """Per user and p (S, pmax): max over draws and the rarest-first subset of 1/|E|, non-decreasing in p.

    ``sizes`` is (S, R, pmax) and ``rare`` (S, pmax) with 0 marking an excluded user, which gets NaN.
    """
    smallest = sizes.min(axis=1)
    inv = np.zeros(smallest.shape)
    for arr in (smallest, rare):
        ok = arr > 0
        inv[ok] = np.maximum(inv[ok], 1.0 / arr[ok])
    inv = np.maximum.accumulate(inv, axis=1)
    inv[smallest == 0] = np.nan
    return inv
