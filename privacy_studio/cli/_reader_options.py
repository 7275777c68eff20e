"""The reader flags every data-reading command shares, so they mean the same thing everywhere."""

from __future__ import annotations

import argparse

from privacy_studio.core.io.options import FORMATS, ROLES, ReaderOptions


def add_reader_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --format --delimiter --no-header --columns --map --tz --dayfirst --antennas --hierarchy ..."""
    g = parser.add_argument_group("reading the input")
    g.add_argument(
        "--format", choices=FORMATS, default="auto", help="input layout (default: detect from columns)"
    )
    g.add_argument("--delimiter", help="field separator (default: detected; use '\\t' for tab)")
    g.add_argument(
        "--no-header", action="store_true", help="the file has no header line (then give --columns)"
    )
    g.add_argument(
        "--columns",
        help=f"roles of a headerless file's columns, comma-separated ({', '.join(ROLES)}, _ skips)",
    )
    g.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="ROLE=COLUMN",
        help="read column COLUMN as ROLE (repeatable)",
    )
    g.add_argument(
        "--tz", default="UTC", help="IANA zone of naive timestamps and of day/week bins (default UTC)"
    )
    order = g.add_mutually_exclusive_group()
    order.add_argument("--dayfirst", action="store_true", help="slashed dates are dd/mm/yyyy")
    order.add_argument("--monthfirst", action="store_true", help="slashed dates are mm/dd/yyyy")
    g.add_argument("--antennas", metavar="FILE", help="antenna_id,latitude,longitude file")
    g.add_argument("--hierarchy", metavar="FILE", help="location_id,level_1,level_2,... file")
    g.add_argument("--locations", metavar="FILE", help="file listing every spatial unit that exists (for d)")
    g.add_argument(
        "--place-tolerance",
        type=float,
        default=0.0,
        metavar="METRES",
        help="places given by coordinates only: points this close (in chains) are one place; default 0 = "
        "only identical coordinates",
    )
    g.add_argument(
        "--no-cache", action="store_true", help="read the input again instead of the columnar cache"
    )


def reader_options_from_args(args: argparse.Namespace) -> ReaderOptions:
    """ReaderOptions from parsed flags; a bad value raises ValueError with a readable message."""
    mapping: dict[str, str] = {}
    for item in args.map:
        role, sep, column = item.partition("=")
        if not sep or not role.strip() or not column.strip():
            raise ValueError(f"--map {item!r}: expected ROLE=COLUMN, e.g. --map user=msisdn")
        mapping[role.strip()] = column.strip()
    delimiter = args.delimiter
    if delimiter is not None:
        delimiter = {"\\t": "\t", "tab": "\t"}.get(delimiter, delimiter)
    columns = [c.strip() for c in args.columns.split(",")] if args.columns else None
    if columns and not args.no_header:
        raise ValueError("--columns names the columns of a headerless file: add --no-header")
    return ReaderOptions(
        format=args.format,
        delimiter=delimiter,
        header=not args.no_header,
        columns=columns,
        mapping=mapping,
        tz=args.tz,
        dayfirst=args.dayfirst,
        monthfirst=args.monthfirst,
        antennas=args.antennas,
        hierarchy=args.hierarchy,
        locations=args.locations,
        use_cache=not args.no_cache,
        place_tolerance_m=args.place_tolerance,
    )
