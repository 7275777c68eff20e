"""The privacy loss that the project's differentially private aggregates spend together.

Every aggregate written from the same people spends its own (ε, δ); by sequential composition the files
together are (Σε, Σδ)-differentially private. Each file written counts, also one written again under the
same name: the earlier file may already have left the office. Rows released as microdata are not covered
by any ε, so they are listed beside the sum rather than added to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from privacy_studio.core.aggregate.options import AggregateError, AggregateOptions, plain


@dataclass(frozen=True)
class PrivacyLoss:
    """What earlier releases of the same people spent when a file was written: the aggregates' summed
    (ε, δ), how many they were, and the microdata files released before (not bounded by any ε)."""

    epsilon: float = 0.0
    delta: float = 0.0
    aggregates: int = 0
    microdata: list[str] = field(default_factory=list)

    def plus(self, options: AggregateOptions) -> PrivacyLoss:
        """The loss once a file with ``options`` is written too."""
        return PrivacyLoss(
            self.epsilon + options.epsilon, self.delta + options.delta, self.aggregates + 1, self.microdata
        )

    def describe(self) -> str:
        """``2 aggregates spend ε = 1.5, δ = 0 together`` and the microdata files, in one sentence."""
        if self.aggregates == 0:
            spent = "no aggregate of these people was written before"
        else:
            files = (
                "1 aggregate of these people spends"
                if self.aggregates == 1
                else (f"{self.aggregates} aggregates of these people spend")
            )
            together = "" if self.aggregates == 1 else " together"
            spent = f"{files} ε = {plain(self.epsilon)}, δ = {plain(self.delta)}{together}"
        if not self.microdata:
            return spent
        files = ", ".join(self.microdata)
        return f"{spent}; rows of the same people were also released as microdata ({files}), no ε bounds them"

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "aggregates": self.aggregates,
            "microdata": list(self.microdata),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PrivacyLoss:
        microdata = [str(m) for m in d["microdata"]]
        return cls(float(d["epsilon"]), float(d["delta"]), int(d["aggregates"]), microdata)


def spent(aggregates: list[Any], microdata: list[str]) -> PrivacyLoss:
    """The loss of earlier releases: the aggregates' (``AggregateManifest``) ε and δ summed, the microdata
    files named."""
    return PrivacyLoss(
        sum(m.options.epsilon for m in aggregates),
        sum(m.options.delta for m in aggregates),
        len(aggregates),
        list(microdata),
    )


def check_budget(before: PrivacyLoss, options: AggregateOptions, budget: float | None) -> None:
    """Refuse, before any data is read, a file that would take the aggregates' total ε over ``budget``."""
    if budget is None:
        return
    if not budget > 0:
        raise AggregateError(f"the privacy budget (--budget) must be a positive ε, got {budget!r}")
    after = before.plus(options)
    if after.epsilon <= budget * (1 + 1e-12):
        return
    left = budget - before.epsilon
    advice = (
        f"lower --epsilon to at most {plain(left)}"
        if left > 0
        else "the budget is spent: write no further aggregate of these people"
    )
    raise AggregateError(
        f"this file would bring the aggregates of these people to ε = {plain(after.epsilon)}, over the "
        f"budget of {plain(budget)} ({before.describe()}); {advice}"
    )
