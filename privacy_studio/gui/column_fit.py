"""Tables that never scroll sideways: columns sized to their contents, the widest narrowed to the table's
width (their cells end in "…"; widen the window, or hover a cell, to read them)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QTableView


def fitted_widths(natural: list[int], available: int) -> list[int]:
    """Column widths within ``available`` pixels: the widest columns are narrowed to one common cap (the
    largest that fits), the others keep their natural width."""
    if sum(natural) <= available or not natural:
        return list(natural)
    low, high = 0, max(natural)
    while low < high:
        cap = (low + high + 1) // 2
        if sum(min(w, cap) for w in natural) <= available:
            low = cap
        else:
            high = cap - 1
    return [min(w, low) for w in natural]


class ColumnFit(QObject):
    """Keeps a table's columns within its width as it is resized; ``measure`` after a refill."""

    def __init__(self, table: QTableView) -> None:
        super().__init__(table)
        self.table = table
        self.natural: list[int] = []
        table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        table.viewport().installEventFilter(self)

    def measure(self) -> None:
        """Size the columns to their contents (the header's precision setting applies), then fit them."""
        self.table.resizeColumnsToContents()
        self.natural = [self.table.columnWidth(j) for j in range(self.table.model().columnCount())]
        self.apply()

    def apply(self) -> None:
        if len(self.natural) != self.table.model().columnCount():
            self.measure()
            return
        for j, width in enumerate(fitted_widths(self.natural, self.table.viewport().width())):
            self.table.setColumnWidth(j, width)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.apply()
        return False


def fit_columns(table: QTableView) -> None:
    """Size ``table``'s columns to their contents within its width, now and whenever it is resized."""
    fit = table.findChild(ColumnFit) or ColumnFit(table)
    fit.measure()
