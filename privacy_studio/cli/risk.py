"""``privacy-studio risk INPUT``: re-identification and disclosure risk over a grid of profiles (issue #3)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from privacy_studio.cli import UserError
from privacy_studio.cli._output import write_output
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.cli._reader_options import add_reader_arguments, reader_options_from_args
from privacy_studio.core.numbers import DASH, count, interval, lower_bound, share
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.risk.catalogue import (
    MEASURE_NAMES,
    RISK_FIELDS,
    WORST_FIELDS,
    Field,
    format_value,
    limited_search,
)

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.risk.results import PResult, ProfileResult
    from privacy_studio.core.runner import RiskSettings


def parse_p_values(text: str) -> list[int]:
    """``1-10``, ``1,2,4`` or a mix such as ``1-3,6``; raise ``UserError`` on anything else."""
    from privacy_studio.core.risk.settings import p_values_of

    try:
        return p_values_of(text)
    except ValueError as exc:
        raise UserError(f"--p {text!r}: {exc}") from None


def split_list(text: str, flag: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise UserError(f"{flag} is empty: give a comma-separated list")
    return items


#: Help of ``--price`` (risk and project new).
PRICE_HELP = (
    "comma list of price choices for card transactions: none (the amount is not released) or a number of "
    "amount bins per factor of ten, e.g. none,3,1 (default none; docs/measures.md)"
)


def _cell(key: str, field: Field, entry: PResult) -> str:
    """One value of a ``by_p`` entry as the report writes it: shares as percentages, a sampled worst case as
    the lower bound it is, EM and KL in plain decimals."""
    if key == field.interval:
        return interval(getattr(entry, key)) or DASH
    if key in WORST_FIELDS:
        return lower_bound(entry.value(key), exact=entry.worst_exact)
    return format_value(key, entry.value(key))


def table_fields(profiles: list[ProfileResult]) -> list[tuple[str, Field, int]]:
    """(key, field, width) of every catalogue field some profile has, intervals right after their value."""
    out = []
    for name, field in RISK_FIELDS.items():
        if any(r.value(name) is not None for prof in profiles for r in prof.by_p):
            out.append((name, field, max(10, len(field.short))))
            if field.interval is not None:
                out.append((field.interval, field, 16))
    return out


def print_table(profiles: list[ProfileResult], out=None) -> None:
    """One line per profile and p: the counts, whether the row is exact or sampled (``excl`` counts the
    people in the file when exact, the sampled ones when sampled), then every measure computed."""
    out = out or sys.stdout
    measured = table_fields(profiles)
    cols = [("people", 8), ("d", 12), ("p", 3), ("method", 8), ("excluded", 9)]
    cols += [("95% interval" if key == f.interval else f.short, w) for key, f, w in measured]
    names = [profile_words(prof) for prof in profiles]
    width = max([len("profile"), *map(len, names)])
    print(f"{'profile':<{width}} " + " ".join(f"{name:>{w}}" for name, w in cols), file=out)
    for prof, label in zip(profiles, names, strict=True):
        for r in prof.by_p:
            p = "-" if r.p is None else str(r.p)
            values = [count(prof.n_users), count(prof.d), p, r.method, count(r.n_excluded)]
            values += [_cell(key, f, r) for key, f, _ in measured]
            cells = " ".join(f"{v:>{w}}" for v, (_, w) in zip(values, cols, strict=True))
            print(f"{label:<{width}} {cells}", file=out)
            label = ""
        cut = [r for r in prof.by_p if r.worst_search_cut]
        if cut:
            where = ", ".join(f"p = {r.p}: {limited_search(r.worst_search_cut, r.n_sampled)}" for r in cut)
            print(f"{'':<{width}} worst case {where}", file=out)
        short = [(r.p, r.n_short) for r in prof.by_p if r.n_short]
        if short:
            counts = ", ".join(f"{n:,} at p = {p}" for p, n in short)
            print(f"{'':<{width}} evaluated on fewer than p points (all-points): {counts}", file=out)
        if prof.kanon:
            k = prof.kanon
            unique = share(k["share_below"]["2"])
            print(f"{'':<{width}} full-fingerprint k = {k['k']}, unique whole traces {unique}", file=out)


def profile_words(prof: ProfileResult) -> str:
    """A profile in words (``1 km squares × 1 hour``), its levels as given when unreadable."""
    from privacy_studio.core.naming import label_words  # imports numba: not for --help

    return label_words(prof.label or f"{prof.spatial} × {prof.temporal}")


def print_attributes(profiles: list[ProfileResult], out=None) -> None:
    """Attribute disclosure per profile and sensitive attribute, one line per kind of class."""
    out = out or sys.stdout
    for prof in profiles:
        for a in (f.to_dict() for f in prof.attributes or []):
            where = "whole trace" if a["classes"] == "trace" else f"p = {a['p']} known points"
            if not a["n_people"]:
                print(f"{prof.label:<22} {a['attribute']}, {where}: nobody covered", file=out)
                continue
            print(
                f"{prof.label:<22} {a['attribute']}, {where}: homogeneous {a['homogeneous']:.3f}, "
                f"below distinct l={a['l']} {a['below_distinct_l']:.3f}, below entropy l={a['l']} "
                f"{a['below_entropy_l']:.3f}, above t={a['t']:g} {a['above_t']:.3f} (min distinct l "
                f"{a['min_distinct_l']}, min entropy l {a['min_entropy_l']:.2f}, max t {a['max_t']:.3f}; "
                f"{a['n_people']:,} people, {a.get('n_unknown', 0):,} without a value, {a['n_left_out']:,} "
                "left out)",
                file=out,
            )


def write_json(path: str, payload: dict) -> None:
    """Write atomically so a reader never sees half a file."""

    write_output(path, json.dumps(payload, indent=1, allow_nan=False))


def check_memory_limit(text: str | None) -> None:
    """ValueError for a ``--memory-limit`` no engine understands, whichever engine runs."""
    from privacy_studio.core.engines.memory import is_memory_size

    if text is not None and not is_memory_size(text):
        raise ValueError(f"--memory-limit {text!r} not understood (use e.g. 8GB or 512MB)")


#: Exact runs estimated to take longer than this ask for confirmation (or --yes).
CONFIRM_SECONDS = 600


def confirm_exact(dataset: Dataset, settings: RiskSettings, yes: bool) -> None:
    """Print the exact run's estimated work; ask before one estimated over 10 minutes (unless ``yes``).

    Raises ``UserError`` when the run is declined, or cannot be confirmed because stdin is not a terminal.
    """
    from privacy_studio.core.runner import estimate_exact_run

    estimate = estimate_exact_run(dataset, settings)
    print(estimate.summary(), file=sys.stderr)
    if estimate.seconds <= CONFIRM_SECONDS or yes:
        return
    if not sys.stdin or not sys.stdin.isatty():
        raise UserError("the exact run is estimated to take over 10 minutes: add --yes to run it anyway")
    answer = input("Run it? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):
        raise UserError("exact run declined: nothing was computed")


def attribute_settings(args: argparse.Namespace) -> dict:
    """The attribute-disclosure settings of ``--attributes --sensitive --ordered --l-diversity --t-closeness``
    (the measure is added when ``--sensitive`` is given)."""
    sensitive = split_list(args.sensitive, "--sensitive") if args.sensitive else []
    ordered = split_list(args.ordered, "--ordered") if args.ordered else []
    if sensitive and not args.attributes:
        raise UserError("--sensitive needs --attributes FILE: the user attributes that hold those columns")
    return {
        "sensitive": sensitive,
        "attributes": args.attributes,
        "ordered": ordered,
        "l_diversity": args.l_diversity,
        "t_closeness": args.t_closeness,
    }


def add_attribute_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of attribute disclosure (docs/measures.md "Attribute disclosure")."""
    parser.add_argument(
        "--attributes",
        metavar="CSV",
        help="user attributes (a user id column and attribute columns): attribute disclosure, risk by group",
    )
    parser.add_argument(
        "--sensitive",
        metavar="COLS",
        help="comma list of sensitive attribute columns: homogeneity, l-diversity and t-closeness of each",
    )
    parser.add_argument(
        "--ordered",
        metavar="COLS",
        help="sensitive columns that are ordered bands (detected: 18-24 … 65+, low/middle/high)",
    )
    parser.add_argument(
        "--l-diversity",
        type=int,
        default=3,
        metavar="L",
        help="share of people in classes with fewer than L values (default 3)",
    )
    parser.add_argument(
        "--t-closeness",
        type=float,
        default=0.2,
        metavar="T",
        help="share of people in classes farther than T from the file's distribution (default 0.2)",
    )


