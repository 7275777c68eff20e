"""What the engines take as input besides in-memory data: files for an engine to read itself."""

from __future__ import annotations

from dataclasses import dataclass, field

from privacy_studio.core.io.options import ReaderOptions


@dataclass
class EventFiles:
    """Data files for an engine to read itself: one file (CSV/TSV, .gz, Parquet) and the reader options."""

    path: str
    options: ReaderOptions = field(default_factory=ReaderOptions)
