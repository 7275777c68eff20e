"""Pagination of the PDF: every line of text is printed once (never again, clipped, on the next page), no
heading is the last thing on a page, and a plot's point names keep off its lines."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QImage, QPainter

from privacy_studio.core.report import Paragraph, PlotFigure, ReportContent, Section, build_report

pytestmark = pytest.mark.gui
NEEDS_PDFTOTEXT = pytest.mark.skipif(
    shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) not installed"
)
TITLE = "Pagination check"


def _content(seed: int, n_sections: int = 14) -> ReportContent:
    """Sections of paragraphs of random length, every word unique (w<paragraph>x<word>), some sections
    opening a page, some nested, so page boundaries fall everywhere."""
    rng = random.Random(seed)
    sections, n = [], 0
    for s in range(n_sections):
        blocks = []
        for _ in range(rng.randint(1, 4)):
            words = " ".join(f"w{n}x{k}" for k in range(rng.randint(5, 160)))
            blocks.append(Paragraph(words))
            n += 1
        sub = [Section(f"Subheading {s}", [Paragraph(f"w{n}x0 w{n}x1")])] if rng.random() < 0.4 else []
        n += bool(sub)
        sections.append(Section(f"Heading {s}", blocks, sub, new_page=rng.random() < 0.15))
    return ReportContent(TITLE, "every word once", [("Seed", str(seed))], sections)


def _pages(path: Path) -> list[list[str]]:
    """Each page's lines of text (pdftotext, reading order), its footer left out."""
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True, capture_output=True)
    text = unicodedata.normalize("NFKC", raw.stdout.decode())
    pages = []
    for page in text.split("\f")[:-1]:
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        pages.append([line for line in lines if line != TITLE and not line.startswith("Page ")])
    return pages


@pytest.mark.parametrize(("seed", "n_sections"), [(1, 14), (2, 14), (3, 14), (5, 260)])
@NEEDS_PDFTOTEXT
def test_every_word_is_printed_once_and_no_heading_ends_a_page(
    tmp_path: Path, seed: int, n_sections: int
) -> None:
    """Short reports, and an 80-page one (a fixed cap on the layout passes left it with doubled lines)."""
    from privacy_studio.rendering import render_pdf

    content = _content(seed, n_sections)
    pages = _pages(render_pdf(content, tmp_path / "r.pdf"))
    assert len(pages) > 5
    words = [w for page in pages for line in page for w in line.split() if re.fullmatch(r"w\d+x\d+", w)]
    expected = [w for s in content.sections for b in _paragraphs(s) for w in b.text.split()]
    assert sorted(words) == sorted(expected)  # each exactly once: none lost, none painted twice
    for number, page in enumerate(pages[:-1], 1):
        assert page, f"page {number} is blank"
        assert not page[-1].startswith(("Heading", "Subheading")), f"page {number} ends with {page[-1]!r}"


@pytest.mark.parametrize("seed", [1, 5])
def test_the_pagers_lazy_layout_is_the_whole_documents_layout(seed: int) -> None:
    """The pager lays the report out block by block, and makes each page-break edit with no layout attached
    (a laid-out document lays out everything after a small edit in that one call, holding the GIL, issue
    #27): page count and every block's place equal Qt's layout of the finished document made at once."""
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QPdfWriter

    from privacy_studio.rendering.pagination import Pager
    from privacy_studio.rendering.pdf import _ensure_app, laid_out

    _ensure_app()
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    doc = laid_out(_content(seed, 40), QPdfWriter(buffer))
    whole = doc.clone()
    whole.documentLayout().setPaintDevice(doc.documentLayout().paintDevice())
    whole.setPageSize(doc.pageSize())
    assert whole.pageCount() > 5  # laid out at once

    def places(d) -> list[tuple[float, float]]:
        layout, block, out = d.documentLayout(), d.begin(), []
        while block.isValid():
            rect = layout.blockBoundingRect(block)
            out.append((round(rect.top(), 3), round(rect.height(), 3)))
            block = block.next()
        return out

    assert doc.pageCount() == whole.pageCount()
    assert places(doc) == places(whole)  # the layout that is painted
    doc.setPageSize(doc.pageSize())  # a stale layout, as after a page-break change
    assert Pager(doc).page_count() == whole.pageCount()
    assert places(doc) == places(whole)


def _paragraphs(section: Section) -> list[Paragraph]:
    return [b for b in section.blocks if isinstance(b, Paragraph)] + [
        p for sub in section.subsections for p in _paragraphs(sub)
    ]


def test_point_names_keep_off_the_lines(make_project) -> None:
    """On the report's Pareto plot (a front joining its points and the risk ceiling across), no name drawn
    beside a point touches a line: checked at 200 points along every piece of line."""
    from privacy_studio.rendering.figures import CANVAS_H, CANVAS_W, _Plot

    results = next(s for s in build_report(make_project()).sections if s.title == "Results")
    pareto = next(
        b
        for s in results.subsections
        for b in s.blocks
        if isinstance(b, PlotFigure) and "Pareto" in b.caption
    )
    image = QImage(int(CANVAS_W), int(CANVAS_H), QImage.Format.Format_RGB32)
    painter = QPainter(image)
    plot = _Plot(painter, pareto)
    try:
        plot.draw()
    finally:
        painter.end()
    markers = sum(len(s.x) for s in pareto.series if s.labels)
    names = plot.placed[markers:]
    assert names, "no point was named"
    lines = [
        QLineF(QPointF(plot.sx(x0), plot.sy(y0)), QPointF(plot.sx(x1), plot.sy(y1)))
        for s in pareto.series
        if s.mode in ("line", "dashed")
        for (x0, y0), (x1, y1) in zip(
            zip(s.x, s.y, strict=True), list(zip(s.x, s.y, strict=True))[1:], strict=False
        )
    ]
    assert lines
    for name in names:
        for line in lines:
            assert not any(_inside(name, line.pointAt(t / 199)) for t in range(200)), name


def _inside(rect: QRectF, point: QPointF) -> bool:
    return rect.left() < point.x() < rect.right() and rect.top() < point.y() < rect.bottom()


def test_a_cancel_stops_the_pagination_at_its_next_pass() -> None:
    """Arranging a long report's pages takes seconds: each pass reports progress, so a cancel requested
    then stops it (and nothing is written)."""
    from PySide6.QtCore import QBuffer, QIODevice
    from PySide6.QtGui import QPdfWriter

    from privacy_studio.core.progress import Cancelled, TaskControl
    from privacy_studio.rendering.pdf import _ensure_app, laid_out

    _ensure_app()
    messages: list[str] = []

    def cancel_when_arranging(fraction: float, message: str) -> None:
        messages.append(message)
        if "arranging the pages" in message:
            control.cancel()

    control = TaskControl(cancel_when_arranging)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    with pytest.raises(Cancelled):
        laid_out(_content(5, 40), QPdfWriter(buffer), control)
    assert sum("arranging the pages" in m for m in messages) == 1