def open_engine_from_args(name: str, args: argparse.Namespace):
    """The named engine, opened with the command's engine flags (a context manager)."""
    from privacy_studio.core.engines import open_engine

    return open_engine(
        name, memory_limit=args.memory_limit, temp_dir=args.temp_dir, spark_master=args.spark_master
    )


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--engine`` and the flags of the out-of-core / cluster engines (docs/engines.md)."""
    parser.add_argument(
        "--engine",
        default="auto",
        choices=("auto", "numba", "duckdb", "spark"),
        help="risk engine: numba in memory, duckdb out-of-core, spark cluster; auto picks duckdb "
        "when the input would not fit in memory (default auto)",
    )
    parser.add_argument(
        "--memory-limit", metavar="SIZE", help="memory the duckdb/spark engine may use, e.g. 4GB"
    )
    parser.add_argument("--temp-dir", metavar="DIR", help="where the duckdb/spark engine spills to disk")
    parser.add_argument(
        "--spark-master", metavar="URL", help="Spark master: local[N], spark://host:7077, yarn, k8s://…"
    )


def settings_of(args: argparse.Namespace) -> RiskSettings:
    """The risk settings the command's flags give (attribute disclosure added when attributes are chosen)."""
    from privacy_studio.core.risk.settings import RiskSettings

    settings = RiskSettings(
        spatial=split_list(args.spatial, "--spatial"),
        temporal=split_list(args.temporal, "--temporal"),
        p_values=parse_p_values(args.p),
        knowledge=args.knowledge,
        measures=split_list(args.measures, "--measures"),
        samples=args.samples,
        draws=args.draws,
        seed=args.seed,
        exact=args.exact,
        reference_p=args.reference_p,
        em_samples=args.em_samples,
        short_traces=args.short_traces,
        records_at_risk_k=args.risk_k,
        price=split_list(args.price, "--price"),
        **attribute_settings(args),
        exact_budget=args.exact_budget,
        search_budget=args.search_budget,
    )
    if settings.sensitive and "attribute_disclosure" not in settings.measures:
        settings.measures.append("attribute_disclosure")
    return settings


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.engines import EventFiles, resolve_engine
    from privacy_studio.core.io import ReaderError, load_dataset

    settings = settings_of(args)
    bar = ProgressBar()
    control = TaskControl(bar)
    try:
        settings.validate()
        check_memory_limit(args.memory_limit)
        options = reader_options_from_args(args)
        name = resolve_engine(args.engine, [args.input], options)
        if args.engine == "auto":
            print(f"--engine auto: the {name} engine runs this input", file=sys.stderr)
        unused = [
            f for f in ("memory_limit", "temp_dir", "spark_master") if getattr(args, f) and name == "numba"
        ]
        if unused:
            flags = ", ".join("--" + f.replace("_", "-") for f in unused)
            print(f"note: the numba engine does not use {flags} (duckdb and spark do)", file=sys.stderr)
        source = EventFiles(args.input, options)
        if name != "numba":  # what only the numba engine computes is refused before any work
            from privacy_studio.core.engines.relational import check_settings

            check_settings(settings)
        if settings.exact:  # the work is counted on the loaded data before anything runs
            source = load_dataset(source.path, source.options, control=control)
            bar.close()
            confirm_exact(source, settings, args.yes)
        with open_engine_from_args(name, args) as engine:
            results = list(engine.run_grid(source, settings, control=control))
            imported = engine.import_report
    except (ReaderError, ValueError) as exc:
        bar.close()
        raise UserError(str(exc)) from None
    except Cancelled:
        bar.close()
        return 130
    bar.close()
    if imported is not None:
        print(imported.summary_text(), file=sys.stderr)
    print_table(results)
    print_attributes(results)
    profiles = [r.to_dict() for r in results]
    output = {"profiles": profiles, "settings": settings.to_dict(), "input": args.input, "engine": name}
    if imported is not None:
        output["import"] = imported.to_dict()
    write_json(args.json, output)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "risk",
        help="unicity, k-disclosure, records at risk, k-anonymity, EM/KL, worst case… over a profile grid",
    )
    p.add_argument("input", help="data file (CSV/TSV/Parquet, gz/zip) or a folder of one file per user")
    _add_grid_arguments(p)
    _add_estimate_arguments(p)
    p.add_argument(
        "--json", required=True, metavar="OUT", help="write the results as JSON to OUT ('-' = stdout)"
    )
    add_attribute_arguments(p)
    add_reader_arguments(p)
    add_engine_arguments(p)
    p.set_defaults(func=run)


