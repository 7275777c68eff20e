"""The one place a project's decision is derived: the saved choices, the utility column (expert scores, else
the computed information loss), the profile sizes for the power law, then :func:`analyse`. The report, the
``tradeoff`` command and the window call :func:`decide`, so they cannot disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from privacy_studio.core.risk.catalogue import risk_field
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis, analyse
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria
from privacy_studio.core.tradeoff.grid import GridTable, grid_table
from privacy_studio.core.tradeoff.records import ComputedUtility, ProfileSizes, SeedSpread, TradeoffChoice
from privacy_studio.core.utility import COMPUTED_SCORES, UtilityGrid

if TYPE_CHECKING:
    from privacy_studio.core.risk.results import ProfileResult

#: The computed score used when no expert scored any profile: the share of detail each person keeps.
DEFAULT_COMPUTED = "points_kept"


@dataclass
class DecisionInputs:
    """Everything a decision is derived from; ``sizes`` None means unit areas are unknown (grid:L levels
    are L² anyway)."""

    results: list[ProfileResult]
    experts: UtilityGrid = field(default_factory=UtilityGrid)
    choice: TradeoffChoice = field(default_factory=TradeoffChoice)
    computed: ComputedUtility | None = None
    sizes: ProfileSizes | None = None
    spread: SeedSpread | None = None


@dataclass(frozen=True)
class Overrides:
    """Choices given for this decision only (command-line flags); None keeps the saved choice."""

    measure: str | None = None
    p: int | str | None = "saved"  # None is a valid p (explicit knowledge)
    utility: str | None = None
    criteria: dict[str, Any] = field(default_factory=dict)  # ReleaseCriteria fields to replace; reasons added
    unit_areas: dict[str, float] = field(default_factory=dict)
    period_seconds: float | None = None


def decide(inputs: DecisionInputs, overrides: Overrides | None = None) -> TradeoffAnalysis:
    """The decision for the saved choices with ``overrides``; ``ValueError`` (one sentence) if it cannot be
    derived (no profile, no utility, no such p or measure)."""
    o = overrides or Overrides()
    grid = grid_table(inputs.results)
    if not grid.labels:
        raise ValueError("the results hold no profile yet: run the risk analysis first")
    choice = inputs.choice
    name, column = utility_column(grid, inputs.experts, inputs.computed, o.utility or choice.utility)
    areas = dict(inputs.sizes.unit_areas if inputs.sizes else {}) | o.unit_areas
    period = o.period_seconds if o.period_seconds is not None else (
        inputs.sizes.period_seconds if inputs.sizes else math.nan
    )  # fmt: skip
    changes = dict(o.criteria)
    reasons = {**choice.criteria.reasons, **changes.pop("reasons", {})}
    criteria: ReleaseCriteria = replace(choice.criteria, **changes, reasons=reasons)
    analysis = analyse(
        grid,
        column,
        measure=risk_field(o.measure or choice.risk_measure),
        p=choice.risk_p if o.p == "saved" else o.p,  # type: ignore[arg-type]
        utility_name=name,
        criteria=criteria,
        unit_areas=areas,
        period_seconds=period,
    )
    return with_spread(analysis, inputs.spread)


def with_spread(analysis: TradeoffAnalysis, spread: SeedSpread | None) -> TradeoffAnalysis:
    """``analysis`` carrying ``spread`` when the spread is about its measure and p (else unchanged)."""
    same = spread is not None and (spread.measure, spread.p) == (analysis.measure, analysis.p)
    return replace(analysis, seed_spread=spread) if same else analysis


def utility_column(
    grid: GridTable, experts: UtilityGrid, computed: ComputedUtility | None, wanted: str | None
) -> tuple[str, np.ndarray]:
    """The utility the decision weighs: ``wanted`` (an expert domain or a computed score), else the first
    expert domain with a score, else the computed :data:`DEFAULT_COMPUTED`."""
    if wanted is not None:
        if wanted in experts.domains:
            return wanted, experts.column(wanted, grid.labels)
        if wanted in COMPUTED_SCORES:
            if computed is None:
                raise ValueError(f"the computed score {wanted!r} has not been computed for this project yet")
            return wanted, computed.column(wanted, grid.labels)
        raise ValueError(f"unknown utility domain {wanted!r}; the domains are {experts.domains}")
    for domain in experts.domains:
        column = experts.column(domain, grid.labels)
        if np.isfinite(column).any():
            return domain, column
    if computed is not None:
        return DEFAULT_COMPUTED, computed.column(DEFAULT_COMPUTED, grid.labels)
    if experts.domains:
        return experts.domains[0], experts.column(experts.domains[0], grid.labels)
    raise ValueError(
        "no utility scores: give --scores FILE, type expert scores, or run the project's analysis"
    )
