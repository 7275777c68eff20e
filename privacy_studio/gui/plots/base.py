"""What every plot tab shares: a toolbar to export the picture (PNG / SVG) and its data (CSV), and help."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QRect, QSize, Qt, QTimer
from PySide6.QtGui import QPainter, QShowEvent
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

from privacy_studio.gui import help as measure_help
from privacy_studio.gui.plots.profile_choice import ProfileCombo
from privacy_studio.gui.results import Record, p_values

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


#: Milliseconds a shown plot waits for more results before redrawing (results of a run come in bursts).
REDRAW_DELAY_MS = 120


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
        self.p_box: QSpinBox | None = None
        self.combo: ProfileCombo | None = None
        self._p_placed = False
        self._stale = False
        self._deferred = False
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_DELAY_MS)
        self._redraw_timer.timeout.connect(self.flush)
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
        self.p_box = box
        return box

    def add_profile_chooser(self, label: str = "Profile:") -> ProfileCombo:
        """A profile chooser at the left of the controls; changing it redraws the plot."""
        combo = ProfileCombo()
        combo.currentIndexChanged.connect(self.refresh)
        self._add_control(label, combo)
        self.combo = combo
        return combo

    def _add_control(self, label: str, widget: QWidget) -> None:
        self.controls.insertWidget(0, QLabel(label))
        self.controls.insertWidget(1, widget)

    # -- redrawing ---------------------------------------------------------------------------------
    def redraw_only_when_shown(self) -> None:
        """From now on, new results redraw this plot only while it is shown, at most every
        ``REDRAW_DELAY_MS``; a hidden plot redraws once when it is shown again (the window's tabs)."""
        self._deferred = True

    def flush(self) -> None:
        """Redraw now if results arrived since the last drawing."""
        self._redraw_timer.stop()
        if self._stale:
            self._stale = False
            self.refresh()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self._redraw_timer.start(0)

    # -- hooks -------------------------------------------------------------------------------------
    def set_records(self, records: list[Record]) -> None:
        """Show these results (called with the whole list after each partial result)."""
        self.records = list(records)
        self.update_controls()
        self._stale = True
        if not self._deferred or not self.window().isVisible():  # off screen (tests, exports): draw now
            self.flush()
        elif self.isVisible() and not self._redraw_timer.isActive():
            self._redraw_timer.start(REDRAW_DELAY_MS)
        if not self.records:
            self.note.setText(NO_RESULTS)
        elif self.note.text() == NO_RESULTS:
            self.note.clear()

    def update_controls(self) -> None:
        """Make the choosers follow ``self.records`` (cheap, done at once even while the plot is hidden):
        the profiles, and the range of p with the run's reference p chosen when the first results come."""
        if self.combo is not None:
            self.combo.update_records(self.records)
        ps = p_values(self.records)
        if self.p_box is None or not ps:
            self._p_placed = False
            return
        self.p_box.blockSignals(True)
        self.p_box.setRange(ps[0], ps[-1])
        if not self._p_placed:
            reference = next((r["reference_p"] for r in self.records if r.get("reference_p") in ps), None)
            self.p_box.setValue(reference if reference is not None else ps[0])
            self._p_placed = True
        self.p_box.blockSignals(False)

    def refresh(self) -> None:
        raise NotImplementedError

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        """Header and rows of exactly what is plotted, for the CSV export."""
        raise NotImplementedError

    # -- export ------------------------------------------------------------------------------------
    def export(self, path: str | Path) -> Path:
        """Write the picture (``.png`` / ``.svg``) or the plotted data (``.csv``) to ``path``."""
        path = Path(path)
        suffix = path.suffix.lower()
        self.flush()
        if suffix == ".csv":
            header, rows = self.data_table()
            with path.open("w", newline="", encoding="utf-8") as f:
                writer = csv.writer(f)
                writer.writerow(header)
                writer.writerows(rows)
        elif suffix == ".svg":
            self._export_svg(path)
        elif suffix == ".png":
            exporter = pg_exporters.ImageExporter(self.graphics.scene())
            exporter.parameters()["width"] = max(800, self.graphics.width())
            exporter.export(str(path))
        else:
            raise ValueError(
                f"cannot export a plot as {suffix or 'a file without extension'} (use .png, .svg or .csv)"
            )
        return path

    def _export_svg(self, path: Path) -> None:
        """Render the plot area as vector SVG (pyqtgraph's own SVG exporter fails on recent Qt versions)."""
        size = self.graphics.size()
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(size)
        generator.setViewBox(QRect(0, 0, size.width(), size.height()))
        generator.setTitle(self.title)
        painter = QPainter(generator)
        try:
            self.graphics.render(painter)
        finally:
            painter.end()

    def _ask_export(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV table (*.csv)"}
        name = self.title.lower().replace(" ", "_").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.title}", f"{name}.{kind}", filters[kind])
        if path:
            if not path.lower().endswith("." + kind):
                path += "." + kind
            self.export(path)
