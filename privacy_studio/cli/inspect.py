"""``privacy-studio inspect INPUT``: load a data file and print its summary and import report."""

from __future__ import annotations

import argparse
import json

from privacy_studio.cli import UserError
from privacy_studio.cli._output import write_output
from privacy_studio.cli._reader_options import add_reader_arguments, reader_options_from_args
from privacy_studio.core.progress import Cancelled


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.io import ReaderError, load_dataset

    try:
        options = reader_options_from_args(args)
        dataset = load_dataset(args.input, options)
    except (ReaderError, ValueError) as exc:
        raise UserError(str(exc)) from None
    except Cancelled:
        return 130
    summary = dataset.summary()
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if isinstance(value, dict):
            value = "  ".join(f"{k}={v:g}" for k, v in value.items())
        print(f"{key:<{width}}  {value}")
    print()
    print(dataset.report.summary_text())
    if args.json:
        payload = {
            "summary": summary,
            "report": dataset.report.to_dict(),
            "sources": [vars(s) for s in dataset.sources],
            "options": dataset.options.to_dict(),
        }

        write_output(args.json, json.dumps(payload, indent=2))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="load a data file and print its summary and import report")
    p.add_argument("input", help="data file (CSV/TSV/Parquet, gz/zip) or a folder of one file per user")
    p.add_argument(
        "--json", metavar="OUT", help="also write summary + report as JSON to OUT ('-' for stdout)"
    )
    add_reader_arguments(p)
    p.set_defaults(func=run)
