"""The decision derived from a grid's results, in one place: the chosen risk and utility, release criteria
checked per profile, the people behind each figure, Pareto front, ordinal equivalence, recommendation with the
evidence against it, and the guarded power law — one object with one JSON form, so the window, the
``tradeoff`` command and the report cannot disagree."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privacy_studio.core.generalize import SpatialLevel, TemporalLevel
from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number, share
from privacy_studio.core.risk.catalogue import RISK_FIELDS, UNICITY, format_value
from privacy_studio.core.tradeoff.criteria import CriterionCheck, ReleaseCriteria, check_profiles
from privacy_studio.core.tradeoff.grid import ALL_POINTS_ABOVE, GridTable, Population
from privacy_studio.core.tradeoff.ordinal import OrdinalTable, ordinal_equivalence
from privacy_studio.core.tradeoff.pareto import ParetoResult, pareto
from privacy_studio.core.tradeoff.powerlaw import (
    GuardedPowerLaw,
    guarded_power_law,
    guarded_text,
    width_hours,
)
from privacy_studio.core.tradeoff.recommend import Recommendation, recommend
from privacy_studio.core.tradeoff.records import SeedSpread
from privacy_studio.core.utility import utility_title


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
    coarseness: np.ndarray  # km² x h per profile, NaN where the unit area is unknown or the amount released
    power_law: GuardedPowerLaw | None
    power_law_text: str
    criteria: ReleaseCriteria
    checks: list[list[CriterionCheck]]  # per profile, the ceiling first
    population: list[Population]  # per profile, at p
    evidence_against: list[str]  # what speaks against the recommended profile
    ranking_note: str  # why measures rank profiles differently, with each profile's d ("" if they agree)
    d: np.ndarray  # distinct points per profile (NaN if unknown)
    seed_spread: SeedSpread | None = None  # the headline recomputed over several seeds, when run

    def decision_lines(self) -> list[str]:
        """The decision in plain sentences, as the window, the command line and the report print it: the
        recommendation or why none, then :meth:`evidence_lines`."""
        rec = self.recommendation
        if rec.label is None:
            return ["Recommendation: none. ⚠ " + (rec.warning or rec.reasoning)]
        return [f"Recommendation: {rec.label}. {rec.reasoning}", *self.evidence_lines()]

    def evidence_lines(self) -> list[str]:
        """Each release criterion checked on the recommended profile, then the evidence against it."""
        if self.recommendation.label is None:
            return []
        i = self.labels.index(self.recommendation.label)
        lines = [
            f"{'✓' if c.passed else '✗'} {c.name}: {c.value_text()} (limit {_share(c.limit)})"
            + (f", {c.note}" if c.note else "")
            for c in self.checks[i]
        ]
        lines += [f"Also measured: {text}" for text in self.evidence_against]
        if self.seed_spread is not None and self.seed_spread.profile == self.recommendation.label:
            lines.append(self.seed_spread.sentence())
        return lines

    def criteria_lines(self) -> list[str]:
        """Every profile against every release criterion, one line each: ``✓``/``✗`` and the value, so a
        profile that fails one says which (the command line's table; the window and report show the same)."""
        if not self.checks:
            return []
        heads = [f"{c.name} (limit {_share(c.limit)})" for c in self.checks[0]]
        lines = [
            "Release criteria, every profile: " + "; ".join(f"[{k + 1}] {h}" for k, h in enumerate(heads))
        ]
        width = max(len(label) for label in self.labels) + 2
        for label, checks in zip(self.labels, self.checks, strict=True):
            cells = "".join(
                f"  [{k + 1}] {'✓' if c.passed else '✗'} {c.value_text():>10}" for k, c in enumerate(checks)
            )
            lines.append(f"{label:<{width}}{cells}  {'passes' if all(c.passed for c in checks) else 'fails'}")
        return lines

    def least_risky(self) -> int | None:
        """The profile with the lowest value on the first criterion (the chosen risk), utility or not."""
        values = [np.inf if row[0].value is None else row[0].value for row in self.checks]
        return int(np.argmin(values)) if values and np.isfinite(min(values)) else None

    def passed(self, label: str) -> bool:
        """Whether the profile meets every release criterion."""
        return all(c.passed for c in self.checks[self.labels.index(label)])

    @property
    def risk_name(self) -> str:
        """The risk measure as shown to people, e.g. ``unicity at p = 4``."""
        return measure_name(self.measure, self.p)

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
                    "criteria": [c.to_dict() for c in self.checks[i]],
                    "passes_criteria": self.passed(label),
                    "population": self.population[i].to_dict(),
                    "d": _json(self.d[i]),
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
            "recommendation": self.recommendation_dict(),
            "power_law": None if fit is None else fit.to_dict(self.ceiling),
            "power_law_text": self.power_law_text,
            "ranking_note": self.ranking_note,
            "seed_spread": None if self.seed_spread is None else self.seed_spread.to_dict(),
        }

    def recommendation_dict(self) -> dict:
        """The recommendation as scripts and the report read it: the profile (or None), the people its
        figure covers, every criterion checked on it, and the evidence against it."""
        rec = self.recommendation
        i = self.labels.index(rec.label) if rec.label is not None else None
        population = self.population[i] if i is not None else None
        shown = i if i is not None else self.least_risky()
        return {
            "profile": rec.label,
            "eligible_people": None if population is None else population.eligible,
            "excluded_people": None if population is None else population.excluded,
            "criteria_profile": None if shown is None else self.labels[shown],
            "criteria": [] if shown is None else [c.to_dict() for c in self.checks[shown]],
            "evidence_against": self.evidence_against,
            "meets_ceiling": rec.meets_ceiling,
            "reasoning": rec.reasoning,
            "warning": rec.warning,
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
    measure: str = UNICITY,
    p: int | None = 4,
    utility_name: str = "utility",
    ceiling: float = 0.05,
    criteria: ReleaseCriteria | None = None,
    unit_areas: dict[str, float] | None = None,
    period_seconds: float = math.nan,
) -> TradeoffAnalysis:
    """Derive the whole decision; ``utility`` holds one score per profile in grid order (NaN: none).

    ``criteria`` (default: ``ceiling`` alone) are checked on every profile; the recommendation is the most
    useful profile that meets them all.
    """
    if p not in grid.p_values():
        raise ValueError(f"the results have no p = {p}; they have p = {grid.p_values()}")
    criteria = criteria or ReleaseCriteria(ceiling)
    risk, upper = grid.values(measure, p), grid.upper(measure, p)
    utility = np.asarray(utility, dtype=np.float64)
    if len(utility) != len(grid.labels):
        raise ValueError(f"{len(utility)} utility scores for {len(grid.labels)} profiles")
    name = measure_name(measure, p)
    size = coarseness(grid, unit_areas, period_seconds)
    size[np.asarray(grid.price) != "none"] = np.nan  # the power law is of places and times, amount unknown
    law, text = _power_law(grid.labels, size, risk, criteria.ceiling, name)
    checks = check_profiles(grid, criteria, measure, p, name)
    others = np.asarray([all(c.passed for c in row[1:]) for row in checks], dtype=bool)
    rec = recommend(
        grid.labels, risk, utility, criteria.ceiling, upper, measure=name,
        utility_name=utility_title(utility_name),
        other_criteria=others,
        proportion=measure not in RISK_FIELDS or RISK_FIELDS[measure].proportion,
    )  # fmt: skip
    population = grid.population(p)
    ordinal = ordinal_equivalence(grid.measures(p))
    return TradeoffAnalysis(
        measure,
        p,
        utility_name,
        criteria.ceiling,
        list(grid.labels),
        risk,
        upper,
        utility,
        pareto(grid.labels, risk, utility),
        ordinal,
        rec,
        size,
        law,
        text,
        criteria,
        checks,
        population,
        evidence_against(grid, rec.label, measure, p, population),
        ranking_note(grid, ordinal, p),
        grid.d,
    )


