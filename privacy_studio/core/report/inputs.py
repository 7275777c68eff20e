"""What the report is built from: the project's results as a grid table, the chosen risk measure, p, ceiling
and utility, resolved once so every section uses the same numbers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.report.numbers import interval, number, share
from privacy_studio.core.risk.catalogue import FIELD_MEASURE, RISK_FIELDS
from privacy_studio.core.tradeoff import GridTable, Recommendation, grid_table, recommend
from privacy_studio.core.utility import COMPUTED_SCORES, UtilityGrid

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project

#: Display name of each risk field of a ``by_p`` entry and its explanation, from the measure catalogue.
MEASURE_NAMES: dict[str, str] = {name: f.label for name, f in RISK_FIELDS.items()}
MEASURE_EXPLANATION: dict[str, str] = {name: m.explanation for name, m in FIELD_MEASURE.items()}


def is_proportion(measure: str) -> bool:
    """Whether the measure is a share of people or draws (written as a percentage)."""
    return measure in RISK_FIELDS and RISK_FIELDS[measure].proportion


def format_measure(measure: str, value: float | None) -> str:
    """A risk value as the report writes it: proportions as percentages, EM and KL as plain numbers."""
    return share(value) if is_proportion(measure) else number(value)


def measure_columns(measures: list[str]) -> list[str]:
    """Column titles for :func:`measure_cells`: each measure, with unicity followed by its interval."""
    out = []
    for m in measures:
        out.append(MEASURE_NAMES[m])
        if m == "unicity":
            out.append("95% interval")
    return out


def measure_cells(entry: dict, measures: list[str]) -> list[str]:
    """The formatted values of ``measures`` in one ``by_p`` entry, matching :func:`measure_columns`."""
    out = []
    for m in measures:
        out.append(format_measure(m, entry.get(m)))
        if m == "unicity":
            out.append(interval(entry.get("unicity_ci")) or "–")
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

    @property
    def measure_name(self) -> str:
        return MEASURE_NAMES[self.measure]

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


def resolve_inputs(project: Project, dataset: Dataset | None = None) -> ReportInputs:
    """Read the project's results and trade-off settings; problems become notes the report shows."""
    notes: list[str] = []
    choice = project.tradeoff
    measure = str(choice.get("risk_measure") or "unicity")
    if measure not in MEASURE_NAMES:
        notes.append(f"The project asks for risk measure {measure!r}, which is unknown: unicity is used.")
        measure = "unicity"
    wanted_p = choice.get("risk_p", 4)
    ceiling = float(choice.get("ceiling", 0.05))
    grid = grid_table(project.results) if project.results else None
    p = wanted_p
    if grid is not None:
        available = grid.p_values()
        if wanted_p not in available and available:
            p = min(available, key=lambda q: (abs((q or 0) - (wanted_p or 0)), -(q or 0)))
            notes.append(f"No results at p = {wanted_p} for every profile: p = {p} is used instead.")
        if not np.isfinite(grid.values(measure, p)).any() and measure != "unicity":
            notes.append(f"{MEASURE_NAMES[measure]} was not computed: unicity is used instead.")
            measure = "unicity"
    utility_name, utility = _utility(project, grid, notes)
    inp = ReportInputs(project, dataset, grid, measure, p, notes, utility_name, utility, ceiling)
    if grid is not None and utility is not None:
        inp.recommendation = recommend(
            grid.labels,
            inp.risk(),
            utility,
            ceiling,
            inp.risk_upper(),
            measure=inp.risk_label,
            utility_name=f"utility ({utility_name})",
        )
    return inp


def _utility(
    project: Project, grid: GridTable | None, notes: list[str]
) -> tuple[str | None, np.ndarray | None]:
    """The utility column for the Pareto analysis: the chosen expert domain or computed score, else the first
    domain with scores; ``(None, None)`` when no utility is known."""
    if grid is None:
        return None, None
    try:
        experts = UtilityGrid.from_dict(project.utility)
    except ValueError as exc:
        notes.append(f"The expert utility scores could not be read ({exc}).")
        experts = UtilityGrid()
    computed = project.analyses.get("information_loss") or {}
    wanted = project.tradeoff.get("utility")
    if wanted in COMPUTED_SCORES and computed:
        values = [computed.get(label, {}).get(wanted) for label in grid.labels]
        return wanted, np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)
    candidates = [wanted] if wanted in experts.domains else []
    if wanted and not candidates:
        notes.append(f"The chosen utility {wanted!r} has no scores in the project.")
    candidates += [d for d in experts.domains if d != wanted]
    for domain in candidates:
        column = experts.column(domain, grid.labels)
        if np.isfinite(column).any():
            return domain, column
    return None, None
