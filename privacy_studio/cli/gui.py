"""Starting the studio window from the command line (``privacy-studio`` alone, or ``privacy-studio gui``)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

#: What a person reads when the window cannot open because there is no screen to show it on.
NO_DISPLAY = (
    "privacy-studio: no display found: run the studio on a desktop, or use the privacy-studio commands "
    "(see --help)"
)

#: Where a local X server listens: display ``:N`` is the socket ``X{N}`` in this folder.
X11_SOCKETS = Path("/tmp/.X11-unix")


def display_available(env: Mapping[str, str] = os.environ, platform: str = sys.platform) -> bool:
    """Whether Qt will find a screen: an explicit Qt platform, Windows or macOS, a Wayland session, a remote
    X display, or a local X display whose socket exists (Qt itself aborts the interpreter without one)."""
    if env.get("QT_QPA_PLATFORM") or not platform.startswith("linux"):
        return True
    if env.get("WAYLAND_DISPLAY"):
        return True
    display = env.get("DISPLAY", "")
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if local:
        return (X11_SOCKETS / f"X{local.group(1)}").exists()
    return bool(display)  # host:N, an ssh-forwarded or remote display: Qt reports its own problems


def open_studio(argv: list[str]) -> int:
    """Open the main window, optionally on a project file given as the only argument; exit 2 with one
    sentence when there is no display."""
    if not display_available():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    from privacy_studio.gui.app import run_app

    return run_app(argv)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gui", help="open the studio window (the default when no command is given)")
    p.add_argument("project", nargs="?", help="a .psproj project or a data file to open")
    p.set_defaults(func=lambda args: open_studio([args.project] if args.project else []))