def _power_law(
    labels: list[str], size: np.ndarray, risk: np.ndarray, ceiling: float, name: str
) -> tuple[GuardedPowerLaw | None, str]:
    """The guarded power-law fit of risk against coarseness and its sentence (why not, when it cannot be
    fitted)."""
    law = None
    try:
        law = guarded_power_law(labels, size, risk)
        return law, guarded_text(law, ceiling, name, labels, size, risk)
    except ValueError:
        return law, (
            "The power law needs at least two profiles of known, different coarseness with "
            f"{name} strictly between 0 and 1."
        )


def evidence_against(
    grid: GridTable, label: str | None, measure: str, p: int | None, population: list[Population]
) -> list[str]:
    """What else the results say about the recommended profile beside its criteria (unique whole traces and
    the worst case are criteria themselves), each in one sentence: the risk at higher p, and the people its
    figure leaves out."""
    if label is None:
        return []
    i = grid.labels.index(label)
    out = []
    higher = [q for q in grid.p_values() if q is not None and p is not None and q > p]
    if higher:
        top = max(higher)
        value = grid.values(measure, top)[i]
        if math.isfinite(value):
            reached = format_value(measure, value)
            out.append(f"{measure_name(measure, top)} reaches {reached} (the highest p measured).")
    if population[i].eligible is not None:
        out.append(f"The figure at p = {p} {population[i].sentence()}.")
    entry = grid.entry(i, p)
    conservative = None if entry is None else entry.unicity_all_points
    if conservative is not None and population[i].excluded_share > ALL_POINTS_ABOVE:
        out.append(
            f"With the {population[i].excluded:,} people of fewer than {p} points judged on all their points "
            f"(short traces: all-points), unicity at p = {p} is {_share(conservative)}."
        )
    return out


def ranking_note(grid: GridTable, ordinal: OrdinalTable, p: int | None) -> str:
    """Why EM- and KL-disclosure may rank profiles unlike unicity, in plain words with each profile's d;
    empty when the measures agree or no profile's d is known."""
    averaged = [m for m in ("em", "kl") if m in ordinal.names]
    if ordinal.all_equivalent or not averaged or not np.isfinite(grid.d).any():
        return ""
    known = [(label, d) for label, d in zip(grid.labels, grid.d, strict=True) if math.isfinite(d)]
    rows = ", ".join(f"{label_words(label)} d = {int(d):,}" for label, d in known)
    summed = "; ".join(
        f"{label_words(label)}: EM summed {_sum_text(grid.values('em', p)[i], grid.d[i])}, KL summed "
        f"{_sum_text(grid.values('kl', p)[i], grid.d[i])}"
        for i, label in enumerate(grid.labels)
    )
    return (
        "EM- and KL-disclosure average what an attacker learns over the d distinct points of a profile, and "
        f"coarse profiles have few points ({rows}), so their average is larger even when fewer people are "
        "unique; the measures then rank profiles differently. Summed over the points (the average times d), "
        f"which does not shrink as d grows, they are: {summed}."
    )


def _share(value: float | None) -> str:
    return "not measured" if value is None else share(value)


def _sum_text(value: float, d: float) -> str:
    return number(value * d) if math.isfinite(value) and math.isfinite(d) else "n/a"


def measure_name(measure: str, p: int | None) -> str:
    """The risk field in words (``share at worst-case risk 1 at p = 4``), never its JSON key."""
    name = RISK_FIELDS[measure].label if measure in RISK_FIELDS else measure
    return name if p is None else f"{name} at p = {p}"


def _json(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None
