"""Where numba keeps compiled kernels: a writable per-user folder, so kernels compile once per machine.

Must run before numba is imported. An installed or frozen studio cannot write next to its own sources,
and without a cache every start would compile every kernel again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_cache_root() -> Path:
    """The per-user cache folder of the studio (XDG on Linux, LOCALAPPDATA on Windows, Caches on macOS)."""
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "privacy-studio"


def configure_numba_cache() -> Path:
    """Point ``NUMBA_CACHE_DIR`` at a writable folder (keeping one the user already set) and return it."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    path = Path(chosen) if chosen else user_cache_root() / "numba"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        import tempfile

        path = Path(tempfile.gettempdir()) / "privacy-studio-numba"
        path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    return path
