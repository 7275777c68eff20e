"""The anonymity sets at one p, as every measure is summarized from them, and the summaries of unicity,
k-disclosure, EM/KL and worst-case risk (metrics.md §3-4).

Sampled mode keeps the set size of every draw of the sampled people and pools the draws; exact mode keeps
per person the averages over all their p-subsets (``core.measures.exact``) and averages the people, so a
person with many points weighs as much as one with few. Both carry the histogram of set sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SetsAtP:
    """Anonymity sets of the included people at one p, and their EM/KL and worst case."""

    p: int | None  # None for explicit knowledge (each person's own known set)
    exact: bool
    sizes: np.ndarray | None  # sampled: |E| per (person, draw); None in exact mode
    unique_rate: np.ndarray | None  # exact: per person, share of p-subsets with |E| = 1
    k_disclosure: np.ndarray | None  # exact: per person, mean of 1/|E| over the p-subsets
    class_weights: np.ndarray | None  # [k]: draws (sampled) or Σ per-person shares (exact) with |E| = k
    em: np.ndarray | None  # sampled: per (person, draw), NaN where not computed; exact: per person
    kl: np.ndarray | None
    worst: np.ndarray  # per person: worst-case risk (exact) or its lower bound
    risk_k: int  # records at risk: anonymity sets smaller than this

    @property
    def n_people(self) -> int:
        return len(self.worst)

    @property
    def n_draws(self) -> int:
        """Draws that entered the estimate: sampled (person, draw) pairs, or people in exact mode."""
        return self.n_people if self.exact else int(self.sizes.size)


def unicity(sets: SetsAtP) -> tuple[float, tuple[float, float] | None]:
    """Unicity ε_p (share of draws with |E| = 1) and its 95 % interval: Wilson's, on the draws' effective
    number when each person has several (their draws are alike, so they count for less); a point when
    exact."""
    if not sets.n_draws:
        return float("nan"), None
    if sets.exact:
        uni = float(np.mean(sets.unique_rate))
        return uni, (uni, uni)
    from privacy_studio.core.measures.wilson import wilson_interval  # scipy: only once there are results

    unique = sets.sizes == 1
    share = float(unique.mean())
    effective = sets.n_draws / design_effect(unique)
    lo, hi = wilson_interval(share * effective, effective)
    return share, (float(lo), float(hi))


def design_effect(hits: np.ndarray) -> float:
    """Kish's design effect of a share estimated from (person, draw) ``hits``: the variance of the people's
    own shares against that of independent draws (1 with one draw each, R when a person's R draws always
    agree), never below 1. With every draw alike (share 0 or 1) nothing tells them apart: R, the cautious
    end."""
    draws = hits.shape[1]
    share = float(hits.mean())
    if draws == 1 or share in (0.0, 1.0):
        return float(draws)
    return max(1.0, draws * float(hits.mean(axis=1).var()) / (share * (1.0 - share)))


def k_disclosure(sets: SetsAtP) -> dict[str, object]:
    """k-disclosure: the mean of 1/|E| (ARX's average, or "marketer", risk)."""
    if not sets.n_draws:
        return {"k_disclosure": float("nan")}
    per_draw = sets.k_disclosure if sets.exact else 1.0 / sets.sizes
    return {"k_disclosure": float(np.mean(per_draw))}


def disclosure_summary(sets: SetsAtP, name: str) -> dict[str, object]:
    """EM- or KL-disclosure (``name`` "em" or "kl") over the people they were computed on, and how many."""
    values = sets.em if name == "em" else sets.kl
    if values is None or not len(values):
        return {name: float("nan"), "em_users": 0}
    computed = ~np.isnan(values.reshape(len(values), -1)[:, 0])
    mean = float(np.mean(values[computed])) if computed.any() else float("nan")
    return {name: mean, "em_users": int(computed.sum())}


def worst_case_summary(sets: SetsAtP) -> dict[str, object]:
    """Mean worst-case risk and the share of people at risk 1; exact when every subset was tried or p = 1."""
    if not sets.n_people:
        return {"worst_mean": float("nan"), "worst_share_at_1": float("nan"), "worst_exact": sets.exact}
    share = float(np.mean(sets.worst == 1.0))
    return {
        "worst_mean": float(np.mean(sets.worst)),
        "worst_share_at_1": share,
        "worst_exact": bool(sets.exact or sets.p == 1 or share == 1.0),
    }
