"""``privacy-studio release PROJECT.psproj --out FILE``: write the data at a profile and measure the file."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from privacy_studio.cli import UserError
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.core.progress import Cancelled, TaskControl

if TYPE_CHECKING:
    from privacy_studio.core.project import Project
    from privacy_studio.core.release import ReleaseManifest, ReleaseOptions


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "release",
        help="write the dataset at a profile (new pseudonyms, optional suppression) and measure the file",
        description="Write the project's data generalized to one profile, read the file back and measure it; "
        "a manifest FILE.manifest.json is written beside it and the release is recorded in the project.",
    )
    p.add_argument("project", help="the project file (.psproj)")
    _add_shape(p)
    _add_suppression(p)
    p.add_argument("--overwrite", action="store_true", help="replace an existing release, manifest, mapping")
    p.set_defaults(func=run, derived_outputs=_manifest_output)


def _add_shape(p: argparse.ArgumentParser) -> None:
    """Where the release goes, at which profile, and what its rows and columns hold."""
    p.add_argument("--out", required=True, metavar="FILE", help="the release: FILE.csv or FILE.parquet")
    p.add_argument(
        "--profile",
        metavar="SPATIAL:TEMPORAL",
        help="e.g. district:1w, grid:2:6h or shop:1d:price/3 (default: the project's recommended candidate, "
        "profile and suppression, from its protection search; else the profile it recommends)",
    )
    p.add_argument(
        "--price",
        metavar="N",
        help="card transactions: publish each amount as the range of its bin, N bins per factor of ten "
        "(e.g. 3: 10–21.54); none = no amount (default: the recommended profile's choice, else none)",
    )
    p.add_argument(
        "--rows",
        choices=("points", "events"),
        default="points",
        help="points: one row per person, unit and time bin (default); events: one row per event",
    )
    p.add_argument(
        "--counts",
        action="store_true",
        help="add each point's event count to per-point rows (k-anonymity then compares (point, count) "
        "pairs; the figures are measured with the column)",
    )
    p.add_argument(
        "--columns",
        default="",
        metavar="LIST",
        help="event columns to add to per-event rows: interaction,direction,amount,duration,merchant "
        "(default none)",
    )
    p.add_argument("--centres", action="store_true", help="add each unit's centre (lat, lon)")
    p.add_argument(
        "--mapping-out", metavar="FILE.csv", help="also write original id -> pseudonym here (kept apart)"
    )


def _add_suppression(p: argparse.ArgumentParser) -> None:
    """What the release leaves out, and the reason to write one that fails the release criteria."""
    p.add_argument(
        "--min-people-per-point", type=int, metavar="M", help="drop place-time points of fewer than M people"
    )
    p.add_argument(
        "--k-anonymity",
        type=int,
        metavar="K",
        help="keep only people whose whole trace is shared by at least K people",
    )
    p.add_argument(
        "--max-points-per-person", type=int, metavar="N", help="keep each person's N most visited points"
    )
    p.add_argument(
        "--accept-risk",
        metavar="REASON",
        help="write a release that fails the project's release criteria; the reason is recorded in the "
        "manifest and the report",
    )


def _manifest_output(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The manifest written beside the release (checked with the other outputs before any work)."""
    from privacy_studio.core.release.manifest import manifest_path

    return [("the manifest", str(manifest_path(args.out)))]


def _options(args: argparse.Namespace, project: Project) -> ReleaseOptions:
    from privacy_studio.core.generalize import price_label
    from privacy_studio.core.release import ReleaseError, ReleaseOptions, parse_profile
    from privacy_studio.core.release.defaults import split_key
    from privacy_studio.core.release.search import recommended_candidate
    from privacy_studio.core.release_advice import recommended_price, recommended_profile
    from privacy_studio.core.tradeoff.candidates import SUPPRESSION_FLAGS

    price = args.price or "none"
    if args.profile:
        profile = parse_profile(args.profile)
        spatial, temporal = profile.spatial.label, profile.temporal.label
        price = args.price or price_label(profile.price)
    elif (candidate := recommended_candidate(project)) is not None:
        spatial, temporal, price = split_key(candidate.profile)
        price = args.price or price
        if not any(getattr(args, name) is not None for name in SUPPRESSION_FLAGS):
            for name, value in candidate.suppression.to_dict().items():
                setattr(args, name, value)
        print(f"profile: {candidate.name()}, the project's recommended candidate", file=sys.stderr)
    else:
        try:
            spatial, temporal = recommended_profile(project)
        except ReleaseError as exc:
            raise ReleaseError(f"{exc}{_suggested(project)}") from None
        price = args.price or recommended_price(project)
        amount = "" if price == "none" else f" × price/{price}"
        print(f"profile: {spatial} × {temporal}{amount}, the project's recommendation", file=sys.stderr)
    options = ReleaseOptions(
        spatial,
        temporal,
        rows=args.rows,
        columns=[c.strip() for c in args.columns.split(",") if c.strip()],
        centres=args.centres,
        counts=args.counts,
        min_people_per_point=args.min_people_per_point,
        k_anonymity=args.k_anonymity,
        max_points_per_person=args.max_points_per_person,
        price=price,
    )
    options.validate()
    return options


