"""A release judged against the project's release criteria, on the file as it would be written.

The criteria are the trade-off's own (``tradeoff.criteria.check_profiles``): the release's risk-engine
result becomes a one-profile grid and is checked exactly as the grid's profiles are, so the window, the
report and the release cannot judge differently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.tradeoff.criteria import CriterionCheck, ReleaseCriteria, check_profiles
from privacy_studio.core.tradeoff.grid import grid_table


@dataclass(frozen=True)
class Policy:
    """What a release is judged by: the project's risk measure, its p and its release criteria."""

    measure: str = UNICITY
    p: int | None = 4
    criteria: ReleaseCriteria = field(default_factory=ReleaseCriteria)

    @property
    def risk_name(self) -> str:
        return self.measure if self.p is None else f"{self.measure} at p = {self.p}"


def judge(result: ProfileResult | None, policy: Policy) -> list[CriterionCheck]:
    """Every release criterion applied to the measured release (an empty release is checked by nothing)."""
    if result is None:
        return []
    grid = grid_table([result.to_dict()])
    return check_profiles(grid, policy.criteria, policy.measure, policy.p, policy.risk_name)[0]


def failing(checks: list[CriterionCheck]) -> list[CriterionCheck]:
    """The checks that did not pass."""
    return [c for c in checks if not c.passed]


def describe_failures(checks: list[CriterionCheck]) -> str:
    """``unicity at p = 4 …: 7.1 % over the limit 5.0 %; …`` for the failing checks (a lower bound within
    the limit fails because it cannot show the truth is: said so)."""
    parts = []
    for c in failing(checks):
        within = c.value is not None and c.value <= c.limit
        how = "not shown to be within" if within else "over"
        parts.append(f"{c.name} is {c.value_text()}, {how} the limit of {100 * c.limit:.1f} %")
    return "; ".join(parts)
