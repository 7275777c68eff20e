"""Versions of the studio and of the libraries whose behaviour its numbers depend on."""

from __future__ import annotations

import importlib
import platform

from privacy_studio import __version__

# Module names, read from each module's __version__ (package metadata is absent in a frozen build).
_LIBRARIES = ("numpy", "numba", "pandas", "pyarrow", "scipy", "PySide6", "pyqtgraph")


def library_versions() -> dict[str, str]:
    """Installed version of each library the studio depends on ("not installed" if missing)."""
    out = {"privacy-studio": __version__, "python": platform.python_version()}
    for name in _LIBRARIES:
        try:
            out[name] = str(importlib.import_module(name).__version__)
        except ImportError:
            out[name] = "not installed"
    try:
        from PySide6 import QtCore

        out["Qt"] = QtCore.qVersion()
    except ImportError:
        out["Qt"] = "not available"
    return out


def version_text() -> str:
    """One line per component, as ``privacy-studio --version`` prints it."""
    return "\n".join(f"{name} {version}" for name, version in library_versions().items())
