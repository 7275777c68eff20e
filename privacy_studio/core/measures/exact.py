"""Exact mode: |E(A)| (and EM/KL) for every p-subset A of every user's trace, for small data and tests."""

from __future__ import annotations

from math import comb

import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.exact_pass import exact_pass
from privacy_studio.core.measures.disclosure import point_priors

#: Largest number of (user, subset) pairs the exact mode accepts for one p.
MAX_SUBSETS = 2_000_000


def subset_offsets(index: PointIndex, p: int) -> np.ndarray:
    """CSR offsets of every user's p-subsets; raise ``ValueError`` when there are too many for exact mode."""
    lengths = np.diff(index.trace_ptr)
    per_user = np.fromiter((comb(int(m), p) for m in lengths), dtype=object, count=len(lengths))
    total = int(per_user.sum()) if len(per_user) else 0
    if total > MAX_SUBSETS:
        raise ValueError(
            f"exact mode would enumerate {total:,} subsets at p = {p} (limit {MAX_SUBSETS:,}); "
            "use the sampled estimate (drop --exact) or a smaller p / coarser profile"
        )
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(per_user.astype(np.int64), out=offsets[1:])
    return offsets


def exact_sizes(index: PointIndex, p: int, with_em: bool = False) -> dict[str, np.ndarray]:
    """|E(A)| of every p-subset of every trace (flat, per-user ``offsets``), with EM/KL means if asked.

    ``acc`` holds per point Σ_u mean_A (EM_uj - q_j) over each user's subsets.
    """
    offsets = subset_offsets(index, p)
    priors = point_priors(index.list_len, index.n_users)
    sizes, em, kl, acc = exact_pass(p, offsets, index.arrays(), with_em, priors)
    d = float(index.d)
    return {"offsets": offsets, "sizes": sizes, "em": em / d, "kl": kl / d, "acc": acc}
