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
import signal
import sys
import threading

from privacy_studio import __version__
from privacy_studio.cli._output import check_files
from privacy_studio.core.atomic import WriteError
from privacy_studio.versions import version_text


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


def check_seed(args: argparse.Namespace) -> None:
    """``UserError`` for a ``--seed`` the random generators cannot take (negative or beyond 64 bits)."""
    seed = getattr(args, "seed", None)
    if isinstance(seed, int) and not 0 <= seed < 2**63:
        raise UserError(f"--seed must be a whole number from 0 to {2**63 - 1}, got {seed}")


def _window_file(argv: list[str], bare: bool) -> str | None:
    """The file the window would open: ``privacy-studio FILE`` or ``privacy-studio gui FILE``."""
    if bare:
        return argv[0]
    if argv[:1] == ["gui"] and len(argv) > 1 and not argv[1].startswith("-"):
        return argv[1]
    return None


def _not_openable(word: str) -> str | None:
    """Why the window cannot open on ``word`` (not a command): a missing path or a special file."""
    if not os.path.exists(word):
        return f"{word!r} is neither a command nor an existing project or data file"
    from privacy_studio.core.io.errors import ReaderError
    from privacy_studio.core.io.sniff import check_readable

    try:
        check_readable(word)
    except ReaderError as exc:
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script and of ``python -m privacy_studio``: Ctrl-C at any moment (even
    while modules load, or inside a numba kernel) exits 130 with "interrupted"."""
    if argv is None:
        _watch_ctrl_c()
    try:
        code = _run(argv)
        if argv is None:
            # The command's work and outputs are complete: a Ctrl-C while the interpreter shuts down
            # would otherwise kill the process silently with a signal status.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return code
    except KeyboardInterrupt:
        return _interrupted(final=argv is None)
    except Exception as exc:
        # Ctrl-C inside a numba kernel or its compiler surfaces as another error ("returned a result with
        # an exception set", a failed compilation): it is still the user's interruption.
        if not (_CTRL_C.is_set() or isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)):
            raise
        return _interrupted(final=argv is None)


#: Set once Ctrl-C was pressed in this process (the command line's own run only).
_CTRL_C = threading.Event()


def _watch_ctrl_c() -> None:
    """Remember a Ctrl-C before raising KeyboardInterrupt, and keep one swallowed by a C callback (numba's
    compiler) from printing a traceback: the command then ends with "interrupted" whatever error follows."""

    def on_sigint(signum: int, frame: object) -> None:
        _CTRL_C.set()
        raise KeyboardInterrupt

    default_hook = sys.unraisablehook

    def unraisable(info: object) -> None:
        if not isinstance(getattr(info, "exc_value", None), KeyboardInterrupt):
            default_hook(info)  # type: ignore[arg-type]

    signal.signal(signal.SIGINT, on_sigint)
    sys.unraisablehook = unraisable


def _interrupted(final: bool) -> int:
    """Say "interrupted" and give 130. In the command's own process (``final``) a Ctrl-C still pending is
    ignored first: pyarrow's reader stops on its own handler as well as Python's, and the second
    KeyboardInterrupt, raised after this message, made the process die by the signal instead (status -2)."""
    if final:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        forget_unhandled_interrupt()
    print("interrupted", file=sys.stderr)
    return 130


def forget_unhandled_interrupt() -> None:
    """Clear CPython's note that a KeyboardInterrupt escaped an ``exec`` of source text (numba, dataclasses
    and namedtuple build code that way): under ``python -m`` the interpreter otherwise ends by re-sending
    itself SIGINT after the command returned 130, and the caller sees status -2. Running an empty source
    text resets the note, which is kept in a C global."""
    exec("")  # an empty program: its only effect is the reset


def _run(argv: list[str] | None) -> int:
    from privacy_studio.numba_cache import configure_numba_cache

    configure_numba_cache()  # before any subcommand module imports numba
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    commands = _command_names(parser)
    bare = bool(argv) and not argv[0].startswith("-") and argv[0] not in commands
    opened = _window_file(argv, bare)
    problem = _not_openable(opened) if opened else None
    if problem is not None:
        print(f"privacy-studio: {problem}; commands: {', '.join(sorted(commands))}", file=sys.stderr)
        return 2
    if bare:
        from privacy_studio.cli.gui import open_studio

        return open_studio(argv)  # ``privacy-studio PROJECT.psproj`` opens the window on that file
    args, rest = parser.parse_known_args(argv)
    if args.version:
        print(version_text())
        return 0
    if args.command is None:
        if rest:  # an unknown option: the window opens only with no argument at all
            print(
                f"privacy-studio: unknown option {rest[0]}; commands: {', '.join(sorted(commands))}",
                file=sys.stderr,
            )
            return 2
        from privacy_studio.cli.gui import open_studio

        return open_studio([])
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        check_seed(args)

        check_files(args, UserError)
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"privacy-studio {args.command}: {exc}", file=sys.stderr)
        return 2
    except WriteError as exc:
        print(f"privacy-studio {args.command}: {exc}; the previous file is unchanged", file=sys.stderr)
        return 1


__all__ = ["UserError", "__version__", "build_parser", "main"]
