"""``privacy-studio aggregate PROJECT --profile S:T --kind density|od --epsilon E --max-points-per-person N
--out F.csv``: a differentially private table of people per place (or per move) and time bin."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from privacy_studio.cli import UserError
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.core.progress import Cancelled, TaskControl

if TYPE_CHECKING:
    from privacy_studio.core.aggregate import AggregateManifest


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "aggregate",
        help="write a differentially private table of people per place and time bin (or per move)",
        description="Count people per cell of a profile's full grid (density) or moves between consecutive "
        "places per time bin (od), each person bounded to N cells, with noise from OpenDP for a privacy "
        "loss (ε, δ) covering the whole file; a manifest FILE.csv.manifest.json is written beside it and "
        "the project records it.",
    )
    p.add_argument("project", help="the project file (.psproj)")
    p.add_argument(
        "--profile", required=True, metavar="SPATIAL:TEMPORAL", help="e.g. district:1w or grid:5:1d"
    )
    p.add_argument("--kind", choices=("density", "od"), default="density", help="density (default) or od")
    p.add_argument("--epsilon", type=float, required=True, metavar="E", help="privacy loss ε (> 0)")
    p.add_argument(
        "--delta",
        type=float,
        default=0.0,
        metavar="D",
        help="δ in [0, 1): 0 (default) uses discrete Laplace noise, above 0 discrete Gaussian noise",
    )
    p.add_argument(
        "--max-points-per-person",
        type=int,
        required=True,
        metavar="N",
        help="contribution bound: each person counts in at most N cells (their N most frequent)",
    )
    p.add_argument(
        "--budget",
        type=float,
        metavar="E",
        help="the total ε all aggregates of these people may spend: a file that would take the project's "
        "aggregates (earlier ones included) over it is refused before any data is read",
    )
    p.add_argument("--out", required=True, metavar="FILE.csv", help="the aggregate file")
    p.add_argument("--overwrite", action="store_true", help="replace an existing file and manifest")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.aggregate import (
        AggregateError,
        AggregateOptions,
        prepare_aggregate,
        write_aggregate,
    )
    from privacy_studio.core.aggregate.budget import check_budget
    from privacy_studio.core.aggregate.export import check_aggregate_targets, grid_profiles
    from privacy_studio.core.aggregate.manifest import privacy_spent
    from privacy_studio.core.analyses import AnalysisError, record_release
    from privacy_studio.core.io import ReaderError
    from privacy_studio.core.project import Project, ProjectError
    from privacy_studio.core.release import ReleaseError

    bar = ProgressBar(sys.stderr)
    try:
        options = AggregateOptions.at(
            args.profile, args.kind, args.epsilon, args.delta, args.max_points_per_person
        )
        options.validate()
        check_aggregate_targets(args.out, args.overwrite)
        project = Project.load(args.project)
        check_budget(privacy_spent(project.analyses), options, args.budget)
        control = TaskControl(bar)
        dataset = project.load_dataset(control.sub(0.0, 0.2))
        prepared = prepare_aggregate(dataset, options, control.sub(0.2, 0.8), grid_profiles(project))
        manifest = write_aggregate(
            prepared,
            args.out,
            project=project,
            overwrite=args.overwrite,
            control=control.sub(0.8, 1.0),
            budget=args.budget,
        )
    except (AggregateError, ReleaseError, ProjectError, ReaderError, AnalysisError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        print("aggregate cancelled: nothing was written", file=sys.stderr)
        return 130
    finally:
        bar.close()
    print(summary(manifest))
    record_release(project.analyses, "aggregate", manifest)
    try:
        project.save()
    except ProjectError as exc:
        print(
            f"warning: the aggregate is written, but the project could not record it: {exc}", file=sys.stderr
        )
        return 0
    print(f"recorded in {project.path} (the report's Aggregate release section)")
    return 0


def summary(manifest: AggregateManifest) -> str:
    """What was written, the guarantee, the expected error and what the bound and the noise cost."""
    from privacy_studio.core.aggregate.figures import SCORE_WORDS
    from privacy_studio.core.aggregate.options import plain

    m, f, o = manifest.mechanism, manifest.not_private, manifest.options
    return "\n".join(
        [
            f"aggregate written: {manifest.file} ({manifest.rows:,} cells: {o.label}) and "
            f"{manifest.file}.manifest.json",
            f"mechanism: {m.describe()}",
            f"privacy loss so far: {_with_this(manifest)}",
            f"expected absolute error per cell {plain(m.expected_abs_error, 3)} people (an empty cell, "
            f"clamped at 0: {plain(m.expected_abs_error_empty, 3)}); within ±{m.error_bound_95} in 95 % of "
            "cells",
            f"bound: at most {o.max_points_per_person} cells per person; {f.people_cut:,} of "
            f"{f.people:,} people had more and were cut ({f.contributions_cut:,} of "
            f"{f.contributions:,} person-cells not counted)",
            f"observed mean absolute error per cell: {plain(f.mean_abs_error_bounded, 3)} against the "
            f"bounded counts (the noise), {plain(f.mean_abs_error_true, 3)} against the true counts (noise "
            "and bound)",
            f"utility ({SCORE_WORDS[f.score]}, 0-10, against the true aggregate at this profile): "
            f"{f.utility:.2f}; the bound alone: {f.utility_bound_only:.2f}",
            f"utility against the finest profile {f.finest or '–'} (as microdata candidates are scored): "
            + (f"– ({f.vs_finest_problem})" if f.utility_vs_finest is None else f"{f.utility_vs_finest:.3f}"),
            "the figures on people cut, observed error and utility are computed on the true data: keep them "
            "with the manifest's part marked not private, out of the publication",
        ]
    )


def _with_this(manifest: AggregateManifest) -> str:
    """What the project's aggregates spend together now that this file is written, and the budget."""
    from privacy_studio.core.aggregate.budget import PrivacyLoss
    from privacy_studio.core.aggregate.options import plain

    after = (manifest.before or PrivacyLoss()).plus(manifest.options).describe()
    return after if manifest.budget is None else f"{after} (budget ε = {plain(manifest.budget)})"
