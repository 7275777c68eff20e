"""``privacy-studio attack``: matching, profiling, record linkage, transparency, per-user features."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from privacy_studio.cli import UserError

SIDES = (("identified", "the identified dataset (attacker's side)"), ("anonymous", "the anonymous dataset"))


def _load(args: argparse.Namespace, side: str) -> Any:
    """Read one side's dataset with its own format / side files and the shared time zone."""
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset

    options = ReaderOptions(
        format=getattr(args, f"{side}_format"),
        tz=args.tz,
        antennas=getattr(args, f"{side}_antennas"),
        locations=getattr(args, f"{side}_locations"),
        hierarchy=getattr(args, f"{side}_hierarchy"),
    )
    try:
        return load_dataset(getattr(args, side), options)
    except ReaderError as exc:
        raise UserError(str(exc)) from exc


def read_links(path: str | None) -> list[tuple[str, str]] | None:
    """Ground-truth pairs from a CSV with a header and two columns (identified id, anonymous id)."""
    if path is None:
        return None
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise UserError(f"cannot read the links file {path}: {exc}") from exc
    bad = next((i for i, r in enumerate(rows[1:], start=2) if len(r) < 2), None)
    if bad is not None:
        raise UserError(f"{path}, line {bad}: expected two columns (identified id, anonymous id)")
    return [(r[0], r[1]) for r in rows[1:]]


def _write(result: dict, path: str | None) -> None:
    text = json.dumps(result, indent=2, allow_nan=False, default=float)
    if path is None:
        print(text)
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc}") from exc


def _progress(fraction: float, message: str) -> None:
    print(f"\r{100 * fraction:5.1f}%  {message:<50}", end="", file=sys.stderr, flush=True)


def _control(args: argparse.Namespace) -> Any:
    from privacy_studio.core.progress import TaskControl

    return TaskControl(None if args.quiet else _progress)


