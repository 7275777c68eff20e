"""Readers: every input format to a :class:`Dataset`, with an import report, a preview and a columnar cache.

See ``docs/formats.md`` for the formats and options, ``docs/architecture.md`` for the contract. The names
below are imported on first use, so a command that only needs the options (``--help``) does not pay for
pyarrow, pandas and numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from privacy_studio.core.io.dataset import Dataset
    from privacy_studio.core.io.errors import ReaderError
    from privacy_studio.core.io.load import load_dataset
    from privacy_studio.core.io.options import FORMATS, ROLES, ReaderOptions
    from privacy_studio.core.io.previewing import Preview, preview
    from privacy_studio.core.io.report import ImportReport, RejectedRows, SourceFile

#: Public name -> the submodule that defines it.
_HOME = {
    "Dataset": "dataset",
    "ReaderError": "errors",
    "load_dataset": "load",
    "FORMATS": "options",
    "ROLES": "options",
    "ReaderOptions": "options",
    "Preview": "previewing",
    "preview": "previewing",
    "ImportReport": "report",
    "RejectedRows": "report",
    "SourceFile": "report",
}

__all__ = [
    "FORMATS",
    "ROLES",
    "Dataset",
    "ImportReport",
    "Preview",
    "ReaderError",
    "ReaderOptions",
    "RejectedRows",
    "SourceFile",
    "load_dataset",
    "preview",
]


def __getattr__(name: str) -> Any:
    """Import a public name's submodule when the name is first used."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
