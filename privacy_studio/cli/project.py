"""``privacy-studio project new|run``: create a project from a data file and run its analysis, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privacy_studio.cli import UserError
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.cli._reader_options import add_reader_arguments, reader_options_from_args
from privacy_studio.cli.risk import (
    PRICE_HELP,
    add_attribute_arguments,
    attribute_settings,
    parse_p_values,
    split_list,
)
from privacy_studio.core.progress import Cancelled, TaskControl


def new(args: argparse.Namespace) -> int:
    """Create a project file naming the data, its reader options and the grid; nothing is run yet."""
    from privacy_studio.core.project import Project, ProjectError
    from privacy_studio.core.risk.settings import RiskSettings

    out = Path(args.out)
    if out.suffix != ".psproj":
        raise UserError(f"--out {out}: a project file name must end in .psproj")
    if out.exists() and not args.force:
        raise UserError(f"--out {out}: the file exists; give --force to replace it")
    if not Path(args.data).exists():
        raise UserError(f"{args.data}: no such data file")
    try:
        options = reader_options_from_args(args)
        settings = RiskSettings(
            spatial=split_list(args.spatial, "--spatial"),
            temporal=split_list(args.temporal, "--temporal"),
            p_values=parse_p_values(args.p),
            price=split_list(args.price, "--price"),
            seed=args.seed,
            reference_p=args.reference_p,
            **{**attribute_settings(args), "attributes": None},  # the project names the file as a source
        )
        settings.validate()
        project = Project(name=args.name, settings=settings.to_dict())
        project.add_source(args.data, options.to_dict())
        if args.attributes:
            check_columns(args.attributes, settings.sensitive)
            project.add_source(args.attributes, {}, role="attributes")
        project.save(out)
    except (ValueError, ProjectError, OSError) as exc:
        raise UserError(str(exc)) from None
    print(f"project written to {out}; run it with: privacy-studio project run {out}")
    return 0


def check_columns(path: str, columns: list[str]) -> None:
    """``ValueError`` unless the attributes file at ``path`` reads and has every column of ``columns``."""
    from privacy_studio.core.measures.attributes import read_attributes

    table = read_attributes(path)
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"--sensitive {', '.join(missing)}: not a column of {path} (it has {', '.join(table.columns)})"
        )


def run(args: argparse.Namespace) -> int:
    """Run the project's analysis (risk grid, computed utility, protection search) and save it."""
    from privacy_studio.core.project import Project, ProjectError
    from privacy_studio.core.tradeoff.candidates import SearchResult
    from privacy_studio.core.utility import utility_title

    try:
        project = Project.load(args.project)
    except ProjectError as exc:
        raise UserError(str(exc)) from None
    code = analyse_project(project, search=not args.no_search)
    if code == 0:
        try:
            project.save()
        except ProjectError as exc:
            raise UserError(str(exc)) from None
        print(f"{len(project.results)} profiles analysed; results saved in {project.path}")
        found = project.analysis(SearchResult)
        if found is not None:
            print(*found.lines(utility_title(found.utility_name)), sep="\n")
    return code


