"""``privacy-studio warmup``: compile every numba kernel now (install time), so no later run waits for it."""

from __future__ import annotations

import argparse

from privacy_studio.cli._progress import ProgressBar
from privacy_studio.core.progress import TaskControl


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.warmup import warm_up

    bar = ProgressBar(enabled=not args.quiet)
    try:
        seconds = warm_up(TaskControl(bar))
    finally:
        bar.close()
    if not args.quiet:
        for name, value in seconds.items():
            print(f"{name:<22} {value:6.1f} s")
        print(f"{'total':<22} {sum(seconds.values()):6.1f} s")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("warmup", help="compile every kernel now, so the first analysis does not wait for it")
    p.add_argument("--quiet", action="store_true", help="no progress and no timings")
    p.set_defaults(func=run)
