"""``privacy-studio anonymizability INPUT``: how much aggregation would hide each user among k-1 others."""

from __future__ import annotations

import argparse
import json
import sys

from privacy_studio.cli import UserError
from privacy_studio.cli._output import write_output
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.cli._reader_options import add_reader_arguments, reader_options_from_args
from privacy_studio.core.progress import Cancelled, TaskControl


def _int_list(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, e.g. 2,5,10, got {text!r}"
        ) from None


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.io import ReaderError, load_dataset
    from privacy_studio.core.measures.anonymizability import (
        AggregationLevel,
        DistanceParams,
        Fingerprints,
        aggregation_study,
        anonymizability,
    )

    bar = ProgressBar(enabled=not args.quiet)
    control = TaskControl(bar)
    try:
        params = DistanceParams(args.ws, args.wt, args.smax_km, args.tmax_h)
        levels = [AggregationLevel.parse(v) for v in args.aggregate.split(",")] if args.aggregate else []
        dataset = load_dataset(args.input, reader_options_from_args(args), control.sub(0.0, 0.1))
        common = {"targets": args.targets, "seed": args.seed, "params": params, "mode": args.mode}
        end = 0.99 if not levels else 0.5
        raw = anonymizability(
            Fingerprints.from_events(dataset.events), args.k, control=control.sub(0.1, end), **common
        )
        studied = (
            list(aggregation_study(dataset.events, levels, args.k, control=control.sub(0.5, 0.99), **common))
            if levels
            else []
        )
    except (ReaderError, ValueError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        return 130
    finally:
        bar.close()
    payload = _without_neighbours(raw.to_dict())
    payload["targets"] = args.targets
    payload["seed"] = args.seed
    payload["aggregation"] = [{"level": r.level, "results": r.to_dict()["results"]} for r in studied]
    _print_table([raw, *studied], sys.stderr if args.json == "-" else sys.stdout)

    write_output(args.json, json.dumps(payload, allow_nan=False))
    return 0


def _without_neighbours(d: dict) -> dict:
    """The JSON of the command leaves out the per-user neighbour lists (they are kept in projects)."""
    return {k: v for k, v in d.items() if k not in ("neighbours", "neighbour_distance")}


def _print_table(results: list, out) -> None:
    """Per level and k: users, median and 90th percentile of Δ_a^k, share already k-anonymous."""
    import numpy as np

    head = ("level", "k", "users", "median Δ", "p90 Δ", "Δ=0", "median t/s")
    print("{:<16} {:>4} {:>7} {:>9} {:>7} {:>6} {:>10}".format(*head), file=out)
    for r in results:
        for i, k in enumerate(r.ks):
            delta = r.delta[i]
            ratio = r.ratio[i][np.isfinite(r.ratio[i])]
            med_ratio = f"{np.median(ratio):10.2f}" if len(ratio) else f"{'-':>10}"
            print(
                f"{r.level:<16} {k:>4} {len(delta):>7} {np.median(delta):9.3f} "
                f"{np.quantile(delta, 0.9):7.3f} {np.mean(delta == 0):6.1%} {med_ratio}",
                file=out,
            )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "anonymizability",
        help="Gramaglia-Fiore anonymizability: distance of each user to the k-1 most similar ones",
        description="For every user (or a seeded sample of --targets users compared with everyone), the mean "
        "fingerprint distance to the k-1 nearest users on raw samples, with the spatial/temporal split, "
        "Gini and tail weight indices; --aggregate repeats it on coarser space/time "
        "(see docs/anonymizability.md).",
    )
    p.add_argument("input", help="data file (CSV/TSV/Parquet, gz/zip) or a folder of one file per user")
    p.add_argument("--k", type=_int_list, default=[2, 5, 10], help="values of k, e.g. 2,5,10 (default)")
    p.add_argument("--targets", type=int, metavar="T", help="sample T target users (default: every user)")
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the target sample (default 0)")
    p.add_argument("--ws", type=float, default=0.5, help="weight of the spatial part (default 0.5)")
    p.add_argument("--wt", type=float, default=0.5, help="weight of the temporal part (default 0.5)")
    p.add_argument("--smax-km", type=float, default=20.0, help="spatial saturation δs_max in km (default 20)")
    p.add_argument(
        "--tmax-h", type=float, default=8.0, help="temporal saturation δt_max in hours (default 8)"
    )
    p.add_argument(
        "--aggregate",
        metavar="LEVELS",
        help="also on generalized data: comma-separated SPACE/TIME levels, e.g. 1km/20min,5km/2h,20km/8h",
    )
    p.add_argument(
        "--mode",
        choices=("prune", "merge", "plain"),
        default="prune",
        help="search strategy; all give identical results (default prune, the fastest)",
    )
    p.add_argument(
        "--json", required=True, metavar="OUT", help="write the results as JSON to OUT ('-': stdout)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_reader_arguments(p)
    p.set_defaults(func=run)