def search_project(project, dataset=None, control=None, required: bool = True) -> int:
    """Run the protection search on the project's data and keep it in the project (not saved); 130 when
    cancelled, the project then unchanged. A search that cannot be derived (no utility, no such p) is an
    error when ``required``, else a note."""
    from privacy_studio.core.io import ReaderError
    from privacy_studio.core.project import ProjectError

    bar = ProgressBar(sys.stderr) if control is None else None
    control = control or TaskControl(bar)
    try:
        if dataset is None:
            dataset = project.load_dataset(control.sub(0.0, 0.1))
        keep_search(project, dataset, control.sub(0.1, 1.0), required)
    except (ReaderError, ProjectError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        return 130
    finally:
        if bar is not None:
            bar.close()
    return 0


def keep_search(project, dataset, control, required: bool = True, analysis=None) -> None:
    """Run the protection search on the decision ``analysis`` (derived when None) and keep it in the
    project (not saved); a search that cannot be derived is a UserError when ``required``, else a note.
    ``Cancelled`` propagates, the project then unchanged."""
    from privacy_studio.core.release.options import ReleaseError
    from privacy_studio.core.release.search import search

    try:
        step = control.sub(0.0, 1.0, "protection search")
        found = search(project, dataset, control=step, analysis=analysis)
    except (ReleaseError, ValueError) as exc:  # a damaged release record is an AnalysisError, a ValueError
        if required:
            raise UserError(f"no protection search: {exc}") from None
        print(f"note: no protection search ({exc})", file=sys.stderr)
        return
    project.store(found)


def analyse_project(project, search: bool = False) -> int:
    """Load the project's data and run its analysis with a progress bar (then, with ``search``, the
    protection search); 130 when cancelled, the project then unchanged."""
    from privacy_studio.core.io import ReaderError
    from privacy_studio.core.overview.project_data import open_project_data
    from privacy_studio.core.project import ProjectError

    bar = ProgressBar(sys.stderr)
    control = TaskControl(bar)
    try:
        note_changed(project.rehash_changed())
        data = open_project_data(project, control.sub(0.0, 0.1))
        run_project(project, data, control.sub(0.1, 1.0), search)
    except (ReaderError, ProjectError, ValueError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        return 130  # nothing is saved: the project file is unchanged
    finally:
        bar.close()
    return 0


def run_project(project, data, control: TaskControl, search: bool = True):
    """The project's run on ``data`` (out of core when its events exceed memory) then, with ``search``,
    the protection search on the run's own decision: what ``project run`` and ``report`` both do, so both
    recommend the same. Returns that decision (None if none can be derived); ``Cancelled`` propagates."""
    from privacy_studio.core.overview.project_data import NEEDS_MEMORY
    from privacy_studio.core.overview.run import run_out_of_core
    from privacy_studio.core.project_run import run_analysis

    if data.dataset is None:  # data larger than memory (issue #30): the grid out of core
        decided = run_out_of_core(project, data, control)
        print(f"note: {(project.import_report or {}).get('notes', [''])[-1]}", file=sys.stderr)
        if search:
            print(f"note: no protection search: it {NEEDS_MEMORY}", file=sys.stderr)
        return decided
    decided = run_analysis(project, data.dataset, control.sub(0.0, 0.8 if search else 1.0))
    if search:
        keep_search(project, data.dataset, control.sub(0.8, 1.0), required=False, analysis=decided)
    return decided


def note_changed(sources: list) -> None:
    """Say which inputs changed since the project last measured them (the new run measures them as is)."""
    for source in sources:
        print(
            f"note: {source.path} changed since the project last measured it: the analysis runs on its "
            "current content and the project records its new SHA-256",
            file=sys.stderr,
        )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("project", help="create a project from a data file, or run a project's analysis")
    commands = p.add_subparsers(dest="project_command", required=True, metavar="new|run")
    n = commands.add_parser(
        "new",
        help="create a .psproj project for a data file and a grid of profiles",
        description="Create a project file naming the data file, how to read it and the grid of profiles "
        "to evaluate. Nothing is computed: run it with 'privacy-studio project run'.",
    )
    n.add_argument("data", help="data file (CSV/TSV/Parquet, gz/zip) or a folder of one file per user")
    n.add_argument("--spatial", required=True, metavar="LEVELS", help="comma list: raw, grid:<km>, levels")
    n.add_argument("--temporal", required=True, metavar="WIDTHS", help="comma list such as 1h,6h,1d,1w")
    n.add_argument("--price", default="none", metavar="CHOICES", help=PRICE_HELP)
    n.add_argument("--p", default="1-10", help="numbers of known points: 1-10 or 1,2,4 (default 1-10)")
    n.add_argument("--reference-p", type=int, default=4, help="p of the per-user details (default 4)")
    n.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    n.add_argument("--name", required=True, help="the project's name (the report's title)")
    n.add_argument("--out", required=True, metavar="P.psproj", help="the project file to write")
    n.add_argument("--force", action="store_true", help="replace --out if it exists")
    add_attribute_arguments(n)
    add_reader_arguments(n)
    n.set_defaults(func=new)
    r = commands.add_parser(
        "run",
        help="run a project's analysis and save it in the project",
        description="Read the project's data, run the risk grid on the project's engine, compute every "
        "profile's information loss, and save both in the project file.",
    )
    r.add_argument("project", help="the project file (.psproj)")
    r.add_argument(
        "--no-search",
        action="store_true",
        help="skip the protection search (every profile with a ladder of suppression settings, measured "
        "as written), which the run otherwise ends with",
    )
    r.set_defaults(func=run)
