"""Slow, obviously-correct references for the attack measures: dicts, loops and scipy.stats."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def log_ratio(a1: int, a2: int, lam1: float, lam2: float, theta: float) -> float:
    """ln P_same / P_diff with the bivariate Poisson written out term by term with scipy.stats.poisson."""
    same = sum(
        stats.poisson.pmf(k, theta)
        * stats.poisson.pmf(a1 - k, lam1 - theta)
        * stats.poisson.pmf(a2 - k, lam2 - theta)
        for k in range(min(a1, a2) + 1)
    )
    diff = stats.poisson.pmf(a1, lam1) * stats.poisson.pmf(a2, lam2)
    return math.log(same) - math.log(diff)


def matching_scores(first: list[dict[int, int]], second: list[dict[int, int]], c: float) -> np.ndarray:
    """w(u, v) = Σ over every bin anyone visits of ln φ_b(a1, a2) - ln φ_b(0, 0)."""
    bins = sorted({b for row in first + second for b in row})
    lam1 = {b: sum(r.get(b, 0) for r in first) / len(first) for b in bins}
    lam2 = {b: sum(r.get(b, 0) for r in second) / len(second) for b in bins}
    out = np.zeros((len(first), len(second)))
    for i, u in enumerate(first):
        for j, v in enumerate(second):
            for b in bins:
                th = c * min(lam1[b], lam2[b])
                a1, a2 = u.get(b, 0), v.get(b, 0)
                if a1 == 0 and a2 == 0:
                    continue
                if lam1[b] == 0 or lam2[b] == 0:  # nobody of one side is there: both models agree
                    continue
                out[i, j] += log_ratio(a1, a2, lam1[b], lam2[b], th) - th
    return out


def eccentricity(scores: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    out = np.full(len(scores), np.nan)
    for u, c in enumerate(chosen):
        if c < 0:
            continue
        others = [s for v, s in enumerate(scores[u]) if v != c]
        gap = scores[u, c] - max(others)
        sd = float(np.std(others))
        out[u] = gap / sd if sd > 0 else (math.inf if gap > 0 else -math.inf)
    return out


def nearest_credit(a: np.ndarray, b: np.ndarray) -> float:
    """Share of rows i of a whose nearest row of b (squared Euclidean, ties split) is row i."""
    total = 0.0
    for i in range(len(a)):
        d = [float(((a[i] - b[j]) ** 2).sum()) for j in range(len(b))]
        best = min(d)
        ties = [j for j in range(len(b)) if d[j] <= best + 1e-9 * max(1.0, best)]
        if i in ties:
            total += 1.0 / len(ties)
    return total / len(a)


def zscore(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def transparency_sets(original: np.ndarray, masked: np.ndarray, window: int) -> list[set[int]]:
    """B(x) = ∩_j {masked rows whose j-th value ranks within window of a rank x_j occupies} (x_j present)."""
    n, m = masked.shape
    out = []
    for x in original:
        cand = set(range(n))
        for j in range(m):
            ranked = sorted(masked[:, j])
            ranks_of_x = [r for r, v in enumerate(ranked) if v == x[j]]
            ok_values = {ranked[r] for r in range(n) if any(abs(r - q) <= window for q in ranks_of_x)}
            cand &= {i for i in range(n) if masked[i, j] in ok_values}
        out.append(cand)
    return out


def mdav(x: np.ndarray, k: int) -> list[list[int]]:
    """MDAV written record by record on standardized data: the groups as lists of row numbers."""
    z = zscore(x)
    left = list(range(len(x)))

    def d2(i: int, c: np.ndarray) -> float:
        return float(((z[i] - c) ** 2).sum())

    def nearest(c: np.ndarray) -> list[int]:
        return sorted(left, key=lambda i: (d2(i, c), left.index(i)))[:k]

    groups = []
    while len(left) >= 3 * k:
        centre = z[left].mean(axis=0)
        r = max(left, key=lambda i: (d2(i, centre), -left.index(i)))
        s = max(left, key=lambda i: (d2(i, z[r]), -left.index(i)))
        g = nearest(z[r])
        groups.append(g)
        left = [i for i in left if i not in g]
        g = nearest(z[s])
        groups.append(g)
        left = [i for i in left if i not in g]
    if len(left) >= 2 * k:
        centre = z[left].mean(axis=0)
        r = max(left, key=lambda i: (d2(i, centre), -left.index(i)))
        g = nearest(z[r])
        groups.append(g)
        left = [i for i in left if i not in g]
    if left:
        groups.append(left)
    return groups
