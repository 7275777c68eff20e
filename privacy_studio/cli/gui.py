"""Starting the studio window from the command line (``privacy-studio`` alone, or ``privacy-studio gui``)."""

from __future__ import annotations

import argparse


def open_studio(argv: list[str]) -> int:
    """Open the main window, optionally on a project file given as the only argument."""
    from privacy_studio.gui.app import run_app

    return run_app(argv)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the studio window (the default when no command is given)")
    p.add_argument("project", nargs="?", help="a .psproj project or a data file to open")
    p.set_defaults(func=lambda args: open_studio([args.project] if args.project else []))
