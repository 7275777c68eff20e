"""Masking of numeric tables (metrics.md §6): additive and multiplicative noise, MDAV microaggregation,
rank swapping (p % window) and its p-distribution variant; information loss between X and its masked X'.

Every method takes an (n records, m attributes) float array and returns a new array of the same shape;
row i of the output is the masked version of row i of the input.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.choices import MASKING_METHODS
from privacy_studio.core.kernels.attacks import swap_ranks

METHODS = MASKING_METHODS


def check_table(x: np.ndarray, what: str = "table") -> np.ndarray:
    """The table as a 2-D float array; raise ``ValueError`` for empty or non-finite data."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"the {what} needs at least one record and one numeric attribute")
    bad = ~np.isfinite(x)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"the {what} has a missing or infinite value (record {r + 1}, attribute {c + 1})")
    return x


def add_noise(x: np.ndarray, k: float, rng: np.random.Generator) -> np.ndarray:
    """X + ε with ε ~ N(0, k·Var(X_j)) independently per attribute j."""
    x = check_table(x)
    if k < 0:
        raise ValueError(f"noise level k must be >= 0, got {k}")
    return x + rng.normal(size=x.shape) * np.sqrt(k * x.var(axis=0))


def multiplicative_noise(x: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """X · (1 + ε) with ε ~ N(0, σ²): the perturbation grows with the value."""
    x = check_table(x)
    if sigma < 0:
        raise ValueError(f"noise level sigma must be >= 0, got {sigma}")
    return x * (1.0 + sigma * rng.normal(size=x.shape))


def mdav_groups(x: np.ndarray, k: int) -> np.ndarray:
    """MDAV partition of the records (on standardized attributes) into groups of k (the last of k..2k-1).

    Returns the group number of every record.
    """
    x = check_table(x)
    n = len(x)
    if not 1 <= k <= n:
        raise ValueError(f"group size k must be between 1 and the number of records ({n}), got {k}")
    z = _standardize(x)
    group = np.full(n, -1, dtype=np.int64)
    left = np.arange(n)
    g = 0

    def take_nearest(centre: np.ndarray) -> None:
        nonlocal left, g
        d = ((z[left] - centre) ** 2).sum(axis=1)
        pick = np.argsort(d, kind="stable")[:k]
        group[left[pick]] = g
        g += 1
        left = np.delete(left, pick)

    while len(left) >= 3 * k:
        centroid = z[left].mean(axis=0)
        r = z[left[np.argmax(((z[left] - centroid) ** 2).sum(axis=1))]]
        s = z[left[np.argmax(((z[left] - r) ** 2).sum(axis=1))]]
        take_nearest(r)
        take_nearest(s)
    if len(left) >= 2 * k:
        centroid = z[left].mean(axis=0)
        take_nearest(z[left[np.argmax(((z[left] - centroid) ** 2).sum(axis=1))]])
    if len(left):
        group[left] = g
    return group


def microaggregate(x: np.ndarray, k: int) -> np.ndarray:
    """Every record replaced by the mean of its MDAV group (groups of at least k records)."""
    x = check_table(x)
    group = mdav_groups(x, k)
    sizes = np.bincount(group)
    means = np.stack([np.bincount(group, weights=x[:, j]) / sizes for j in range(x.shape[1])], axis=1)
    return means[group]


def window_ranks(n: int, p_percent: float) -> int:
    """The rank window of rank swapping: p % of the number of records, at least 1."""
    if not 0 < p_percent <= 100:
        raise ValueError(f"rank-swapping p must be in (0, 100] percent, got {p_percent}")
    return max(1, int(p_percent * n / 100))


def _swap_column(values: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Give the record at sorted position i the value at sorted position ``source[i]``."""
    order = np.argsort(values, kind="stable")
    out = np.empty_like(values)
    out[order] = values[order][source]
    return out


def rank_swap(x: np.ndarray, p_percent: float, rng: np.random.Generator) -> np.ndarray:
    """Rank swapping: each value swapped with one at most W = p % · n ranks above it (each marginal kept)."""
    x = check_table(x)
    n = len(x)
    w = window_ranks(n, p_percent)
    ranks = np.arange(n)
    return np.column_stack(
        [_swap_column(x[:, j], swap_ranks(ranks + 1, ranks + w, rng.random(n))) for j in range(x.shape[1])]
    )


def rank_swap_distribution(x: np.ndarray, p_percent: float, rng: np.random.Generator) -> np.ndarray:
    """p-distribution rank swapping: the rank distance is drawn from N(W/2, W/2), so no window bounds it.

    Each rank goes to the first unswapped rank at or above its drawn distance (at least 1).
    """
    x = check_table(x)
    n = len(x)
    w = window_ranks(n, p_percent)
    ranks = np.arange(n)
    cols = []
    for j in range(x.shape[1]):
        offsets = np.maximum(1, np.rint(rng.normal(0.5 * w, 0.5 * w, size=n)).astype(np.int64))
        cols.append(_swap_column(x[:, j], swap_ranks(ranks + offsets, np.full(n, n - 1), np.zeros(n))))
    return np.column_stack(cols)


def mask(x: np.ndarray, method: str, *, k: float = 1.0, p: float = 5.0, seed: int = 0) -> np.ndarray:
    """Apply one masking method by name (``k``: noise level or group size; ``p``: rank window in %)."""
    rng = np.random.default_rng(seed)
    if method == "noise":
        return add_noise(x, k, rng)
    if method == "multiplicative":
        return multiplicative_noise(x, k, rng)
    if method == "micro":
        if k != int(k):
            raise ValueError(f"microaggregation group size k must be a whole number, got {k}")
        return microaggregate(x, int(k))
    if method == "rankswap":
        return rank_swap(x, p, rng)
    if method == "rankswap-dist":
        return rank_swap_distribution(x, p, rng)
    raise ValueError(f"unknown masking method {method!r}; use one of {', '.join(METHODS)}")


def _standardize(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def information_loss(x: np.ndarray, masked: np.ndarray) -> dict[str, float]:
    """How much the masked file's statistics moved, each on a comparable scale, and their mean.

    ``means``: mean |Δμ_j| / σ_j; ``variances``: mean |Δσ²_j| / σ²_j;
    ``covariances``: mean |ΔC_jk| / (σ_j σ_k);
    ``correlations``: mean |Δρ_jk| over pairs j < k (0 with one attribute); ``score``: the mean of the four.
    """
    x, masked = check_table(x, "original file"), check_table(masked, "masked file")
    if x.shape != masked.shape:
        raise ValueError(
            f"original file is {x.shape[0]} x {x.shape[1]} but masked file is "
            f"{masked.shape[0]} x {masked.shape[1]} (records x attributes)"
        )
    sd = x.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    scale = np.outer(sd, sd)
    c0 = np.cov(x, rowvar=False, bias=True).reshape(x.shape[1], x.shape[1])
    c1 = np.cov(masked, rowvar=False, bias=True).reshape(x.shape[1], x.shape[1])
    upper = np.triu_indices(x.shape[1], 1)
    r0, r1 = _correlation(c0), _correlation(c1)
    out = {
        "means": float(np.mean(np.abs(x.mean(axis=0) - masked.mean(axis=0)) / sd)),
        "variances": float(np.mean(np.abs(np.diag(c0) - np.diag(c1)) / sd**2)),
        "covariances": float(np.mean(np.abs(c0 - c1) / scale)),
        "correlations": float(np.mean(np.abs(r0 - r1)[upper])) if len(upper[0]) else 0.0,
    }
    out["score"] = float(np.mean(list(out.values())))
    return out


def _correlation(cov: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.diag(cov))
    sd = np.where(sd > 0, sd, 1.0)
    return cov / np.outer(sd, sd)
