"""Readers: every input format to a :class:`Dataset`, with an import report, a preview and a columnar cache.

See ``docs/formats.md`` for the formats and options, ``docs/architecture.md`` for the contract.
"""

from __future__ import annotations

from privacy_studio.core.io.dataset import Dataset
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.load import load_dataset
from privacy_studio.core.io.options import FORMATS, ROLES, ReaderOptions
from privacy_studio.core.io.preview import Preview, preview
from privacy_studio.core.io.report import ImportReport, RejectedRows, SourceFile

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
