"""Versions of the studio and of the libraries whose behaviour its numbers depend on."""

from __future__ import annotations

import importlib
import importlib.metadata
import platform
import sys

from privacy_studio import __version__

# Module names; a version is read from the package metadata (cheap: --version answers without importing
# numba or pandas), else from the module's __version__ (a frozen build carries no metadata).
_LIBRARIES = ("numpy", "numba", "pandas", "pyarrow", "scipy", "duckdb", "PySide6", "pyqtgraph", "opendp")
#: Distributions that install a module under another name.
_DISTRIBUTIONS = {"PySide6": ("PySide6", "PySide6-Essentials")}


def _version(module: str) -> str:
    for dist in _DISTRIBUTIONS.get(module, (module,)):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    try:
        return str(importlib.import_module(module).__version__)
    except ImportError:
        return "not installed"


def library_versions() -> dict[str, str]:
    """Installed version of each library the studio depends on ("not installed" if missing)."""
    out = {"privacy-studio": __version__, "python": platform.python_version()}
    out.update({name: _version(name) for name in _LIBRARIES})
    out["Qt"] = _qt_version(out["PySide6"])
    return out


def _qt_version(pyside: str) -> str:
    """Qt's version without loading Qt when the window is not open (PySide6 wheels ship the Qt they are
    numbered after), else the running Qt's own."""
    if "PySide6.QtCore" not in sys.modules and pyside != "not installed":
        return f"{pyside} (bundled with PySide6)"
    try:
        from PySide6 import QtCore

        return QtCore.qVersion()
    except ImportError:
        return "not available"


def version_text() -> str:
    """One line per component, as ``privacy-studio --version`` prints it."""
    return "\n".join(f"{name} {version}" for name, version in library_versions().items())