def _add_grid_arguments(p: argparse.ArgumentParser) -> None:
    """The profiles, the attacker's knowledge and the measures."""
    p.add_argument(
        "--spatial", required=True, metavar="LEVELS", help="comma list: raw, grid:<km>, hierarchy levels"
    )
    p.add_argument(
        "--temporal", required=True, metavar="WIDTHS", help="comma list such as 1h,6h,12h,1w or all"
    )
    p.add_argument("--price", default="none", metavar="CHOICES", help=PRICE_HELP)
    p.add_argument("--p", default="1-10", help="numbers of known points: 1-10 or 1,2,4 (default 1-10)")
    p.add_argument(
        "--knowledge",
        default="uniform",
        help="uniform | activity | top | records | sequence | frequency:TOL | proportion:TOL | homework | "
        "explicit:FILE (default uniform; docs/measures.md)",
    )
    p.add_argument(
        "--short-traces",
        default="exclude",
        choices=("exclude", "all-points"),
        help="people with fewer than p points: left out and counted (default), or evaluated on all the "
        "points they have (a conservative figure; counted in n_short)",
    )
    p.add_argument(
        "--measures",
        default=",".join(MEASURE_NAMES),
        help=f"comma list of {', '.join(MEASURE_NAMES)} (default: all; `privacy-studio measures` "
        "describes them; the older kdisc, kanon, em, kl, worst are understood)",
    )
    p.add_argument(
        "--risk-k",
        type=int,
        default=5,
        metavar="K",
        help="records at risk: people whose anonymity set is smaller than K (default 5)",
    )


