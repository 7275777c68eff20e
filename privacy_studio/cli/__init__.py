"""The ``privacy-studio`` command: a thin client of the core, one module per subcommand.

Every module in this package that defines ``register(subparsers)`` adds its subcommand; the parser it
creates sets ``func`` to a callable taking the parsed arguments and returning an exit code. With no
subcommand the studio window opens.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from privacy_studio import __version__


class UserError(Exception):
    """A problem with the user's input or parameters: printed as one clear line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privacy-studio",
        description="Measure how identifiable the people in a behavioural dataset are.",
    )
    parser.add_argument("--version", action="store_true", help="print the studio and library versions")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def _command_names(parser: argparse.ArgumentParser) -> set[str]:
    return {
        name
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }


#: Arguments that name a file a command writes (checked before any work, so a long run never ends in a
#: folder that does not exist).
OUTPUT_ARGUMENTS = ("json", "pdf")


def check_outputs(args: argparse.Namespace) -> None:
    """``UserError`` when an output file's folder is missing or not writable ("-" is standard output)."""
    for name in OUTPUT_ARGUMENTS:
        path = getattr(args, name, None)
        if not isinstance(path, str) or path in ("", "-"):
            continue
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise UserError(f"cannot write {path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise UserError(f"cannot write {path}: no permission to write in {folder}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script and of ``python -m privacy_studio``."""
    from privacy_studio.numba_cache import configure_numba_cache

    configure_numba_cache()  # before any subcommand module imports numba
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and not argv[0].startswith("-") and argv[0] not in _command_names(parser):
        from privacy_studio.cli.gui import open_studio

        return open_studio(argv)  # ``privacy-studio PROJECT.psproj`` opens the window on that file
    args, rest = parser.parse_known_args(argv)
    if args.version:
        from privacy_studio.versions import version_text

        print(version_text())
        return 0
    if args.command is None:
        from privacy_studio.cli.gui import open_studio

        return open_studio(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        check_outputs(args)
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"privacy-studio {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


__all__ = ["UserError", "__version__", "build_parser", "main"]
