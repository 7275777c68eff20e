"""EM- and KL-disclosure (metrics.md §4): the priors of every point; the per-set sums are numba kernels in
``core/kernels/disclosure.py``.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.kernels.arrays import Priors


def point_priors(list_lengths: np.ndarray, n_users: int) -> Priors:
    """Prior q_j, the KL term g_j of a point with posterior 0, and their sums over all points."""
    q = list_lengths / float(n_users)
    g = np.zeros_like(q)
    below = q < 1.0
    g[below] = -np.log1p(-q[below])
    return Priors(q, g, float(q.sum()), float(g.sum()))
