"""What every plot tab shares: a toolbar to export the picture (PNG / SVG) and its data (CSV), and help."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QBuffer, QIODevice, QRect, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.atomic import write_bytes, write_text
from privacy_studio.gui import help as measure_help
from privacy_studio.gui.plots.profile_choice import ProfileCombo
from privacy_studio.gui.results import Record

#: What an empty plot says, so a newcomer knows how to fill it.
NO_RESULTS = "No results yet: tick cells in the Grid tab (left) and press Run (Ctrl+R)."

#: Colours of successive profiles (colour-blind friendly, Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)


def profile_colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def profile_dash(index: int) -> Qt.PenStyle:
    """Line style that tells apart profiles sharing a colour once the palette wraps round."""
    return DASHES[(index // len(PALETTE)) % len(DASHES)]


#: What plots inside analysis panels ask for, so their settings and plot fit a 900-pixel window unscrolled.
COMPACT_PLOT_SIZE = QSize(480, 240)


class CompactGraphics(pg.GraphicsLayoutWidget):
    """A graphics layout that asks for a modest size (panels stack settings above it)."""

    def sizeHint(self) -> QSize:
        return COMPACT_PLOT_SIZE


class CompactPlot(pg.PlotWidget):
    """A single plot that asks for a modest size (panels stack settings above it)."""

    def sizeHint(self) -> QSize:
        return COMPACT_PLOT_SIZE


class PlotTab(QWidget):
    """A plot widget with export buttons; subclasses fill ``self.plot`` and implement the data hooks."""

    title = "plot"
    tab_title = ""  # a shorter name for the tab when the title is long (the title becomes its tooltip)
    measure_key = ""  # key into core.explanations for tooltip and help

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.records: list[Record] = []
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("w")
        self.controls = QHBoxLayout()
        self.controls.setContentsMargins(0, 0, 0, 0)
        png = QPushButton("Export PNG…")
        svg = QPushButton("Export SVG…")
        data = QPushButton("Export data CSV…")
        png.clicked.connect(lambda: self._ask_export("png"))
        svg.clicked.connect(lambda: self._ask_export("svg"))
        data.clicked.connect(lambda: self._ask_export("csv"))
        self.controls.addStretch(1)
        for button in (png, svg, data):
            self.controls.addWidget(button)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addLayout(self.controls)
        layout.addWidget(self.graphics, 1)
        layout.addWidget(self.note)
        self.note.setText(NO_RESULTS)
        tip = measure_help.tooltip(self.measure_key)
        if tip:
            self.graphics.setToolTip(tip)

    def add_side_legend(self) -> pg.LegendItem:
        """A legend in its own column right of the plot, so it never hides a curve; add items by hand."""
        side = self.graphics.addLayout(row=0, col=1)
        legend = pg.LegendItem(labelTextColor="k")
        legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        side.addItem(legend, row=0, col=0)
        side.addLabel("", row=1, col=0)  # takes the height left below the entries
        side.layout.setRowStretchFactor(1, 1)
        self.graphics.ci.layout.setColumnStretchFactor(0, 1)  # the plot takes the width the legend leaves
        self.graphics.ci.layout.setColumnStretchFactor(1, 0)
        side.setMaximumWidth(240)
        return legend

    # -- choosers ----------------------------------------------------------------------------------
    def add_p_chooser(self) -> QSpinBox:
        """A "Points known: p = …" box at the left of the controls; changing it redraws the plot."""
        box = QSpinBox()
        box.setRange(1, 1000)
        box.setPrefix("p = ")
        box.valueChanged.connect(self.refresh)
        self._add_control("Points known:", box)
        return box

    def add_profile_chooser(self, label: str = "Profile:") -> ProfileCombo:
        """A profile chooser at the left of the controls; changing it redraws the plot."""
        combo = ProfileCombo()
        combo.currentIndexChanged.connect(self.refresh)
        self._add_control(label, combo)
        return combo

    def _add_control(self, label: str, widget: QWidget) -> None:
        self.controls.insertWidget(0, QLabel(label))
        self.controls.insertWidget(1, widget)

    # -- hooks -------------------------------------------------------------------------------------
    def set_records(self, records: list[Record]) -> None:
        """Show these results (called with the whole list after each partial result)."""
        self.records = list(records)
        self.refresh()
        if not self.records:
            self.note.setText(NO_RESULTS)
        elif self.note.text() == NO_RESULTS:
            self.note.clear()

    def refresh(self) -> None:
        raise NotImplementedError

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        """Header and rows of exactly what is plotted, for the CSV export."""
        raise NotImplementedError

    # -- export ------------------------------------------------------------------------------------
    def export(self, path: str | Path) -> Path:
        """Write the picture (``.png`` / ``.svg``) or the plotted data (``.csv``) to ``path``, atomically
        (rendered in memory first, so a failed write leaves the previous file)."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".csv":
            header, rows = self.data_table()
            text = io.StringIO()
            writer = csv.writer(text, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)
            write_text(path, text.getvalue())
        elif suffix == ".svg":
            write_bytes(path, self._svg_bytes())
        elif suffix == ".png":
            write_bytes(path, self._png_bytes())
        else:
            raise ValueError(
                f"cannot export a plot as {suffix or 'a file without extension'} (use .png, .svg or .csv)"
            )
        return path

    def _png_bytes(self) -> bytes:
        exporter = pg_exporters.ImageExporter(self.graphics.scene())
        exporter.parameters()["width"] = max(800, self.graphics.width())
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        exporter.export(toBytes=True).save(buffer, "PNG")
        return bytes(buffer.data())

    def _svg_bytes(self) -> bytes:
        """The plot area as vector SVG (pyqtgraph's own SVG exporter fails on recent Qt versions)."""
        size = self.graphics.size()
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(size)
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        generator.setTitle(self.title)
        painter = QPainter(generator)
        try:
            self.graphics.render(painter)
        finally:
            painter.end()
        return bytes(buffer.data())

    def _ask_export(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV table (*.csv)"}
        name = self.title.lower().replace(" ", "_").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.title}", f"{name}.{kind}", filters[kind])
        if path:
            if not path.lower().endswith("." + kind):
                path += "." + kind
            self.export(path)
