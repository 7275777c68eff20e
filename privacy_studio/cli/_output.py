"""Writing a command's output file: standard output for "-", otherwise atomically (see ``core.atomic``)."""

from __future__ import annotations

import sys

from privacy_studio.core.atomic import write_text


def write_output(path: str, text: str) -> None:
    """Write ``text`` and a newline to ``path``; a failure raises ``WriteError`` and keeps the old file."""
    if path == "-":
        sys.stdout.write(text + "\n")
        return
    write_text(path, text + "\n")