def _suggested(project: Project) -> str:
    """What would pass with suppression, tried on the data (empty when the project has no results)."""
    from privacy_studio.core.release_advice import candidates, suggestions

    if not candidates(project).by_risk:
        return ""
    print("no recommendation: trying the least risky profiles with suppression", file=sys.stderr)
    found = suggestions(project, project.load_dataset())
    if not found:
        return "; none of the least risky profiles passes with --k-anonymity 2 either"
    return "; these pass the criteria as written: " + "; ".join(s.text() for s in found)


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.analyses import AnalysisError, record_release
    from privacy_studio.core.io import ReaderError
    from privacy_studio.core.project import Project, ProjectError
    from privacy_studio.core.release import ReleaseError, prepare_release, write_release
    from privacy_studio.core.release.defaults import measure_settings, policy
    from privacy_studio.core.release.export import FailsCriteria, check_release_name, check_target, refusal
    from privacy_studio.core.release.manifest import manifest_path, rows_releases

    bar = ProgressBar(sys.stderr)
    try:
        check_release_name(args.out)
        check_target(args.out, args.overwrite)
        check_target(manifest_path(args.out), args.overwrite, "manifest")
        if args.mapping_out:
            check_target(args.mapping_out, args.overwrite, "pseudonym mapping")
        project = Project.load(args.project)
        options = _options(args, project)
        control = TaskControl(bar)
        dataset = project.load_dataset(control.sub(0.0, 0.2))
        earlier = rows_releases(project.analyses)
        prepared = prepare_release(
            dataset, options, measure_settings(project), control.sub(0.2, 0.7), policy(project), earlier
        )
        manifest = write_release(
            prepared,
            args.out,
            project=project,
            mapping_out=args.mapping_out,
            overwrite=args.overwrite,
            control=control.sub(0.7, 1.0),
            accept_risk=args.accept_risk,
        )
    except FailsCriteria:
        raise UserError(
            refusal(prepared, 'write it anyway with --accept-risk "REASON"') + "; nothing was written"
        ) from None
    except (ReleaseError, ProjectError, ReaderError, AnalysisError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        print("release cancelled: nothing was written", file=sys.stderr)
        return 130
    finally:
        bar.close()
    print(summary(manifest))
    record_release(project.analyses, "rows", manifest)
    try:
        project.save()
    except ProjectError as exc:
        print(f"warning: the release is written, but the project could not record it: {exc}", file=sys.stderr)
        return 0
    print(f"recorded in {project.path} (the report's Release section)")
    return 0


def summary(manifest: ReleaseManifest) -> str:
    """What was written, what suppression removed and the figures measured on the file."""
    before, after, fig = manifest.before, manifest.released, manifest.measured_on_release
    lines = [
        f"release written: {manifest.release_file} ({manifest.release_rows} rows, {manifest.profile_label}) "
        f"and {manifest.release_file}.manifest.json",
        f"people released: {after.people} of {before.people}; events: {after.events} of {before.events}",
    ]
    thresholds = manifest.options.to_dict()
    lines += [
        f"  removed {r.people} people, {r.events} events, {r.points} points: {r.describe(thresholds[r.step])}"
        for r in manifest.removed
    ]
    unicity = "-" if fig.unicity is None else f"{fig.unicity:.4f}"
    ci = "" if fig.unicity_ci is None else f" [{fig.unicity_ci[0]:.4f}, {fig.unicity_ci[1]:.4f}]"
    lines.append(
        f"measured on the rows as written (columns {', '.join(manifest.columns)}): k = {fig.k}, unique "
        f"whole traces {fig.share_unique:.4f} of {fig.people} people; unicity at p = {fig.p}: "
        f"{unicity}{ci} (estimate on {fig.n_sampled} sampled, {fig.n_excluded} with fewer than {fig.p} "
        "points left out)"
    )
    for c in manifest.criteria:
        note = f", {c.note}" if c.note else ""
        verdict = "pass" if c.passed else "FAIL"
        lines.append(f"  {verdict}: {c.name}: {c.value_text()} (limit {c.limit:.4f}){note}")
    for x in manifest.linkage_to_earlier:
        lines.append(
            f"  linkage to the earlier release {x.release_file} (matching attack at {x.profile}): "
            + (
                f"not measured ({x.note})"
                if x.share is None
                else f"{x.relinked} of the {x.in_both} people in both re-linked ({x.share:.4f})"
            )
        )
    if manifest.accepted_risk:
        lines.append(
            f"written although it fails the release criteria; reason given: {manifest.accepted_risk}"
        )
    if manifest.project_kanon:
        k, unique = manifest.project_kanon.get("k"), manifest.project_kanon.get("share_below", {}).get("2")
        lines.append(f"the project's own run at this profile: k = {k}, unique whole traces {unique:.4f}")
    if manifest.mapping_written:
        lines.append("pseudonym mapping written apart (keep it away from the release)")
    return "\n".join(lines)
