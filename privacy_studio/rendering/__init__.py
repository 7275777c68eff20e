"""The report drawn as a PDF with Qt's GUI classes (QtGui: painter, text document, PDF writer), no widgets:
the command line and the window render the same content (``core.report``) through it."""

from privacy_studio.rendering.figures import (
    CANVAS_H,
    CANVAS_W,
    FIGURE_SCALE,
    PALETTE,
    log_ticks,
    nice_ticks,
    render_figure,
)
from privacy_studio.rendering.pagination import SPARSE_PAGE
from privacy_studio.rendering.pdf import (
    DPI,
    FOOTER,
    ROW_NAME_SHARE,
    SHORT_CELL,
    export_report,
    laid_out,
    pdf_page_count,
    render_pdf,
)

__all__ = [
    "CANVAS_H",
    "CANVAS_W",
    "DPI",
    "FIGURE_SCALE",
    "FOOTER",
    "PALETTE",
    "ROW_NAME_SHARE",
    "SHORT_CELL",
    "SPARSE_PAGE",
    "export_report",
    "laid_out",
    "log_ticks",
    "nice_ticks",
    "pdf_page_count",
    "render_figure",
    "render_pdf",
]
