"""``privacy-studio report PROJECT.psproj --pdf OUT.pdf``: the PDF risk report of a project, headless.

Runs the project's analysis first when its results are missing (or with ``--rerun``), ending with the
protection search as ``project run`` does; optionally the population extrapolation; then writes the same
report the studio exports.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from privacy_studio.cli import UserError
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.core.atomic import WriteError, write_text
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.report_details import DECISIONS, ReportDetails

if TYPE_CHECKING:
    from collections.abc import Callable

    from privacy_studio.core.analyses import PopulationExtrapolation
    from privacy_studio.core.overview.project_data import ProjectData
    from privacy_studio.core.progress import TaskControl
    from privacy_studio.core.project import Project
    from privacy_studio.core.report import ReportContent
    from privacy_studio.core.report.inputs import ReportInputs


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write the PDF risk report of a project (runs the analysis first if results are missing)",
        description="Write the PDF risk report of a .psproj project: title page, summary for decision "
        "makers, method, results, limitations and per-profile appendix.",
    )
    p.add_argument("project", help="the project file (.psproj)")
    p.add_argument("--pdf", required=True, metavar="OUT.pdf", help="where to write the report")
    p.add_argument(
        "--rerun", action="store_true", help="recompute the risk results even if the project has them"
    )
    p.add_argument(
        "--population",
        type=int,
        metavar="N",
        help="also extrapolate unicity to a population of N people (reruns one profile on user subsets)",
    )
    p.add_argument("--save", action="store_true", help="store newly computed results in the project file")
    p.add_argument("--text", metavar="OUT.txt", help="also write the report as plain text")
    record = p.add_argument_group(
        "decision record", "texts printed in the report's decision record (kept in the project with --save)"
    )
    for flag, (_, help_text) in DETAIL_FLAGS.items():
        record.add_argument(f"--{flag}", metavar="TEXT", help=help_text)
    record.add_argument("--decision", choices=[d for d in DECISIONS if d], help="the signer's decision")
    p.set_defaults(func=run)


#: Largest population the unicity curve is extrapolated to: over a hundred times the world's people.
MAX_POPULATION = 10**12

#: Command-line flag -> (ReportDetails field, help).
DETAIL_FLAGS = {
    "description": ("description", "what the project is about"),
    "purpose": ("purpose", "why the data is released"),
    "recipient": ("recipient", "who receives it"),
    "release-format": ("release_format", "the columns that will be published"),
    "data-description": ("data_description", "the data in words (default: from the input file)"),
    "p-rationale": ("p_rationale", "why this reference p (default: the studio's text, with sources)"),
    "ceiling-rationale": ("ceiling_rationale", "why this ceiling (default: the studio's text, with sources)"),
    "protections": ("protections", "other protections that go with the release"),
    "signer": ("signer_name", "name of the person who signs"),
    "signer-role": ("signer_role", "their role"),
    "sign-date": ("sign_date", "date of the signature"),
}


def apply_details(project: Project, args: argparse.Namespace) -> bool:
    """Put the decision-record texts given on the command line into the project; True if any was given."""

    from privacy_studio.core.report.record import sign_details

    given = {
        field: getattr(args, flag.replace("-", "_"))
        for flag, (field, _) in DETAIL_FLAGS.items()
        if getattr(args, flag.replace("-", "_")) is not None
    }
    if args.decision is not None:
        given["decision"] = args.decision
    if given:
        details = replace(ReportDetails.of(project.analyses), **given)
        sign_details(project, details).store(project.analyses)
    return bool(given)


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.project import Project, ProjectError

    pdf = Path(args.pdf)
    if pdf.suffix.lower() != ".pdf":
        raise UserError(f"--pdf {pdf}: the report file name must end in .pdf")
    if args.population is not None and not 1 <= args.population <= MAX_POPULATION:
        raise UserError(
            f"--population must be a number of people from 1 to {MAX_POPULATION:,}, got {args.population:,}"
        )
    try:
        project = Project.load(args.project)
    except ProjectError as exc:
        raise UserError(str(exc)) from None
    bar = ProgressBar(sys.stderr)
    control = TaskControl(bar)
    try:
        data = _load(project, control.sub(0.0, 0.1), args.rerun)
        computed, content = _compute(project, data, args, control.sub(0.1, 0.85))
        computed = apply_details(project, args) or computed
        if computed and args.save:
            project.save()
        from privacy_studio.rendering import render_pdf

        render_pdf(content(), pdf, control.sub(0.85, 1.0))
    except (ProjectError, ValueError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        return 130
    finally:
        bar.close()
    if args.text:
        try:
            write_text(args.text, content().text())
        except WriteError as exc:
            raise UserError(str(exc)) from None
    print(f"report written to {pdf}")
    return 0


def _load(project: Project, control: TaskControl, rerun: bool) -> ProjectData | None:
    """The project's data (events when they fit in memory, else their overview), or None (with a warning)
    when its input files are missing; data changed since the project measured it is refused unless the
    analysis runs again (``rerun`` or no results yet)."""
    from privacy_studio.cli.project import note_changed
    from privacy_studio.core.io import ReaderError
    from privacy_studio.core.overview.project_data import open_project_data

    missing = project.missing_sources()
    for source in missing:
        print(f"warning: input file not found: {source.path}", file=sys.stderr)
    if project.events_source() in missing:
        return None
    if rerun or not project.results:
        note_changed(project.rehash_changed())
    try:
        return open_project_data(project, control)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None


def _compute(
    project: Project, data: ProjectData | None, args: argparse.Namespace, control: TaskControl
) -> tuple[bool, Callable[[], ReportContent]]:
    """Run what the report needs and the project lacks; True if the project changed, and the report's
    content (built once, when first asked, on the one decision of this command)."""

    from privacy_studio.cli.project import run_project
    from privacy_studio.core.overview.project_data import NEEDS_MEMORY
    from privacy_studio.core.project import jsonable
    from privacy_studio.core.report import build_report
    from privacy_studio.core.report.inputs import resolve_inputs

    changed, decided = False, None
    dataset = data.dataset if data is not None else None
    if not project.results or args.rerun:
        if data is None:
            raise ValueError(f"{project.path}: the project has no results and its input data is missing")
        decided = run_project(project, data, control.sub(0, 0.7))  # and its search, as ``project run``
        changed = True
    if project.import_report is None and dataset is not None:
        project.import_report = jsonable(dataset.report.to_dict())
        changed = True
    if project.import_report is None and data is not None:
        project.import_report = jsonable(data.overview.report.to_dict())
        changed = True
    inputs = resolve_inputs(project, dataset, decided)
    inputs.overview = data.overview if data is not None else None
    if args.population is not None:
        if dataset is None:
            missing = f"it {NEEDS_MEMORY}" if data is not None else "the project's input data is missing"
            raise ValueError(f"--population: {missing}")
        project.store(extrapolate(inputs, args.population, control.sub(0.7, 1.0)))
        changed = True
    return changed, cache(lambda: build_report(project, dataset, inputs))


def extrapolate(inp: ReportInputs, population: int, control: TaskControl) -> PopulationExtrapolation:
    """The chosen risk measure (as the window extrapolates it) of the recommended (else first) profile on
    10 % … 100 % user subsets, for the report's fit."""

    from privacy_studio.core.analyses import PopulationExtrapolation
    from privacy_studio.core.risk.catalogue import canonical
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.tradeoff.extrapolation import runner_estimator, subsample_curve

    project, dataset = inp.project, inp.dataset
    assert inp.grid is not None and dataset is not None
    rec = inp.recommendation
    i = inp.grid.labels.index(rec.label) if rec is not None and rec.label is not None else 0
    p = inp.p if inp.p is not None else 1
    settings = replace(
        RiskSettings.from_dict(project.settings),
        spatial=[inp.grid.spatial[i]],
        temporal=[inp.grid.temporal[i]],
        cells=None,
        p_values=[p],
        measures=[canonical(inp.measure)],
        reference_p=p,
    )
    seed = settings.seed
    estimate = runner_estimator(dataset, settings, inp.measure, p)
    curve = subsample_curve(dataset.events.n_users, estimate, seed=seed, control=control)
    return PopulationExtrapolation(
        inp.measure, p, inp.grid.labels[i], curve.n.tolist(), curve.risk.tolist(), population
    )
