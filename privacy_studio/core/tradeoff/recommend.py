"""The most useful profile whose risk stays under a ceiling, judged on the upper confidence bound if any."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.tradeoff.pareto import pareto


@dataclass(frozen=True)
class Recommendation:
    """The chosen profile (or None), the profiles under the ceiling, and the reasoning in one paragraph."""

    label: str | None
    meets_ceiling: list[str]
    reasoning: str
    warning: str | None


def recommend(
    labels: list[str],
    risk: np.ndarray,
    utility: np.ndarray,
    ceiling: float,
    risk_upper: np.ndarray | None = None,
    *,
    measure: str = "risk",
    utility_name: str = "utility",
) -> Recommendation:
    """Pick, among profiles whose risk bound is at most ``ceiling``, the one with the highest utility.

    The bound is ``risk_upper`` (e.g. the upper end of the 95 % interval) where given, else the estimate.
    Ties on utility go to the lower bound, then the lower estimate, then the earlier profile in the grid,
    so the choice is deterministic; the chosen profile is Pareto-optimal among those under the ceiling.
    """
    if not np.isfinite(ceiling) or ceiling < 0:
        raise ValueError(f"the risk ceiling must be a non-negative number, got {ceiling!r}")
    risk = np.asarray(risk, dtype=np.float64)
    utility = np.asarray(utility, dtype=np.float64)
    bound = risk if risk_upper is None else np.where(np.isfinite(risk_upper), risk_upper, risk)
    dominated_by = pareto(labels, risk, utility).dominated_by
    known = np.isfinite(bound) & np.isfinite(utility)
    ok = [i for i in range(len(labels)) if known[i] and bound[i] <= ceiling]
    which = "the upper end of its 95 % interval" if risk_upper is not None else "its estimate"
    if not known.any():
        warning = (
            f"No profile has both a {measure} value and a {utility_name} score yet: nothing to recommend."
        )
        return Recommendation(None, [], warning, warning)
    if not ok:
        best = min(np.flatnonzero(known), key=lambda i: (bound[i], i))
        closest = f" The least risky profile, {labels[best]}, reaches {bound[best]:.4g}."
        warning = (
            f"No profile of the grid keeps {measure} at or below {ceiling:.4g} (judged on {which}).{closest} "
            "Coarser profiles than those in the grid are needed, or the ceiling must be reconsidered."
        )
        return Recommendation(None, [], warning, warning)
    chosen = min(ok, key=lambda i: (-utility[i], bound[i], risk[i], i))
    tied = [labels[i] for i in ok if utility[i] == utility[chosen] and i != chosen]
    tie_text = (
        f" It ties on {utility_name} with {', '.join(tied)} and is preferred for its lower risk."
        if tied
        else ""
    )
    dominators = dominated_by.get(labels[chosen], [])
    global_text = (
        f"On the estimates alone it is dominated by {', '.join(dominators)}, which the ceiling rules out or "
        "whose bound is higher."
        if dominators
        else "It is also on the Pareto front of the whole grid."
    )
    reasoning = (
        f"Of the {int(known.sum())} profiles with both a {measure} value and a {utility_name} score, "
        f"{len(ok)} {'keeps' if len(ok) == 1 else 'keep'} {measure} at or below the ceiling of "
        f"{ceiling:.4g} (judged on {which}). Among them "
        f"{labels[chosen]} has the highest {utility_name} ({utility[chosen]:.3g}), with {measure} = "
        f"{risk[chosen]:.4g} (bound {bound[chosen]:.4g}).{tie_text} {global_text}"
    )
    return Recommendation(labels[chosen], [labels[i] for i in ok], reasoning, None)
