"""A project's analysis on data that exceed memory: the risk grid on the out-of-core engine (every person),
information loss on a random sample of people (it compares traces, so it needs events), profile sizes from
the places table and the overview's period — what ``run_analysis`` stores for data in memory."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.overview.project_data import ProjectData, run_engine
from privacy_studio.core.overview.sample import SAMPLE_PEOPLE, sample_people
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.project_run import (
    RunPlan,
    computed_utility,
    decision_inputs,
    decision_of,
    keep,
    profile_sizes,
    run_steps,
)

if TYPE_CHECKING:
    from privacy_studio.core.io.overview import DatasetOverview
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis


@dataclass
class SampledLoss:
    """Information loss and profile sizes measured on a sample of people, and the sentence saying whom."""

    utility: ComputedUtility
    sizes: ProfileSizes
    coverage: str


def out_of_core_plan(project: Project, data: ProjectData) -> RunPlan:
    """The run plan of a project whose events exceed memory: its engine (``auto`` resolved to DuckDB) reads
    the project's events files itself. Read on the caller's thread; ProjectError if the files are missing."""
    plan = RunPlan.of_project(project, project.events_files())
    return replace(plan, engine=run_engine(plan.engine, data))


def sampled_loss(
    plan: RunPlan,
    overview: DatasetOverview,
    people: int = SAMPLE_PEOPLE,
    control: TaskControl | None = None,
) -> SampledLoss:
    """Information loss of every profile of ``plan`` on a random sample of ``people`` of its files' people,
    and the unit areas of the grid's levels (the places and hierarchy are the whole data's) over the whole
    period of ``overview``. Reads no project: the caller takes the plan on its own thread."""

    if plan.files is None:
        raise ValueError("information loss on a sample reads the events files: the plan names none")
    control, settings = as_control(control), plan.settings
    sample = sample_people(
        plan.files,
        overview.people,
        people,
        settings.seed,
        plan.engine,
        control.sub(0.0, 0.5, "reading a sample of people"),
    )
    utility = computed_utility(sample.dataset, settings, control.sub(0.5, 1.0))
    sizes = profile_sizes(sample.dataset, settings.spatial + [s for s, _ in settings.cell_labels()])
    start, end = overview.period or (0, 0)
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
    """``run_analysis`` for data that exceed memory: the project's run (:func:`run_steps`, as the window
    runs it: the grid on DuckDB over every person, no seed spread, which would read every event five more
    times), then the information loss on a sample (said in the import report's notes). The project is
    unchanged when either fails or is cancelled. Returns its decision (None if it cannot be derived)."""

    control = as_control(control)
    plan = out_of_core_plan(project, data)
    steps = list(run_steps(plan, None, control.sub(0.0, 0.8)))
    loss = sampled_loss(plan, data.overview, control=control.sub(0.8, 1.0))
    project.clear_results()
    for step in [*steps, loss.utility, loss.sizes]:
        keep(project, step)
    project.import_report = report_with(data.overview.report, loss.coverage)
    return decision_of(decision_inputs(project))
