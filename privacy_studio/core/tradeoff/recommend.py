"""The most useful profile whose risk stays under a ceiling, judged on the upper confidence bound if any."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number, share
from privacy_studio.core.tradeoff.criteria import check_share_limit
from privacy_studio.core.tradeoff.pareto import pareto

#: What a grid where no profile meets the criteria would need, said after the closest profile.
NEEDED = (
    "What would be needed: coarser spatial or temporal levels than those in the grid, suppressing the rarest "
    "points or the people whose traces stay unique, or other protections (restricted access, aggregation, "
    "added noise) before any release."
)


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
    other_criteria: np.ndarray | None = None,
    proportion: bool = True,
) -> Recommendation:
    """Pick, among profiles whose risk bound is at most ``ceiling``, the one with the highest utility.

    The bound is ``risk_upper`` (e.g. the upper end of the 95 % interval) where given, else the estimate.
    ``other_criteria`` (one bool per profile) marks the profiles that also meet every other release
    criterion; the others are not eligible (``meets_ceiling`` still lists them if under the ceiling).
    Ties on utility go to the lower bound, then the lower estimate, then the earlier profile in the grid,
    so the choice is deterministic; the chosen profile is Pareto-optimal among those under the ceiling.
    ``proportion`` says whether the risk is a share (written as a percentage) or a plain number (EM, KL).
    """
    check_share_limit(ceiling, "risk ceiling")
    risk = np.asarray(risk, dtype=np.float64)
    utility = np.asarray(utility, dtype=np.float64)
    bound = risk if risk_upper is None else np.where(np.isfinite(risk_upper), risk_upper, risk)
    known = np.isfinite(bound) & np.isfinite(utility)
    under = [i for i in range(len(labels)) if known[i] and bound[i] <= ceiling]
    others = np.ones(len(labels), dtype=bool) if other_criteria is None else np.asarray(other_criteria, bool)
    ok = [i for i in under if others[i]]
    value = share if proportion else number
    criteria = (
        f"{measure} at or below {value(ceiling)}" if other_criteria is None else "every release criterion"
    )
    which = "the upper end of its 95 % interval" if risk_upper is not None else "its estimate"
    if not known.any():
        warning = (
            f"No profile has both a {measure} value and a {utility_name} score yet: nothing to recommend."
        )
        return Recommendation(None, [], warning, warning)
    if not ok:
        best = min(np.flatnonzero(np.isfinite(bound)), key=lambda i: (bound[i], i))  # with or without utility
        closest = f" The least risky profile, {label_words(labels[best])}, reaches {value(bound[best])}."
        warning = f"No profile of the grid meets the criteria: none keeps {criteria} (judged on {which})."
        warning += f"{closest} {NEEDED}"
        return Recommendation(None, [labels[i] for i in under], warning, warning)
    chosen = min(ok, key=lambda i: (-utility[i], bound[i], risk[i], i))
    tied = [labels[i] for i in ok if utility[i] == utility[chosen] and i != chosen]
    global_text = _front_text(pareto(labels, risk, utility).dominated_by.get(labels[chosen], []))
    reasoning = (
        f"Of the {int(known.sum())} profiles with both a {measure} value and a {utility_name} score, "
        f"{len(ok)} {'meets' if len(ok) == 1 else 'meet'} {criteria} (the ceiling of {value(ceiling)} "
        f"judged on {which}). Among them "
        f"{label_words(labels[chosen])} has the highest {utility_name} ({number(utility[chosen])}), with "
        f"{measure} = {value(risk[chosen])} (upper bound {value(bound[chosen])})."
        f"{_tie_text(tied, utility_name)} {global_text}"
    )
    return Recommendation(labels[chosen], [labels[i] for i in under], reasoning, None)


def _tie_text(tied: list[str], utility_name: str) -> str:
    """The profiles the chosen one ties with on utility (it is preferred for its lower risk), if any."""
    if not tied:
        return ""
    names = ", ".join(map(label_words, tied))
    return f" It ties on {utility_name} with {names} and is preferred for its lower risk."


def _front_text(dominators: list[str]) -> str:
    """Whether the chosen profile is on the whole grid's Pareto front, or which profiles dominate it."""
    if not dominators:
        return "It is also on the Pareto front of the whole grid."
    return (
        f"On the estimates alone it is dominated by {', '.join(map(label_words, dominators))}, which the "
        "ceiling rules out or whose bound is higher."
    )
