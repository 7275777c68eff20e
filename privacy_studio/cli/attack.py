"""``privacy-studio attack``: matching, profiling, record linkage, transparency, per-user features."""

from __future__ import annotations

import argparse
import json
from typing import Any

from privacy_studio.cli import UserError
from privacy_studio.cli._output import write_output
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.cli.mask import column_names
from privacy_studio.core.atomic import atomic_write
from privacy_studio.core.choices import (
    DEFAULT_EPSILONS,
    DEFAULT_SIZES,
    DEFAULT_TOP_K,
    LINKAGE_DISTANCES,
    PROFILING_DISTANCES,
)
from privacy_studio.core.progress import TaskControl

SIDES = (("identified", "the identified dataset (attacker's side)"), ("anonymous", "the anonymous dataset"))


def _side(args: argparse.Namespace, side: str) -> dict[str, Any]:
    """One dataset of a request: its path and reader options (own format and side files, shared time zone)."""
    reader = {"format": getattr(args, f"{side}_format"), "tz": args.tz}
    for option in ("antennas", "locations", "hierarchy"):
        value = getattr(args, f"{side}_{option}")
        if value:
            reader[option] = value
    return {"path": getattr(args, side), "reader": reader}


def _request(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON-ready request of the chosen attack (the same form the studio saves in a project)."""
    if args.attack in ("matching", "profiling"):
        request = {
            "attack": args.attack,
            "identified": _side(args, "identified"),
            "anonymous": _side(args, "anonymous"),
            "links": args.links,
            "spatial": args.spatial,
        }
        if args.attack == "matching":
            keys = ("temporal", "price_bins", "c", "epsilons")
        else:
            keys = ("distance", "hour_of_week", "sizes", "top_k", "seed")
        return {**request, **{k: getattr(args, k) for k in keys}}
    request = {
        "attack": args.attack,
        "original": args.original,
        "masked": args.masked,
        "columns": column_names(args.columns),
    }
    if args.attack == "linkage":
        return {**request, "distances": args.distance, "seed": args.seed}
    return {**request, "window_ranks": args.window_ranks, "p_percent": args.p_percent}


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.measures.attacks.requests import describe, run_attack

    bar = ProgressBar(enabled=not args.quiet)
    control = TaskControl(bar)
    try:
        result = run_attack(_request(args), control)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    finally:
        bar.close()
    _write(result, args.json)
    if args.json:  # without --json the standard output is the JSON alone
        print(describe(args.attack, result))
    return 0


def _write(result: dict, path: str | None) -> None:
    text = json.dumps(result, indent=2, allow_nan=False, default=float)
    if path is None:
        print(text)
        return

    write_output(path, text)


def run_features(args: argparse.Namespace) -> int:
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset
    from privacy_studio.core.measures.attacks.features import user_features

    options = ReaderOptions(format=args.format, tz=args.tz, antennas=args.antennas, locations=args.locations)
    try:
        frame = user_features(load_dataset(args.data, options).events)
        with atomic_write(args.out) as fh:
            frame.to_csv(fh)
    except (ReaderError, ValueError, OSError) as exc:
        raise UserError(str(exc)) from exc
    print(f"wrote {len(frame)} users x {frame.shape[1]} attributes to {args.out}")
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="OUT", help="write the result as JSON here (default: standard output)")
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
    p.add_argument(
        "--columns",
        nargs="+",
        metavar="NAME",
        help="attributes to use, space- or comma-separated (default: every column but user_id)",
    )
    _common(p)


def register(sub: argparse._SubParsersAction) -> None:
    from privacy_studio.core.io import FORMATS

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
    p.set_defaults(func=run)

    p = kinds.add_parser("profiling", help="link period 1 to period 2 through location histograms")
    _two_datasets(p)
    p.add_argument("--spatial", default="raw", help="spatial level of the histograms (default raw)")
    p.add_argument("--hour-of-week", action="store_true", help="histogram cells are place x hour-of-week")
    p.add_argument(
        "--distance", choices=PROFILING_DISTANCES, default="js", help="histogram distance (default js)"
    )
    p.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES), help="population sizes")
    p.add_argument("--top-k", type=int, nargs="+", default=list(DEFAULT_TOP_K), help="k of top-k accuracy")
    p.add_argument("--seed", type=int, default=0, help="seed of the sub-population draws")
    p.set_defaults(func=run)

    p = kinds.add_parser("linkage", help="distance-based record linkage of a masked numeric file")
    _two_tables(p)
    p.add_argument("--distance", choices=LINKAGE_DISTANCES, action="append", help="repeatable (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the learned-weights training sample")
    p.set_defaults(func=run)

    p = kinds.add_parser("transparency", help="candidate sets of the transparency attack on rank swapping")
    _two_tables(p)
    window = p.add_mutually_exclusive_group(required=True)
    window.add_argument("--window-ranks", type=int, metavar="W", help="published window in ranks")
    window.add_argument("--p-percent", type=float, metavar="P", help="published window in %% of the records")
    p.set_defaults(func=run)

    p = kinds.add_parser("features", help="write per-user numeric attributes of a dataset as CSV")
    p.add_argument("--data", required=True, metavar="PATH", help="event data file or folder")
    p.add_argument("--format", choices=FORMATS, default="auto")
    p.add_argument("--antennas", metavar="CSV")
    p.add_argument("--locations", metavar="CSV")
    p.add_argument("--tz", default="UTC", help="IANA time zone for active days (default UTC)")
    p.add_argument("--out", required=True, metavar="X.csv")
    p.set_defaults(func=run_features)
