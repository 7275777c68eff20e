"""Sparsity theory (metrics.md §3): uniqueness of i.i.d. Bernoulli(q) binary records as d grows.

P_match = (q² + (1-q)²)^d, P_unique = (1 - P_match)^(n-1), P_2anon = (1 - P_unique)^n, all through logs
(log1p / expm1) so tiny and near-one probabilities keep their digits for d in the millions.
"""

from __future__ import annotations

import numpy as np


def sparsity_curves(n: int, q: float, d: np.ndarray | list[int]) -> dict[str, np.ndarray]:
    """``p_match``, ``p_unique`` and ``p_2anon`` for every d; raise ``ValueError`` on impossible inputs."""
    if int(n) < 1:
        raise ValueError(f"n must be at least 1 user, got {n}")
    if not 0.0 <= float(q) <= 1.0:
        raise ValueError(f"q must be a probability in [0, 1], got {q}")
    dims = np.asarray(d, dtype=np.float64)
    if dims.size and (dims < 0).any():
        raise ValueError("d must be non-negative")
    q = float(q)
    base = q * q + (1.0 - q) * (1.0 - q)  # in [0.5, 1]
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) = -inf is meant: probability 0
        log_match = dims * np.log(base) if base < 1.0 else np.zeros_like(dims)
        p_match = np.exp(log_match)
        log_no_match = np.where(p_match < 1.0, np.log(-np.expm1(log_match)), -np.inf)
        log_unique = (n - 1) * log_no_match if n > 1 else np.zeros_like(dims)
        p_unique = np.exp(log_unique)
        log_p2 = n * np.log1p(-p_unique)
    return {"p_match": p_match, "p_unique": p_unique, "p_2anon": np.exp(log_p2)}
