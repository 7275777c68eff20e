"""Anonymity-set sizes |E_u| of nested knowledge draws for a sample of users: unicity, k-disclosure, EM/KL
and worst case in one pass (the numba kernel is ``core/kernels/sample_pass.py``).
"""

from __future__ import annotations

import numba
import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.arrays import NO_PRIORS, Priors
from privacy_studio.core.kernels.gil_free import repeat
from privacy_studio.core.kernels.sample_pass import N_PARTS, sample_pass, spread_parts
from privacy_studio.core.knowledge import GIVEN
from privacy_studio.core.measures.disclosure import point_priors


def sample_sizes(
    index: PointIndex,
    users: np.ndarray,
    *,
    kind: int,
    pmax: int,
    draws: int = 1,
    seed: int = 0,
    em_p: list[int] | None = None,
    em_users: int = 0,
    ref_p: int | None = None,
    worst: bool = False,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    priors: Priors | None = None,
) -> dict[str, np.ndarray]:
    """|E_u| (and EM/KL sums, rarest-first sizes) for ``users`` x ``draws`` x p = 1..pmax.

    Returns ``sizes`` (S, R, pmax; 0 = excluded), ``em``/``kl`` (per-user means over points, NaN where not
    computed: users beyond ``em_users`` or p not in ``em_p``), ``rare`` (S, pmax) sizes along the rarest
    points first,
    and ``acc`` (per point Σ_u (EM_uj - q_j) over the EM users at ``ref_p``). With ``kind`` GIVEN,
    ``given = (ptr, points)`` holds each sampled user's order (compact points) instead. ``priors``
    (from :func:`point_priors`) may be passed to avoid recomputing them for every chunk of users.
    """
    if given is None:
        given = (np.zeros(len(users) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    em_mask = np.zeros(pmax, dtype=np.bool_)
    for p in em_p or []:
        if 1 <= p <= pmax:
            em_mask[p - 1] = True
    used = (priors or point_priors(index.list_len, index.n_users)) if em_mask.any() else NO_PRIORS
    ref_k = (ref_p - 1) if ref_p is not None and 1 <= ref_p <= pmax and em_mask[ref_p - 1] else -1
    sizes, em, kl, rare, acc = sample_pass(
        np.ascontiguousarray(users, dtype=np.int64),
        index.arrays(),
        index.max_list,
        draws,
        pmax,
        kind,
        seed,
        em_mask,
        em_users,
        ref_k,
        used,
        worst,
        np.ascontiguousarray(given[0], dtype=np.int64),
        np.ascontiguousarray(given[1], dtype=np.int64),
        spread_parts(N_PARTS, numba.get_num_threads()),  # round robin over the threads
    )
    d = float(index.d)
    return {"sizes": sizes, "em": em / d, "kl": kl / d, "rare": rare, "acc": acc}


def whole_trace_sizes(index: PointIndex, users: np.ndarray) -> np.ndarray:
    """|E(T_u)| of knowing all of each person's points (everyone whose trace contains the whole trace).

    Each trace is intersected shortest posting lists first: the same set, but the walk costs about the
    shortest list instead of the first one in point order (a district-week's list holds most people)."""
    users = np.asarray(users, dtype=np.int64)
    lengths = np.diff(index.trace_ptr)[users]
    if not len(users):
        return np.zeros(0, dtype=np.int64)
    ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    at = repeat(index.trace_ptr[users] - ptr[:-1], lengths) + np.arange(ptr[-1])
    points = index.trace_pts[at].astype(np.int64)
    owner = repeat(np.arange(len(users)), lengths)
    points = points[np.lexsort((index.list_len[points], owner))]
    pmax = int(lengths.max())
    sizes = sample_sizes(index, users, kind=GIVEN, pmax=pmax, given=(ptr, points))["sizes"]
    return sizes[np.arange(len(users)), 0, lengths - 1]