def run_matching(args: argparse.Namespace) -> int:
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.measures.attacks.matching import run_matching as attack

    a, b = _load(args, "identified"), _load(args, "anonymous")
    try:
        profile = Profile.parse(args.spatial, args.temporal, args.price_bins)
        result = attack(
            a.events,
            b.events,
            profile,
            hierarchy_identified=a.hierarchy,
            hierarchy_anonymous=b.hierarchy,
            links=read_links(args.links),
            c=args.c,
            epsilons=tuple(args.epsilons),
            control=_control(args),
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    _write(result.to_dict(), args.json)
    best = result.curve[0]
    print(
        f"\nmatched {best['matched']} users, {best['correct']} correctly (true pairs: {result.n_true_pairs})"
    )
    return 0


def run_profiling(args: argparse.Namespace) -> int:
    from privacy_studio.core.generalize import SpatialLevel
    from privacy_studio.core.measures.attacks.profiling import run_profiling as attack

    a, b = _load(args, "identified"), _load(args, "anonymous")
    try:
        result = attack(
            a.events,
            b.events,
            SpatialLevel.parse(args.spatial),
            distance=args.distance,
            hour_of_week=args.hour_of_week,
            hierarchy_identified=a.hierarchy,
            hierarchy_anonymous=b.hierarchy,
            links=read_links(args.links),
            sizes=tuple(args.sizes),
            top_k=tuple(args.top_k),
            seed=args.seed,
            control=_control(args),
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    _write(result.to_dict(), args.json)
    last = result.curve[-1]
    print(f"\naccuracy {last['accuracy']} over {last['population']} users ({args.distance})")
    return 0


def _tables(args: argparse.Namespace) -> tuple[Any, Any]:
    from privacy_studio.core.measures.attacks.features import read_numeric_table

    orig, cols = read_numeric_table(args.original, args.columns)
    masked, mcols = read_numeric_table(args.masked, args.columns)
    if len(cols) != len(mcols):
        raise ValueError(
            f"{args.original} has {len(cols)} numeric attributes but {args.masked} has {len(mcols)}: "
            "the files must have the same width (pick the same ones with --columns)"
        )
    return orig[cols].to_numpy(float), masked[mcols].to_numpy(float)


def run_linkage(args: argparse.Namespace) -> int:
    from privacy_studio.core.measures.attacks.linkage import DISTANCES, record_linkage

    try:
        x, y = _tables(args)
        result = record_linkage(x, y, tuple(args.distance or DISTANCES), seed=args.seed)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    _write(result, args.json)
    for name, row in result["distances"].items():
        print(f"{name:<12} {row['percent_correct']:6.2f} % correct re-identifications")
    return 0


def run_transparency(args: argparse.Namespace) -> int:
    from privacy_studio.core.measures.attacks.transparency import transparency_attack

    try:
        x, y = _tables(args)
        result = transparency_attack(x, y, window=args.window_ranks, p_percent=args.p_percent)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    _write(result, args.json)
    print(f"{100 * result['pinned_share']:.1f} % of records pinned to one masked record")
    return 0


def run_features(args: argparse.Namespace) -> int:
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset
    from privacy_studio.core.measures.attacks.features import user_features

    options = ReaderOptions(format=args.format, tz=args.tz, antennas=args.antennas, locations=args.locations)
    try:
        frame = user_features(load_dataset(args.data, options).events)
        frame.to_csv(args.out)
    except (ReaderError, ValueError, OSError) as exc:
        raise UserError(str(exc)) from exc
    print(f"wrote {len(frame)} users x {frame.shape[1]} attributes to {args.out}")
    return 0


def _common(p: argparse.ArgumentParser, with_json: bool = True) -> None:
    if with_json:
        p.add_argument(
            "--json", metavar="OUT", help="write the result as JSON here (default: standard output)"
        )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _two_datasets(p: argparse.ArgumentParser) -> None:
    from privacy_studio.core.io import FORMATS

    for side, what in SIDES:
        p.add_argument(f"--{side}", required=True, metavar="PATH", help=f"{what}: file or folder")
        p.add_argument(f"--{side}-format", choices=FORMATS, default="auto", help=f"format of {what}")
        p.add_argument(f"--{side}-antennas", metavar="CSV", help=f"antenna coordinates for {what}")
        p.add_argument(f"--{side}-locations", metavar="CSV", help=f"shop / place coordinates for {what}")
        p.add_argument(f"--{side}-hierarchy", metavar="CSV", help=f"spatial hierarchy for {what}")
    p.add_argument("--tz", default="UTC", help="IANA time zone of day / week bins (default UTC)")
    p.add_argument(
        "--links", metavar="CSV", help="ground truth: identified id, anonymous id (default: equal ids)"
    )
    _common(p)


def _two_tables(p: argparse.ArgumentParser) -> None:
    p.add_argument("--original", required=True, metavar="O.csv", help="original numeric file")
    p.add_argument("--masked", required=True, metavar="M.csv", help="masked file (row i masks row i of O)")
    p.add_argument("--columns", nargs="+", metavar="NAME", help="attributes to use (default: every column)")
    _common(p)


def register(sub: argparse._SubParsersAction) -> None:
    from privacy_studio.core.io import FORMATS
    from privacy_studio.core.measures.attacks.linkage import DISTANCES
    from privacy_studio.core.measures.attacks.matching import DEFAULT_EPSILONS
    from privacy_studio.core.measures.attacks.profiling import (
        DEFAULT_SIZES,
        DEFAULT_TOP_K,
    )
    from privacy_studio.core.measures.attacks.profiling import (
        DISTANCES as PDIST,
    )

    top = sub.add_parser(
        "attack", help="worst-case linkage attacks: matching, profiling, record linkage, ..."
    )
    kinds = top.add_subparsers(dest="attack", metavar="ATTACK", required=True)

    p = kinds.add_parser("matching", help="link two datasets of the same people (bivariate-Poisson score)")
    _two_datasets(p)
    p.add_argument("--spatial", default="raw", help="spatial level: raw, grid:<km> or a hierarchy level")
    p.add_argument("--temporal", default="1h", help="time bin width, e.g. 1h, 6h, 1d (default 1h)")
    p.add_argument("--price-bins", type=int, metavar="N", help="add log price bins, N per factor of ten")
    p.add_argument("--c", type=float, default=0.5, help="shared component θ = c·min(λ1, λ2) (default 0.5)")
    p.add_argument("--epsilons", type=float, nargs="+", default=list(DEFAULT_EPSILONS), help="ε values")
    p.set_defaults(func=run_matching)

    p = kinds.add_parser("profiling", help="link period 1 to period 2 through location histograms")
    _two_datasets(p)
    p.add_argument("--spatial", default="raw", help="spatial level of the histograms (default raw)")
    p.add_argument("--hour-of-week", action="store_true", help="histogram cells are place x hour-of-week")
    p.add_argument("--distance", choices=PDIST, default="js", help="histogram distance (default js)")
    p.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="population sizes")
    p.add_argument("--top-k", type=int, nargs="+", default=list(DEFAULT_TOP_K), help="k of top-k accuracy")
    p.add_argument("--seed", type=int, default=0, help="seed of the sub-population draws")
    p.set_defaults(func=run_profiling)

    p = kinds.add_parser("linkage", help="distance-based record linkage of a masked numeric file")
    _two_tables(p)
    p.add_argument("--distance", choices=DISTANCES, action="append", help="repeatable (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the learned-weights training sample")
    p.set_defaults(func=run_linkage)

    p = kinds.add_parser("transparency", help="candidate sets of the transparency attack on rank swapping")
    _two_tables(p)
    window = p.add_mutually_exclusive_group(required=True)
    window.add_argument("--window-ranks", type=int, metavar="W", help="published window in ranks")
    window.add_argument("--p-percent", type=float, metavar="P", help="published window in %% of the records")
    p.set_defaults(func=run_transparency)

    p = kinds.add_parser("features", help="write per-user numeric attributes of a dataset as CSV")
    p.add_argument("--data", required=True, metavar="PATH", help="event data file or folder")
    p.add_argument("--format", choices=FORMATS, default="auto")
    p.add_argument("--antennas", metavar="CSV")
    p.add_argument("--locations", metavar="CSV")
    p.add_argument("--tz", default="UTC", help="IANA time zone for active days (default UTC)")
    p.add_argument("--out", required=True, metavar="X.csv")
    p.set_defaults(func=run_features)