def _add_estimate_arguments(p: argparse.ArgumentParser) -> None:
    """How the figures are estimated: sampling, seed, exact mode and the details' p."""
    p.add_argument(
        "--samples", type=int, default=10000, help="users sampled without replacement (default 10000)"
    )
    p.add_argument("--draws", type=int, default=1, help="knowledge draws per sampled user (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--exact",
        action="store_true",
        help="average over all p-subsets of every trace; the work is estimated first (see --yes)",
    )
    p.add_argument(
        "--exact-budget",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="seconds of enumeration per profile a sampled run may spend to make unicity, k-disclosure and "
        "the worst case exact at the p values that fit (uniform knowledge; default 10, 0 = always sample)",
    )
    p.add_argument(
        "--search-budget",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="seconds of targeted worst-case search per profile, shared by the sampled people before it "
        "starts; where a person's search is cut short the worst case says it is a lower bound from a "
        "limited search (default 30)",
    )
    p.add_argument(
        "--reference-p",
        type=int,
        default=None,
        help="p of the per-user / per-location details (default: the largest --p value up to 4)",
    )
    p.add_argument(
        "--yes", action="store_true", help="run an exact computation estimated to take over 10 minutes"
    )
    p.add_argument("--em-samples", type=int, default=1000, help="sampled users on whom EM / KL are computed")
