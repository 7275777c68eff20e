"""What every plot tab shares: a toolbar to export the picture (PNG / SVG) and its data (CSV), and help."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QShowEvent
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
from privacy_studio.core.numbers import number, share
from privacy_studio.gui import help as measure_help
from privacy_studio.gui.plots.profile_choice import ProfileCombo
from privacy_studio.gui.results import Record, p_values

#: What an empty plot says, so a newcomer knows how to fill it.
NO_RESULTS = "No results yet: tick cells in the Grid step and press Run (Ctrl+R)."

#: Colours of successive profiles (colour-blind friendly, Okabe-Ito).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")


DASHES = (Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine)

#: Marker of successive profiles: seven shapes against eight colours, so 56 profiles differ in both.
SYMBOLS = ("o", "s", "t", "d", "star", "t1", "p")

#: Width in pixels of an exported PNG: 8 inches at 300 dots per inch, a printed page's width.
PRINT_WIDTH = 2400
PRINT_DPI = 300


def profile_colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def profile_symbol(index: int) -> str:
    return SYMBOLS[index % len(SYMBOLS)]


class PercentAxis(pg.AxisItem):
    """An axis of shares (0-1) labelled in percent, as the report and the command line write them."""

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [share(v * scale) for v in values]


class PlainAxis(pg.AxisItem):
    """An axis of small measurements (EM, KL) in plain decimals: no "(x1e-06)" scale beside its title."""

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return [number(v * scale) for v in values]


class DecadeAxis(pg.AxisItem):
    """A log-scale axis labelled at 1, 2 and 5 times each power of ten only: the labels of every minor
    tick (3·10¹, 4·10¹ …) ran into each other over three decades at 1280 pixels."""

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        strings = super().logTickStrings(values, scale, spacing)
        return [s if _one_two_five(v) else "" for v, s in zip(values, strings, strict=True)]


def _one_two_five(exponent: float) -> bool:
    """Whether 10**exponent is 1, 2 or 5 times a power of ten."""
    mantissa = 10 ** (exponent - math.floor(exponent))
    return any(abs(mantissa - m) < 1e-6 * m for m in (1, 2, 5, 10))


def profile_dash(index: int) -> Qt.PenStyle:
    """Line style that tells apart profiles sharing a colour once the palette wraps round."""
    return DASHES[(index // len(PALETTE)) % len(DASHES)]


#: Milliseconds a shown plot waits for more results before redrawing (results of a run come in bursts).
REDRAW_DELAY_MS = 250


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
        self.context = ""
        self.p_box: QSpinBox | None = None
        self.combo: ProfileCombo | None = None
        self._p_placed = False
        self._stale = False
        self._deferred = False
        self.in_steps = False  # a timed redraw: refresh may draw part now and call continue_later()
        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_DELAY_MS)
        self._redraw_timer.timeout.connect(self._redraw_step)
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
        """Redraw now, whole, if results arrived since the last drawing."""
        self._redraw_timer.stop()
        while self._stale:
            self._stale = False
            self.refresh()
        self.settle_views()

    def _redraw_step(self) -> None:
        """A timed redraw: a refresh that builds many items may stop part way (``continue_later``), so
        the event loop turns between the parts."""
        if self._stale:
            self._stale = False
            self.in_steps = True
            try:
                self.refresh()
            finally:
                self.in_steps = False
            self.settle_views()

    def settle_views(self) -> None:
        """Fit each view's auto range to its new items now, not while painting: pyqtgraph fits it in the
        paint, whose new transform asks for another fit and so another whole paint (two to five paints of
        the plot for one new result, each replaying every axis: the window's longest pauses in a run)."""
        for item in self.graphics.scene().items():
            if isinstance(item, pg.ViewBox):
                item.prepareForPaint()  # fits the range and moves the items: this queues one more fit
                item.prepareForPaint()  # which finds the same range, so the paint to come is the last

    def continue_later(self) -> None:
        """Called by a stepped refresh that stopped part way: the next part comes once the loop has turned."""
        self._stale = True
        self._redraw_timer.start(0)

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
    def set_context(self, text: str) -> None:
        """Name of the dataset (project) that exported pictures state under their title."""
        self.context = text

    def coverage(self) -> str:
        """Which people the plot covers and at which p, for the export's header (one line)."""
        people = max((int(r.get("n_users") or 0) for r in self.records), default=0)
        parts = [f"{people:,} people" if people else "no results yet"]
        if self.p_box is not None and self.records:
            p = self.p_box.value()
            excluded = [
                int(e.get("n_excluded") or 0)
                for r in self.records
                for e in r.get("by_p") or []
                if e.get("p") == p
            ]
            parts.append(f"attacker knows p = {p} points")
            if excluded:
                parts.append(f"{max(excluded):,} sampled people with fewer than p points left out")
        return "; ".join(parts)

    def header_lines(self) -> list[str]:
        """Title, then dataset and coverage, written above an exported picture."""
        return [self.title, " — ".join(t for t in (self.context, self.coverage()) if t)]

    def export(self, path: str | Path) -> Path:
        """Write the picture (``.png`` / ``.svg``) or the plotted data (``.csv``) to ``path``."""
        path = Path(path)
        suffix = path.suffix.lower()
        self.flush()
        if suffix == ".csv":
            header, rows = self.data_table()
            text = io.StringIO(newline="")
            writer = csv.writer(text)
            writer.writerow(header)
            writer.writerows(rows)
            write_text(path, text.getvalue())
        elif suffix == ".svg":
            self._export_svg(path)
        elif suffix == ".png":
            write_bytes(path, self._print_png())
        else:
            raise ValueError(
                f"cannot export a plot as {suffix or 'a file without extension'} (use .png, .svg or .csv)"
            )
        return path

    def _print_png(self) -> bytes:
        """The plot at print resolution (``PRINT_WIDTH`` pixels, 300 dpi) under its header lines."""
        exporter = pg_exporters.ImageExporter(self.graphics.scene())
        exporter.parameters()["width"] = PRINT_WIDTH
        plot = exporter.export(toBytes=True)
        header = int(PRINT_WIDTH * 0.06)
        image = QImage(plot.width(), plot.height() + header, QImage.Format.Format_RGB32)
        image.fill(QColor("white"))
        dots_per_metre = round(PRINT_DPI / 0.0254)
        image.setDotsPerMeterX(dots_per_metre)
        image.setDotsPerMeterY(dots_per_metre)
        painter = QPainter(image)
        try:
            self._paint_header(painter, plot.width(), header)
            painter.drawImage(0, header, plot)
        finally:
            painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        return bytes(data.data())

    def _paint_header(self, painter: QPainter, width: int, height: int) -> None:
        title, context = self.header_lines()
        margin = height // 6
        font = QFont()
        font.setPixelSize(height * 2 // 5)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("black"))
        painter.drawText(
            QRect(margin, 0, width - 2 * margin, height // 2), Qt.AlignmentFlag.AlignBottom, title
        )
        font.setPixelSize(height // 4)
        font.setBold(False)
        painter.setFont(font)
        painter.drawText(QRect(margin, height // 2, width - 2 * margin, height // 2), 0, context)

    def _export_svg(self, path: Path) -> None:
        """Render the plot area as vector SVG under its header lines (pyqtgraph's own SVG exporter fails on
        recent Qt versions); written to a buffer first, then atomically to ``path``."""
        size = self.graphics.size()
        header = max(48, size.width() // 16)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(QSize(size.width(), size.height() + header))
        generator.setViewBox(QRect(0, 0, size.width(), size.height() + header))
        generator.setTitle(self.title)
        generator.setDescription(self.header_lines()[1])
        painter = QPainter(generator)
        try:
            self._paint_header(painter, size.width(), header)
            painter.translate(0, header)
            self.graphics.render(painter)
        finally:
            painter.end()
        write_bytes(path, bytes(data.data()))

    def _ask_export(self, kind: str) -> None:
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "csv": "CSV table (*.csv)"}
        name = self.title.lower().replace(" ", "_").replace("/", "_")
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.title}", f"{name}.{kind}", filters[kind])
        if path:
            if not path.lower().endswith("." + kind):
                path += "." + kind
            self.export(path)
