"""Pareto front of profiles on (risk, utility): lower risk and higher utility are better (metrics.md §7)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ParetoResult:
    """The non-dominated profiles, and for each dominated profile the profiles that dominate it."""

    labels: list[str]
    front: list[str]  # in order of increasing risk
    dominated_by: dict[str, list[str]]  # dominated label -> its dominators, in grid order
    missing: list[str]  # profiles left out because their risk or utility is unknown

    def is_optimal(self, label: str) -> bool:
        return label in self.front


def dominance_matrix(risk: np.ndarray, utility: np.ndarray) -> np.ndarray:
    """``m[i, j]`` is True when profile i dominates j: at least as good on both and better on one."""
    r = np.asarray(risk, dtype=np.float64)
    u = np.asarray(utility, dtype=np.float64)
    no_worse = (r[:, None] <= r[None, :]) & (u[:, None] >= u[None, :])
    better = (r[:, None] < r[None, :]) | (u[:, None] > u[None, :])
    return no_worse & better


def pareto(labels: list[str], risk: np.ndarray, utility: np.ndarray) -> ParetoResult:
    """Split profiles into the Pareto front and the dominated ones; NaN values are listed as missing."""
    risk = np.asarray(risk, dtype=np.float64)
    utility = np.asarray(utility, dtype=np.float64)
    if not (len(labels) == len(risk) == len(utility)):
        raise ValueError(f"{len(labels)} profiles but {len(risk)} risks and {len(utility)} utilities")
    if len(set(labels)) != len(labels):
        raise ValueError("profile labels must be distinct")
    known = np.isfinite(risk) & np.isfinite(utility)
    idx = np.flatnonzero(known)
    dom = dominance_matrix(risk[idx], utility[idx])
    dominated_by = {
        labels[idx[j]]: [labels[idx[i]] for i in np.flatnonzero(dom[:, j])] for j in range(len(idx))
    }
    front_idx = [i for i in idx if not dominated_by[labels[i]]]
    front_idx.sort(key=lambda i: (risk[i], -utility[i], i))
    return ParetoResult(
        list(labels),
        [labels[i] for i in front_idx],
        {k: v for k, v in dominated_by.items() if v},
        [labels[i] for i in np.flatnonzero(~known)],
    )
