"""Report content independent of rendering: built from a project, drawn by ``privacy_studio.rendering``."""

from __future__ import annotations

from privacy_studio.core.report.build import build_report
from privacy_studio.core.report.content import (
    Block,
    HeatmapFigure,
    KeyFigure,
    KeyFigures,
    Paragraph,
    PlotFigure,
    ReportContent,
    Section,
    Series,
    Table,
)

__all__ = [
    "Block",
    "HeatmapFigure",
    "KeyFigure",
    "KeyFigures",
    "Paragraph",
    "PlotFigure",
    "ReportContent",
    "Section",
    "Series",
    "Table",
    "build_report",
]
