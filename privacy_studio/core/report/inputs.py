"""What the report is built from: the project's results as a grid table, the chosen risk measure, p, ceiling
and utility, resolved once so every section uses the same numbers."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.analyses import SeedSpread
from privacy_studio.core.numbers import interval, lower_bound
from privacy_studio.core.project_run import decision_inputs
from privacy_studio.core.risk.catalogue import (
    DEFAULT_RISK,
    FIELD_MEASURE,
    RISK_FIELDS,
    WORST_FIELDS,
    format_value,
    interval_of,
    risk_field,
)
from privacy_studio.core.risk.results import PResult
from privacy_studio.core.tradeoff import GridTable, Recommendation, grid_table
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
from privacy_studio.core.tradeoff.decision import (
    DecisionInputs,
    Overrides,
    decide,
    utility_column,
    with_spread,
)
from privacy_studio.core.utility import utility_title

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.io.overview import DatasetOverview
    from privacy_studio.core.project import Project

#: Display name of each risk field of a ``by_p`` entry and its explanation, from the measure catalogue.
MEASURE_NAMES: dict[str, str] = {name: f.label for name, f in RISK_FIELDS.items()}
MEASURE_EXPLANATION: dict[str, str] = {name: m.explanation for name, m in FIELD_MEASURE.items()}


def is_proportion(measure: str) -> bool:
    """Whether the measure is a share of people or draws (written as a percentage)."""
    return measure in RISK_FIELDS and RISK_FIELDS[measure].proportion


format_measure = format_value  # the report's name for the catalogue's formatter of risk values


def measure_columns(measures: list[str]) -> list[str]:
    """Column titles for :func:`measure_cells`: each measure, followed by its interval if it has one."""
    out = []
    for m in measures:
        out.append(MEASURE_NAMES[m])
        if interval_of(m) is not None:
            out.append("95% interval")
    return out


def value_and_interval(entry: PResult | None, measure: str) -> tuple[str, str]:
    """``measure``'s formatted value at one p (None: the profile lacks it) and its interval ("" for a
    measure without one)."""
    value = format_measure(measure, None if entry is None else entry.value(measure))
    key = interval_of(measure)
    return value, "" if key is None else interval(None if entry is None else getattr(entry, key))


def measure_cells(entry: PResult | None, measures: list[str]) -> list[str]:
    """The formatted values of ``measures`` at one p (None: the profile lacks it), matching
    :func:`measure_columns`; a sampled worst case is written "≥ value", the lower bound it is."""
    out = []
    for m in measures:
        value = None if entry is None else entry.value(m)
        if m in WORST_FIELDS:  # a sampled worst case is a lower bound
            out.append(lower_bound(value, exact=entry is not None and entry.worst_exact))
        else:
            out.append(format_measure(m, value))
        if (key := interval_of(m)) is not None:
            out.append(interval(None if entry is None else getattr(entry, key)) or "–")
    return out


@dataclass
class ReportInputs:
    """The project, optional dataset, results grid and the trade-off choices the report is about."""

    project: Project
    dataset: Dataset | None
    grid: GridTable | None
    measure: str
    p: int | None
    notes: list[str]
    utility_name: str | None
    utility: np.ndarray | None
    ceiling: float
    recommendation: Recommendation | None = None
    analysis: TradeoffAnalysis | None = None  # the decision, as ``privacy-studio tradeoff`` derives it
    overview: DatasetOverview | None = None  # the data's counts when they exceed memory (issue #30)

    @property
    def measure_name(self) -> str:
        return MEASURE_NAMES[self.measure]

    @property
    def utility_title(self) -> str | None:
        """The chosen utility in words (``points kept``, or the experts' own domain name)."""
        return None if self.utility_name is None else utility_title(self.utility_name)

    @property
    def risk_label(self) -> str:
        """``unicity at p = 4`` (or the measure alone for explicit knowledge)."""
        return self.measure_name if self.p is None else f"{self.measure_name} at p = {self.p}"

    def risk(self) -> np.ndarray:
        assert self.grid is not None
        return self.grid.values(self.measure, self.p)

    def risk_upper(self) -> np.ndarray | None:
        assert self.grid is not None
        return self.grid.upper(self.measure, self.p)


def resolve_inputs(
    project: Project, dataset: Dataset | None = None, decided: TradeoffAnalysis | None = None
) -> ReportInputs:
    """Read the project's results and trade-off settings; problems become notes the report shows. The
    decision is derived here once per command: ``decided`` (the one a run just derived, e.g.) is used when
    it is for the measure and p the report is about."""
    notes: list[str] = []
    choice = project.tradeoff
    measure = risk_field(str(choice.get("risk_measure") or DEFAULT_RISK))
    if measure not in MEASURE_NAMES:
        used = MEASURE_NAMES[DEFAULT_RISK]
        notes.append(f"The project asks for risk measure {measure!r}, which is unknown: {used} is used.")
        measure = DEFAULT_RISK
    wanted_p = choice.get("risk_p", 4)
    ceiling = float(choice.get("ceiling", 0.05))
    grid = grid_table(project.results) if project.results else None
    p = wanted_p
    if grid is not None:
        available = grid.p_values()
        if wanted_p not in available and available:
            p = min(available, key=lambda q: (abs((q or 0) - (wanted_p or 0)), -(q or 0)))
            notes.append(f"No results at p = {wanted_p} for every profile: p = {p} is used instead.")
        if not np.isfinite(grid.values(measure, p)).any() and measure != DEFAULT_RISK:
            used = MEASURE_NAMES[DEFAULT_RISK]
            notes.append(f"{MEASURE_NAMES[measure]} was not computed: {used} is used instead.")
            measure = DEFAULT_RISK
    inp = ReportInputs(project, dataset, grid, measure, p, notes, None, None, ceiling)
    if decided is not None and (decided.measure, decided.p) == (measure, p):
        inp.analysis = with_spread(decided, project.analysis(SeedSpread))  # stored after it decided
    elif grid is not None:
        inp.analysis = _decide(project, dataset, measure, p, notes)
    if inp.analysis is not None:
        inp.utility_name, inp.utility = inp.analysis.utility_name, inp.analysis.utility
        inp.recommendation = inp.analysis.recommendation
    return inp


def _decide(
    project: Project, dataset: Dataset | None, measure: str, p: int | None, notes: list[str]
) -> TradeoffAnalysis | None:
    """The decision through the same function as ``privacy-studio tradeoff`` and the window; a chosen utility
    without scores falls back (with a note) to the first one that has some."""
    try:
        inputs = decision_inputs(project, dataset)
    except ValueError as exc:
        notes.append(f"The expert utility scores could not be read ({exc}).")
        return None
    wanted = inputs.choice.utility
    if wanted is not None and not np.isfinite(_scores(inputs, wanted)).any():
        notes.append(f"The chosen utility {wanted!r} has no scores in the project.")
        inputs.choice = replace(inputs.choice, utility=None)
    try:
        return decide(inputs, Overrides(measure=measure, p=p))
    except ValueError as exc:
        notes.append(f"No trade-off analysis: {exc}")
        return None


def _scores(inputs: DecisionInputs, name: str) -> np.ndarray:
    """The named utility's column, all NaN when nobody scored it or it does not exist."""
    try:
        return utility_column(grid_table(inputs.results), inputs.experts, inputs.computed, name)[1]
    except ValueError:
        return np.full(len(inputs.results), np.nan)
