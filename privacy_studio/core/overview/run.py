"""A project's analysis on data that exceed memory: the risk grid on the out-of-core engine (every person),
information loss on a random sample of people (it compares traces, so it needs events), profile sizes from
the places table and the overview's period — what ``run_analysis`` stores for data in memory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.overview.project_data import ProjectData, run_engine
from privacy_studio.core.overview.sample import SAMPLE_PEOPLE, sample_people
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.project_run import computed_utility, decision_inputs, decision_of, profile_sizes
from privacy_studio.core.risk.settings import RiskSettings

if TYPE_CHECKING:
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis


@dataclass
class SampledLoss:
    """Information loss and profile sizes measured on a sample of people, and the sentence saying whom."""

    utility: ComputedUtility
    sizes: ProfileSizes
    coverage: str


def sampled_loss(
    project: Project,
    data: ProjectData,
    settings: RiskSettings,
    people: int = SAMPLE_PEOPLE,
    control: TaskControl | None = None,
) -> SampledLoss:
    """Information loss of every profile of ``settings`` on a random sample of ``people`` people, and the
    unit areas of the grid's levels (the places and hierarchy are the whole data's) over the whole period."""

    control = as_control(control)
    sample = sample_people(
        project.events_files(),
        data.overview.people,
        people,
        settings.seed,
        project.engine_choice(),
        control.sub(0.0, 0.5, "reading a sample of people"),
    )
    utility = computed_utility(sample.dataset, settings, control.sub(0.5, 1.0))
    sizes = profile_sizes(sample.dataset, settings.spatial + [s for s, _ in settings.cell_labels()])
    start, end = data.overview.period or (0, 0)
    sizes.period_seconds = float(end - start)
    return SampledLoss(utility, sizes, sample.coverage("Information loss"))


def report_with(report: ImportReport, note: str) -> dict:
    """The import report as the project keeps it, with ``note`` added (the window and the report show it)."""
    copy = ImportReport.from_dict(report.to_dict())
    copy.note(note)
    return jsonable(copy.to_dict())


def run_out_of_core(
    project: Project, data: ProjectData, control: TaskControl | None = None
) -> TradeoffAnalysis | None:
    """``run_analysis`` for data that exceed memory: the grid on DuckDB over every person, the information
    loss on a sample (said in the import report's notes); the seed spread is not measured (it would read
    every event five more times). Returns the project's decision (None if it cannot be derived)."""

    control = as_control(control)
    if not project.settings:
        raise ValueError(f"{project.name}: the project has no grid yet (spatial and temporal levels)")
    settings = project.with_attributes(RiskSettings.from_dict(project.settings))
    engine = run_engine(project.engine_choice(), data)
    results = list(engine.run_grid(None, settings, project.events_files(), control=control.sub(0.0, 0.8)))
    loss = sampled_loss(project, data, settings, control=control.sub(0.8, 1.0))
    project.clear_results()
    project.results = results
    project.import_report = report_with(data.overview.report, loss.coverage)
    project.store(loss.utility)
    project.store(loss.sizes)
    return decision_of(decision_inputs(project))
