"""The anonymity sets at one p, as every measure is summarized from them, and the summaries of unicity,
k-disclosure, EM/KL and worst-case risk (metrics.md §3-4).

Sampled mode pools the draws of the sampled people; exact mode averages each person's p-subsets first
and then the people, so a person with many points weighs as much as one with few.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.measures.wilson import wilson_interval


@dataclass(frozen=True)
class SetsAtP:
    """Anonymity-set sizes of the included people at one p, and their per-person EM/KL and worst case."""

    p: int | None  # None for explicit knowledge (each person's own known set)
    sizes: np.ndarray  # sampled: (people, draws); exact: every p-subset, flat, grouped by person
    starts: np.ndarray | None  # exact: first subset of each person in ``sizes``; None when sampled
    em: np.ndarray  # sampled: (people, draws); exact: per person; NaN where not computed
    kl: np.ndarray
    worst: np.ndarray  # per person: worst-case risk (exact) or its lower bound along the rarest points
    risk_k: int  # records at risk: anonymity sets smaller than this

    @property
    def exact(self) -> bool:
        return self.starts is not None

    @property
    def n_people(self) -> int:
        return len(self.starts) if self.exact else len(self.sizes)

    def mean_over_draws(self, per_draw: np.ndarray) -> float:
        """Mean of a per-draw value: over pooled draws (sampled) or per person, then over people (exact)."""
        if self.n_people == 0:
            return float("nan")
        if not self.exact:
            return float(np.mean(per_draw))
        per_person = np.add.reduceat(per_draw.astype(np.float64), self.starts) / np.diff(
            np.append(self.starts, len(per_draw))
        )
        return float(per_person.mean())


def unicity_summary(sets: SetsAtP) -> dict[str, object]:
    """Unicity ε_p (share of draws with |E| = 1) and its 95 % interval (Wilson; a point when exact)."""
    trials = int(sets.sizes.size)
    if not trials:
        return {"unicity": None, "unicity_ci": None}
    if sets.exact:
        uni = sets.mean_over_draws(sets.sizes == 1)
        return {"unicity": uni, "unicity_ci": (uni, uni)}
    unique = int((sets.sizes == 1).sum())
    lo, hi = wilson_interval(unique, trials)
    return {"unicity": unique / trials, "unicity_ci": (float(lo), float(hi))}


def k_disclosure(sets: SetsAtP) -> dict[str, object]:
    """k-disclosure: the mean of 1/|E| (ARX's average, or "marketer", risk)."""
    if sets.exact:
        return {"k_disclosure": sets.mean_over_draws(1.0 / np.maximum(sets.sizes, 1))}
    return {"k_disclosure": float(np.mean(1.0 / sets.sizes)) if sets.sizes.size else float("nan")}


def disclosure_summary(sets: SetsAtP, name: str) -> dict[str, object]:
    """EM- or KL-disclosure (``name`` "em" or "kl") over the people they were computed on, and how many."""
    values = sets.em if name == "em" else sets.kl
    first = values.reshape(len(values), -1)[:, 0] if len(values) else np.zeros(0)
    computed = ~np.isnan(first)
    mean = float(np.mean(values[computed])) if computed.any() else float("nan")
    return {name: mean, "em_users": int(computed.sum())}


def worst_case_summary(sets: SetsAtP) -> dict[str, object]:
    """Mean worst-case risk and the share of people at risk 1; exact when every subset was tried or p = 1."""
    if not len(sets.worst):
        return {"worst_mean": float("nan"), "worst_share_at_1": float("nan"), "worst_exact": sets.exact}
    share = float(np.mean(sets.worst == 1.0))
    return {
        "worst_mean": float(np.mean(sets.worst)),
        "worst_share_at_1": share,
        "worst_exact": bool(sets.exact or sets.p == 1 or share == 1.0),
    }
