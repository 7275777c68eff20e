"""One trade-off analysis of a grid's results: the chosen risk and utility, Pareto front, ordinal
equivalence, recommendation and power law, as one object with a JSON form (for the CLI, GUI and report)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privacy_studio.core.generalize import SpatialLevel, TemporalLevel
from privacy_studio.core.tradeoff.grid import GridTable
from privacy_studio.core.tradeoff.ordinal import OrdinalTable, ordinal_equivalence
from privacy_studio.core.tradeoff.pareto import ParetoResult, pareto
from privacy_studio.core.tradeoff.powerlaw import PowerLawFit, coarsening_text, fit_power_law, width_hours
from privacy_studio.core.tradeoff.recommend import Recommendation, recommend


@dataclass(frozen=True)
class TradeoffAnalysis:
    """Everything the trade-off view shows for one (risk measure, p, utility, ceiling) choice."""

    measure: str
    p: int | None
    utility_name: str
    ceiling: float
    labels: list[str]
    risk: np.ndarray
    risk_upper: np.ndarray | None
    utility: np.ndarray
    pareto: ParetoResult
    ordinal: OrdinalTable
    recommendation: Recommendation
    coarseness: np.ndarray  # km² x h per profile, NaN where the unit area is unknown
    power_law: PowerLawFit | None
    power_law_text: str

    @property
    def risk_name(self) -> str:
        """The risk measure as shown to people, e.g. ``unicity at p = 4``."""
        return _measure_name(self.measure, self.p)

    def to_dict(self) -> dict:
        """JSON-ready form (NaN becomes null)."""
        fit = self.power_law
        return {
            "measure": self.measure,
            "p": self.p,
            "utility": self.utility_name,
            "ceiling": self.ceiling,
            "profiles": [
                {
                    "label": label,
                    "risk": _json(self.risk[i]),
                    "risk_upper": None if self.risk_upper is None else _json(self.risk_upper[i]),
                    "utility": _json(self.utility[i]),
                    "coarseness_km2_h": _json(self.coarseness[i]),
                    "pareto_optimal": label in self.pareto.front,
                    "dominated_by": self.pareto.dominated_by.get(label, []),
                }
                for i, label in enumerate(self.labels)
            ],
            "pareto_front": self.pareto.front,
            "missing": self.pareto.missing,
            "ordinal_equivalence": {
                "measures": self.ordinal.names,
                "kendall_tau": [[_json(v) for v in row] for row in self.ordinal.tau],
                "all_equivalent": self.ordinal.all_equivalent,
                "message": self.ordinal.message(),
            },
            "recommendation": {
                "profile": self.recommendation.label,
                "meets_ceiling": self.recommendation.meets_ceiling,
                "reasoning": self.recommendation.reasoning,
                "warning": self.recommendation.warning,
            },
            "power_law": None
            if fit is None
            else {
                "log_prefactor": fit.log_prefactor,
                "exponent": fit.exponent,
                "r2": fit.r2,
                "n_used": fit.n_used,
                "left_out": fit.left_out,
                "coarseness_for_ceiling": _json(fit.size_for(self.ceiling)),
            },
            "power_law_text": self.power_law_text,
        }


def coarseness(
    grid: GridTable, unit_areas: dict[str, float] | None = None, period_seconds: float = math.nan
) -> np.ndarray:
    """Unit area (km²) x bin width (h) per profile; areas of non-grid levels come from ``unit_areas``."""
    areas = unit_areas or {}
    out = []
    for spatial, temporal in zip(grid.spatial, grid.temporal, strict=True):
        level = SpatialLevel.parse(spatial)
        area = float(level.km) ** 2 if level.kind == "grid" else areas.get(spatial, math.nan)
        out.append(area * width_hours(TemporalLevel.parse(temporal), period_seconds))
    return np.asarray(out, dtype=np.float64)


def analyse(
    grid: GridTable,
    utility: np.ndarray,
    *,
    measure: str = "unicity",
    p: int | None = 4,
    utility_name: str = "utility",
    ceiling: float = 0.05,
    unit_areas: dict[str, float] | None = None,
    period_seconds: float = math.nan,
) -> TradeoffAnalysis:
    """Run the whole trade-off analysis; ``utility`` holds one score per profile in grid order (NaN: none)."""
    if p not in grid.p_values():
        raise ValueError(f"the results have no p = {p}; they have p = {grid.p_values()}")
    risk = grid.values(measure, p)
    upper = grid.upper(measure, p)
    utility = np.asarray(utility, dtype=np.float64)
    if len(utility) != len(grid.labels):
        raise ValueError(f"{len(utility)} utility scores for {len(grid.labels)} profiles")
    name = _measure_name(measure, p)
    size = coarseness(grid, unit_areas, period_seconds)
    fit, text = (
        None,
        "The power law needs at least two profiles of known, different coarseness with risk > 0.",
    )
    try:
        fit = fit_power_law(grid.labels, size, risk)
        text = coarsening_text(fit, ceiling, name)
    except ValueError:
        pass
    return TradeoffAnalysis(
        measure,
        p,
        utility_name,
        ceiling,
        list(grid.labels),
        risk,
        upper,
        utility,
        pareto(grid.labels, risk, utility),
        ordinal_equivalence(grid.measures(p)),
        recommend(grid.labels, risk, utility, ceiling, upper, measure=name, utility_name=utility_name),
        size,
        fit,
        text,
    )


def _measure_name(measure: str, p: int | None) -> str:
    return measure if p is None else f"{measure} at p = {p}"


def _json(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None
