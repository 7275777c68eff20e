"""EM- and KL-disclosure (metrics.md §4): the priors of every point; the per-set sums are numba kernels in
``core/kernels/disclosure.py``.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.kernels.arrays import Priors


def point_priors(list_lengths: np.ndarray, n_users: int) -> Priors:
    """Prior q_j, the KL term g_j of a point with posterior 0, their sums over all points, ln q_j and the
    table of ln k up to the longest list (no anonymity set is larger)."""
    q = list_lengths / float(n_users)
    g = np.zeros_like(q)
    below = q < 1.0
    g[below] = -np.log1p(-q[below])
    longest = int(list_lengths.max()) if len(list_lengths) else 0
    ln_size = np.log(np.maximum(np.arange(longest + 1, dtype=np.float64), 1.0))  # entry 0 is never read
    return Priors(q, g, float(q.sum()), float(g.sum()), np.log(q), ln_size)
