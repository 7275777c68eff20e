"""Where the laid-out report falls on its pages: whole paragraphs per page, headings kept with what follows
them, no page left nearly empty by a forced break, and where the figures' places are.

Each decision sets a block's page-break policy, then the whole document is laid out afresh (Qt's own
relayout after an edit can differ from a full layout); the HTML is parsed once, and the fresh layout is
made lazily, block by block as it is read, so no single call holds the GIL long. Every paragraph and heading
the report writes starts with an anchor ``k<n>`` so the layout's blocks can be told apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QTextBlock, QTextBlockFormat, QTextCursor, QTextDocument, QTextFormat

#: A forced page break is dropped when the page before it would be filled less than this.
SPARSE_PAGE = 0.3
#: A heading stays on the page of at least this many rows of what follows it (a table's caption, header and
#: first row count as three); otherwise it opens the next page.
KEEP_LINES = 3
#: Layout passes at most (each one changes one page break): this many, or this many per page of a long report
#: (a cap of 40 left an 80-page report with lines painted twice and headings ending pages).
MAX_PASSES = 40
PASSES_PER_PAGE = 4


def anchor(n: int) -> str:
    """The mark written at the start of paragraph or heading ``n``."""
    return f"<a name='k{n}'></a>"


@dataclass(frozen=True)
class Change:
    """One page break to change: ``drop`` the forced break before paragraph ``n``, or ``add`` one."""

    kind: str
    n: int


class Pager:
    """Finds the first pagination fault of a laid-out document of fixed page size, and mends it."""

    def __init__(self, doc: QTextDocument) -> None:
        self.doc = doc
        self.layout = doc.documentLayout()
        self.page_h = doc.pageSize().height()
        self.added: set[int] = set()  # paragraphs given a page break
        self.settled: set[int] = set()  # paragraphs left where they fall

    def apply(self, change: Change) -> None:
        """Set the page break the change asks for, then lay the document out afresh."""
        policy = QTextFormat.PageBreakFlag.PageBreak_Auto
        if change.kind == "add":
            policy = QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
            self.added.add(change.n)
        elif change.n in self.added:  # Qt moved it on its own since, and then broke twice: leave it
            self.added.discard(change.n)
            self.settled.add(change.n)
        block = next(b for b in _blocks(self.doc) if _number(b) == change.n)
        update = QTextBlockFormat()
        update.setPageBreakPolicy(policy)
        # The edit is made with no layout: a laid-out document answers a small edit by laying out everything
        # after it in that one call, holding the GIL (56-65 ms of CPU on the sample's and Gowalla's reports,
        # issue #27), only for that layout to be thrown away. A fresh layout on the same device gives the same
        # pages (the positions of every block compared), made lazily as blocks are read.
        device = self.layout.paintDevice()
        self.doc.setDocumentLayout(None)
        QTextCursor(block).mergeBlockFormat(update)
        self.layout = self.doc.documentLayout()
        self.layout.setPaintDevice(device)
        self.doc.setPageSize(self.doc.pageSize())  # a full layout again, with the device, made lazily

    def page_count(self) -> int:
        """The document's pages, laid out block by block first: ``pageCount()`` on a stale layout lays the
        whole document out in one call holding the GIL (140 ms of CPU for Gowalla's report, issue #27)."""
        for block in _blocks(self.doc):
            self.layout.blockBoundingRect(block)  # lays the document out up to here, if not yet
        return self.doc.pageCount()

    def _page(self, y: float) -> int:
        return math.floor(y / self.page_h)

    def first_fault(self) -> Change | None:
        """In document order, the first of: a forced break after a nearly empty page (drop it); a paragraph
        across a page boundary or a heading ending a page (break before it)."""
        blocks = _blocks(self.doc)
        bottom, root = 0.0, self.doc.rootFrame()
        for i, block in enumerate(blocks):
            rect = self.layout.blockBoundingRect(block)  # lays the document out up to here, if not yet
            n = _number(block)
            top_page = self._page(rect.top())
            opens = block.blockFormat().pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
            # the page the break ends is filled less than SPARSE_PAGE (below 0: it is blank)
            if n is not None and opens and bottom - (top_page - 1) * self.page_h < SPARSE_PAGE * self.page_h:
                return Change("drop", n)
            bottom = max(bottom, rect.bottom())
            if n is None or n in self.settled or self.doc.frameAt(block.position()) != root:
                continue
            at_top = rect.top() - top_page * self.page_h < 1.0
            if not at_top and top_page != self._page(rect.bottom() - 1.0) and rect.height() < self.page_h:
                return Change("add", n)  # across a boundary: Qt would paint its last line twice
            if not at_top and block.blockFormat().headingLevel() and self._orphan(blocks[i + 1 :], top_page):
                return Change("add", n)
        return None

    def _orphan(self, blocks: list[QTextBlock], page: int) -> bool:
        """Whether fewer than :data:`KEEP_LINES` rows of ``blocks`` (the cells of a table row make one row)
        are on ``page``, counting up to and including the next heading; empty blocks are left out."""
        rows: dict[float, float] = {}
        for block in blocks:
            if not block.text().strip():
                continue
            rect, lines = self.layout.blockBoundingRect(block), block.layout()
            for j in range(lines.lineCount()):
                line = lines.lineAt(j)
                top = round(rect.top() + line.y())
                rows[top] = max(rows.get(top, 0.0), rect.top() + line.y() + line.height())
                if len(rows) >= KEEP_LINES:
                    break
            if len(rows) >= KEEP_LINES or block.blockFormat().headingLevel():
                break
        return any(self._page(bottom - 1.0) != page for bottom in rows.values())


def _number(block: QTextBlock) -> int | None:
    """The paragraph number of the anchor a block starts with, or None."""
    it = block.begin()
    if it.atEnd():
        return None
    for name in it.fragment().charFormat().anchorNames():
        if name.startswith("k") and name[1:].isdigit():
            return int(name[1:])
    return None


def _blocks(doc: QTextDocument) -> list[QTextBlock]:
    out, block = [], doc.begin()
    while block.isValid():
        out.append(block)
        block = block.next()
    return out


def figure_rects(doc: QTextDocument) -> list[tuple[str, QRectF]]:
    """Where the laid-out document placed each figure's blank image: (its name, its rectangle in document
    coordinates), in document order."""
    layout, out = doc.documentLayout(), []
    for block in _blocks(doc):
        origin = layout.blockBoundingRect(block).topLeft()  # first: it lays the block out if it is not yet
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isImageFormat():
                at = fragment.position() - block.position()
                line = block.layout().lineForTextPosition(at)
                x0, x1 = line.cursorToX(at)[0], line.cursorToX(at + 1)[0]
                baseline = origin.y() + line.y() + line.ascent()
                name = fragment.charFormat().toImageFormat().name()
                out.append((name, QRectF(origin.x() + x0, baseline - line.ascent(), x1 - x0, line.ascent())))
            it += 1
    return out
