"""Small pieces the Decide step's trade-off panel and its views share: pens, limit boxes, tables, pages,
plots and label spacing."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QLayout,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.tradeoff.criteria import DEFAULT_CRITERIA
from privacy_studio.core.tradeoff.groups import read_attributes
from privacy_studio.gui.column_fit import fit_columns

FRONT_PEN = pg.mkPen("#0072B2", width=2)
CEILING_PEN = pg.mkPen("#D55E00", style=Qt.PenStyle.DashLine)
POINT_BRUSH, DOMINATED_BRUSH = pg.mkBrush("#0072B2"), pg.mkBrush("#BBBBBB")
RELEASE_BRUSH = pg.mkBrush("#009E73")  # release candidates of the protection search


#: Row labels of the optional release criteria in the choices form.
CRITERIA_LABELS = {
    "max_unique_traces": "Max unique whole traces",
    "max_worst_share": "Max at worst-case risk 1",
    "max_excluded": "Max people excluded",
    "max_homogeneous": "Max in homogeneous classes",
    "max_below_distinct_l": "Max below distinct l",
    "max_below_entropy_l": "Max below entropy l",
    "max_above_t": "Max farther than t",
}


def limit_box(key: str, what: str) -> QDoubleSpinBox:
    """A limit in percent strictly below 100 %; 0 means its default: the ceiling for the criteria always
    checked, "off" (not used) for the others."""
    box = QDoubleSpinBox()
    box.setRange(0.0, 99.999)
    box.setDecimals(3)
    box.setSuffix(" %")
    default = "= ceiling" if key in DEFAULT_CRITERIA else "off"
    box.setSpecialValueText(default)
    box.setToolTip(
        f"Release criterion: the largest acceptable {what}; {default} by default. A changed limit needs a "
        "reason (below), which the decision record prints."
    )
    return box


def data_table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    return table


def fill_table(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)  # the whole text where a narrowed column cuts it
            table.setItem(r, c, item)
    fit_columns(table)


def tab_page(*parts: QWidget | QLayout | tuple[QWidget, int]) -> QWidget:
    """A tab page stacking widgets (optionally with a stretch factor) and layouts top to bottom."""
    page = QWidget()
    layout = QVBoxLayout(page)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        elif isinstance(part, tuple):
            layout.addWidget(*part)
        else:
            layout.addWidget(part)
    return page


def plot_widget(bottom: str, left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setLabel("bottom", bottom)
    plot.setLabel("left", left)
    plot.showGrid(x=True, y=True, alpha=0.2)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)  # "risk (x0.001)" reads as a unit, not a scale
    return plot


def read_attributes_task(path: str, control: Any = None) -> Any:
    """``read_attributes`` as a worker task (one pandas read: nothing to report)."""
    return read_attributes(path)
