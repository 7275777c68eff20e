"""``privacy-studio generate``: write a reproducible synthetic city (events, CDRs, cards, attributes)."""

from __future__ import annotations

import argparse

from privacy_studio.cli import UserError
from privacy_studio.cli._progress import ProgressBar
from privacy_studio.core.progress import TaskControl


def run(args: argparse.Namespace) -> int:
    """Run ``privacy-studio generate`` with parsed arguments; returns the exit code."""
    from privacy_studio.core.sample import generate_city

    bar = ProgressBar(enabled=not args.quiet)
    control = TaskControl(bar)
    try:
        paths = generate_city(
            args.users,
            args.days,
            args.seed,
            args.out,
            args.start,
            args.tz,
            control,
            cdr_layout=args.cdr_layout,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    finally:
        bar.close()
    print(f"wrote {len(paths.files())} files to {paths.root} (see {paths.readme.name})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``generate`` subcommand to the command line."""
    p = sub.add_parser(
        "generate",
        help="write a synthetic city: events, toolbox CDRs, card payments, attributes, a second period",
        description="Simulate N people in a fictional city over consecutive periods of D days and write "
        "every file the studio reads. The same parameters always give byte-identical files.",
    )
    p.add_argument("--users", type=int, required=True, metavar="N", help="number of people")
    p.add_argument("--days", type=int, default=28, metavar="D", help="days per period (default 28)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--out", required=True, metavar="DIR", help="new or empty output folder")
    p.add_argument("--start", default="2024-03-04", help="first local day, YYYY-MM-DD (default 2024-03-04)")
    p.add_argument("--tz", default="Europe/Paris", help="IANA time zone of the city (default Europe/Paris)")
    p.add_argument(
        "--cdr-layout",
        choices=("auto", "per-user", "single", "none"),
        default="auto",
        help="toolbox CDR files: one per user, one cdr.csv, or none (auto: per-user up to 10,000 users)",
    )
    p.add_argument(
        "--periods", type=int, choices=(1, 2), default=2, help="consecutive periods to write (default 2)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(folder_outputs=("out",))
    p.set_defaults(func=run)
