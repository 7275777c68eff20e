"""Render a report to PDF with Qt's GUI classes (no widgets): text and tables laid out by QTextDocument,
figures from ``rendering.figures``, A4 pages with a footer and page numbers."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QPointF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTextDocument,
)

from privacy_studio.core.atomic import WriteError, write_bytes
from privacy_studio.core.progress import as_control
from privacy_studio.core.report import (
    HeatmapFigure,
    KeyFigures,
    Paragraph,
    PlotFigure,
    ReportContent,
    Section,
    Table,
    build_report,
)
from privacy_studio.rendering.figures import CANVAS_W, figure_height, paint_figure
from privacy_studio.rendering.pagination import MAX_PASSES, PASSES_PER_PAGE, Pager, anchor, figure_rects

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.progress import TaskControl
    from privacy_studio.core.project import Project

DPI = 300
_CSS = """
body { font-family: 'DejaVu Sans', 'Helvetica', sans-serif; font-size: 9.5pt; color: #1b1b1b; }
h1 { font-size: 17pt; color: #1f3a5f; margin-top: 6pt; margin-bottom: 8pt; }
h2 { font-size: 13pt; color: #1f3a5f; margin-top: 12pt; margin-bottom: 4pt; }
h3 { font-size: 11pt; color: #1f3a5f; margin-top: 8pt; margin-bottom: 3pt; }
p { margin-top: 2pt; margin-bottom: 5pt; }
p.note { color: #4a4a4a; font-size: 8.5pt; }
p.warning { background-color: #fff3d6; }
p.caption, td.caption { font-size: 8.5pt; color: #333333; font-style: italic; }
table.data { border-collapse: collapse; font-size: 8pt; margin-bottom: 6pt; }
table.data th { background-color: #e4e9f0; font-weight: bold; }
td.key { font-size: 8.5pt; color: #444444; }
td.value { font-size: 15pt; font-weight: bold; color: #1f3a5f; }
"""


def export_report(
    project: Project,
    path: str | os.PathLike[str],
    control: TaskControl | None = None,
    dataset: Dataset | None = None,
) -> Path:
    """Build the report of ``project`` (with ``dataset`` when loaded) and write it as a PDF at ``path``."""
    return render_pdf(build_report(project, dataset), path, control)


def render_pdf(
    content: ReportContent, path: str | os.PathLike[str], control: TaskControl | None = None
) -> Path:
    """Lay out and paint ``content`` into an A4 PDF, written atomically: the file appears only when complete
    with as many pages as the layout; otherwise the previous file is kept and ``ValueError`` says why."""
    ctl = as_control(control)
    _ensure_app()
    target = Path(path)
    if not target.parent.is_dir():
        raise ValueError(f"{target}: the folder {target.parent} does not exist")
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setTitle(f"{content.title}: {content.subtitle}")
    writer.setCreator("Privacy Studio")
    doc, figures = _laid_out(content, writer, ctl.sub(0.0, 0.5))
    page = writer.pageLayout().paintRectPixels(DPI)
    pages = doc.pageCount()
    painter = QPainter()
    if not painter.begin(writer):
        raise ValueError(f"{target}: the PDF could not be started")
    try:
        _paint_pages(painter, doc, writer, content, figures, (page.width(), page.height()), ctl.sub(0.5, 1.0))
    finally:
        painter.end()
    try:
        write_bytes(target, bytes(buffer.data()), check=lambda tmp: _check_pages(tmp, pages, target))
    except WriteError as exc:
        raise ValueError(str(exc)) from None
    return target


#: Height of the page footer (title and page number), in pixels at :data:`DPI`.
FOOTER = DPI * 0.35


def laid_out(content: ReportContent, writer: QPdfWriter, control: TaskControl | None = None) -> QTextDocument:
    """The report's text document laid out on A4 pages of ``writer`` (what is painted, and what tests read
    line by line)."""
    return _laid_out(content, writer, control)[0]


def _laid_out(
    content: ReportContent, writer: QPdfWriter, control: TaskControl | None
) -> tuple[QTextDocument, dict[str, PlotFigure | HeatmapFigure]]:
    """The laid-out document and the figures whose places it holds, by image name."""
    writer.setResolution(DPI)
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait, QMarginsF(18, 16, 18, 16)
        )
    )
    page = writer.pageLayout().paintRectPixels(DPI)
    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(writer)
    doc.setDocumentMargin(0)
    doc.setDefaultStyleSheet(_CSS)
    doc.setPageSize(QSizeF(page.width(), page.height() - FOOTER))
    ctl = as_control(control)
    builder = _HtmlBuilder(doc, page.width(), ctl.sub(0.0, 0.5))
    _lay_out(doc, builder, content, ctl.sub(0.5, 1.0))
    return doc, builder.figures


def _lay_out(doc: QTextDocument, builder: _HtmlBuilder, content: ReportContent, ctl: TaskControl) -> None:
    """Lay the report out; then, one change per pass (each decided on the layout after the one before), let a
    section that opens a page flow on after a nearly empty page, or move a paragraph that crosses a page
    boundary, or a heading that would end a page, to the next page (see ``pagination.Pager``). Each pass
    reports progress, so a cancel stops a long report's pagination (seconds for 60 pages) at the next one."""
    doc.setHtml(builder.document(content))  # parsed once: the HTML parser holds the GIL throughout
    pager = Pager(doc)
    passes = max(MAX_PASSES, PASSES_PER_PAGE * pager.page_count())  # each fix moves about one page
    for k in range(passes):
        ctl.report(k / passes, "arranging the pages")
        change = pager.first_fault()
        if change is None:
            return  # that last check read every block: the layout is whole, later reads of it are cheap
        pager.apply(change)
    pager.page_count()  # the last change's layout made block by block too, before the pages are painted


def pdf_page_count(data: bytes) -> int:
    """Pages of a PDF as Qt writes it (one uncompressed ``/Type /Page`` object per page)."""
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))


def _check_pages(written: Path, expected: int, target: Path) -> None:
    found = pdf_page_count(written.read_bytes())
    if found != expected:
        raise WriteError(
            f"{target}: the PDF came out with {found} pages instead of {expected}; the previous file is kept"
        )


def _ensure_app() -> None:
    """Text layout needs a Qt application; headless runs use the offscreen platform.

    A full ``QApplication`` (not a bare GUI one) so widgets created later in the same process still work.
    """
    from PySide6.QtWidgets import QApplication  # the one QtWidgets name: the application object

    if QApplication.instance() is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _ensure_app.app = QApplication([])  # type: ignore[attr-defined]  (kept alive for the process)


#: Device pixels kept off each page's top and bottom edge when painting it: a line laid out to start exactly
#: at a page's end would otherwise be painted (clipped, invisible, but in the text) into that page too.
EDGE = 0.5


def _paint_pages(
    painter: QPainter,
    doc: QTextDocument,
    writer: QPdfWriter,
    content: ReportContent,
    figures: dict[str, PlotFigure | HeatmapFigure],
    size: tuple[float, float],
    ctl: TaskControl,
) -> None:
    """Each page: its own lines of the document (never a line of the page before or after), the figures
    placed on it, and the footer."""
    width, height = size
    body_h = height - FOOTER
    pages = doc.pageCount()
    placed = figure_rects(doc)
    font = QFont("DejaVu Sans")
    font.setPointSizeF(7.5)
    for i in range(pages):
        ctl.report(i / pages, f"page {i + 1} of {pages}")
        if i:
            writer.newPage()
        top = i * body_h
        painter.save()
        painter.translate(0, -top)
        doc.drawContents(painter, QRectF(0, top + EDGE, width, body_h - 2 * EDGE))
        for name, rect in placed:
            if top <= rect.center().y() < top + body_h:
                paint_figure(painter, figures[name], rect)
        painter.restore()
        _paint_footer(painter, content.title, f"Page {i + 1} of {pages}", font, width, height)


def _paint_footer(painter: QPainter, title: str, page: str, font: QFont, width: float, height: float) -> None:
    painter.setFont(font)
    painter.setPen(QPen(QColor("#888888"), 2))
    painter.drawLine(QPointF(0, height - FOOTER * 0.75), QPointF(width, height - FOOTER * 0.75))
    painter.setPen(QColor("#555555"))
    band = QRectF(0, height - FOOTER * 0.65, width, FOOTER * 0.65)
    painter.drawText(band, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
    painter.drawText(band, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, page)


class _HtmlBuilder:
    """Turns the report content into QTextDocument HTML; figures become image resources of ``doc``."""

    def __init__(self, doc: QTextDocument, width: float, ctl: TaskControl) -> None:
        self.doc = doc
        self.width = width
        self.ctl = ctl
        self.n_figures = self.n_marks = 0
        self.figures: dict[str, PlotFigure | HeatmapFigure] = {}  # by image name, painted after the text

    def document(self, content: ReportContent) -> str:
        self.n_figures = self.n_marks = 0
        out = [f"<html><body>{self.title_page(content)}"]
        for i, section in enumerate(content.sections):
            self.ctl.report(i / len(content.sections), section.title)
            out.append(self.section(section, 1))
        out.append("</body></html>")
        return "".join(out)

    def title_page(self, content: ReportContent) -> str:
        rows = "".join(
            f"<tr><td class='key' width='24%'>{_e(k)}</td><td>{_e(v)}</td></tr>"
            for k, v in content.title_facts
        )
        return (
            "<div style='margin-top: 140px'><p style='font-size: 26pt; font-weight: bold; color: #1f3a5f'>"
            f"{_e(content.title)}</p><p style='font-size: 16pt; color: "
            f"#444444'>{_e(content.subtitle)}</p></div>"
            f"<p style='margin-top: 40px'>&nbsp;</p><table cellpadding='4' width='100%'>{rows}</table>"
            "<p class='note' style='margin-top: 30px'>Privacy Studio — re-identification risk of "
            "pseudonymized "
            "behavioural data. The numbers in this report come from the project's saved results; the input "
            "files "
            "are identified by their SHA-256 hashes above.</p>"
        )

    def section(self, section: Section, level: int) -> str:
        starts_with_figure = bool(section.blocks) and isinstance(
            section.blocks[0], PlotFigure | HeatmapFigure
        )
        # A heading must not sit alone at the bottom of a page above its figure: such sections open a page.
        brk, mark = self.mark(section.new_page or starts_with_figure)
        tag = f"h{min(level, 3)}"
        out = [f"<{tag}{brk}>{mark}{_e(section.title)}</{tag}>"]
        for block in section.blocks:
            out.append(self.block(block))
        out.extend(self.section(sub, level + 1) for sub in section.subsections)
        return "".join(out)

    def mark(self, forced: bool = False) -> tuple[str, str]:
        """The page-break style (``forced``: it opens a page) and the anchor of the next paragraph or
        heading."""
        n = self.n_marks
        self.n_marks += 1
        return (" style='page-break-before: always'" if forced else ""), anchor(n)

    def paragraph(self, text: str, style: str) -> str:
        brk, mark = self.mark()
        return f"<p class='{style}'{brk}>{mark}{_e(text)}</p>"

    def block(self, block: object) -> str:
        if isinstance(block, Paragraph):
            return self.paragraph(block.text, block.style)
        if isinstance(block, KeyFigures):
            return self.key_figures(block)
        if isinstance(block, Table):
            return self.table(block)
        if isinstance(block, PlotFigure | HeatmapFigure):
            return self.figure(block)
        raise TypeError(f"cannot render a {type(block).__name__}")

    def key_figures(self, block: KeyFigures) -> str:
        cells = "".join(
            f"<tr><td class='key' width='34%'>{_e(k.label)}</td><td class='value'>{_e(k.value)}</td>"
            f"<td class='key'>{_e(k.detail)}</td></tr>"
            for k in block.items
        )
        return f"<table cellpadding='5' width='100%' style='margin-bottom: 8pt'>{cells}</table>"

    def table(self, table: Table) -> str:
        """The table in as many parts as needed to fit the text width: each part repeats the first column and
        gives every column at least the width of its longest header word and of its unbreakable cells, so no
        header breaks inside a word and nothing runs past the page."""
        widths = _ColumnWidths(table, self.width)
        parts = widths.parts()
        out = []
        for k, columns in enumerate(parts):
            caption = table.caption if len(parts) == 1 else f"{table.caption} (part {k + 1} of {len(parts)})"
            part = Table(
                caption, [table.columns[j] for j in columns], [[r[j] for j in columns] for r in table.rows]
            )
            out.append(
                self._table_html(part, [widths.share(j, columns) for j in columns], widths.nowrap(columns))
            )
        note = self.paragraph(table.note, "note") if table.note else ""
        return "".join(out) + note

    @staticmethod
    def _table_html(table: Table, percents: list[float], nowrap: list[list[bool]]) -> str:
        """The caption is the first header row, so it never sits alone at the foot of a page and it repeats
        with the column titles when a table continues on the next page."""
        head = "".join(
            f"<th align='left' width='{w:.1f}%'>{_e(c)}</th>"
            for c, w in zip(table.columns, percents, strict=True)
        )
        header_row = f"<tr>{head}</tr>" if any(table.columns) else ""
        body = "".join(
            "<tr>"
            + "".join(
                f"<td{_NOWRAP if keep else ''}>{_e(c)}</td>" for c, keep in zip(row, keeps, strict=True)
            )
            + "</tr>"
            for row, keeps in zip(table.rows, nowrap, strict=True)
        )
        caption = (
            f"<tr><td colspan='{len(table.columns)}' class='caption' style='border: "
            f"none'>{_e(table.caption)}</td></tr>"
        )
        return (
            "<table class='data' border='1' cellspacing='0' cellpadding='3' width='100%'>"
            f"<thead>{caption}{header_row}</thead>{body}</table>"
        )

    def figure(self, figure: PlotFigure | HeatmapFigure) -> str:
        """A blank image holding the figure's place; the figure itself is painted there as vectors (see
        :func:`figure_rects`): an image would be JPEG-compressed by the PDF writer, a long hold of the GIL."""
        self.n_figures += 1
        name = f"figure{self.n_figures}.png"
        self.figures[name] = figure
        self.doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), _blank())
        # QTextDocument scales <img> sizes by device DPI / 96: give the text width in those units.
        w = self.width * 96.0 / DPI
        h = w * figure_height(figure) / CANVAS_W
        brk, mark = self.mark()
        return (
            f"<p align='center'{brk}>{mark}<img src='{name}' width='{w:.0f}' height='{h:.0f}'></p>"
            + self.paragraph(figure.caption, "caption")
        )


def _blank() -> QImage:
    """One white pixel: the place holder of every figure (scaled to its size, it paints nothing visible)."""
    if not hasattr(_blank, "image"):
        image = QImage(1, 1, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        _blank.image = image  # type: ignore[attr-defined]
    return _blank.image  # type: ignore[attr-defined]


def _e(text: str) -> str:
    return html.escape(str(text))


_NOWRAP = " style='white-space: nowrap'"
#: A cell this short (numbers, intervals, "≥ 99.9%") is kept on one line; longer text wraps between words.
SHORT_CELL = 18
#: Table text size in points (``table.data`` in the style sheet) and the room a cell takes beyond its text
#: (padding, border, Qt's own rounding), in points.
TABLE_PT, CELL_EXTRA_PT = 8.0, 9.0
#: The first column (row names) may take up to this share of the width before it wraps.
ROW_NAME_SHARE = 0.22


class _ColumnWidths:
    """The narrowest each column of a table can be without breaking a word or a short cell, and how the
    columns are split into parts that fit ``width`` (device pixels at :data:`DPI`)."""

    def __init__(self, table: Table, width: float) -> None:
        self.table, self.width = table, width
        font, bold = QFont("DejaVu Sans"), QFont("DejaVu Sans")
        font.setPointSizeF(TABLE_PT)
        bold.setPointSizeF(TABLE_PT)
        bold.setBold(True)
        body, head = QFontMetricsF(font, _pdf_device()), QFontMetricsF(bold, _pdf_device())
        extra = CELL_EXTRA_PT * DPI / 72.0
        n = len(table.columns)
        self.least = [
            max((head.horizontalAdvance(w) for w in table.columns[j].split()), default=0.0) for j in range(n)
        ]
        self.full = [head.horizontalAdvance(table.columns[j]) for j in range(n)]
        for row in table.rows:
            for j, cell in enumerate(row):
                whole = body.horizontalAdvance(cell)
                word = max((body.horizontalAdvance(w) for w in cell.split()), default=0.0)
                self.least[j] = max(self.least[j], whole if _short(cell) else word)
                self.full[j] = max(self.full[j], whole)
        self.least = [w + extra for w in self.least]
        self.full = [w + extra for w in self.full]
        if n > 1:  # the row names (profiles in words) read better on one line when the page allows it
            self.least[0] = max(self.least[0], min(self.full[0], ROW_NAME_SHARE * width))

    def parts(self) -> list[list[int]]:
        """Column indices of each part: all columns when they fit, else the first column and as many of the
        others as fit, in order."""
        n = len(self.least)
        if sum(self.least) <= self.width or n <= 2:
            return [list(range(n))]
        parts, current = [], [0]
        for j in range(1, n):
            if len(current) > 1 and not self._fits([*current, j]):
                parts.append(current)
                current = [0]
            current.append(j)
        parts.append(current)
        for k in range(len(parts) - 1, 0, -1):  # even out: a last part of one or two columns reads oddly
            before, after = parts[k - 1], parts[k]
            while len(before) > len(after) + 1 and self._fits([0, before[-1], *after[1:]]):
                after.insert(1, before.pop())
        return parts

    def _fits(self, columns: list[int]) -> bool:
        return sum(self.least[i] for i in columns) <= self.width

    def share(self, j: int, columns: list[int]) -> float:
        """Percentage of the text width for column ``j`` of a part: its least width plus a share of the room
        left, in proportion to how much more its unwrapped text would take."""
        least = sum(self.least[i] for i in columns)
        spare = max(self.width - least, 0.0)
        want = sum(self.full[i] - self.least[i] for i in columns)
        extra = spare * (self.full[j] - self.least[j]) / want if want > 0 else spare / len(columns)
        return 100.0 * (self.least[j] + extra) / max(self.width, least)

    def nowrap(self, columns: list[int]) -> list[list[bool]]:
        """Per row, whether each cell of the part is short enough to be kept on one line."""
        return [[_short(row[j]) for j in columns] for row in self.table.rows]


def _short(cell: str) -> bool:
    return len(cell) <= SHORT_CELL


def _pdf_device() -> QImage:
    """A paint device at the PDF's resolution, so text is measured as the PDF lays it out."""
    image = QImage(1, 1, QImage.Format.Format_RGB32)
    image.setDotsPerMeterX(round(DPI / 0.0254))
    image.setDotsPerMeterY(round(DPI / 0.0254))
    return image
