"""Map of EM-disclosure per place: square cells coloured by risk class, and each place once zoomed in.

The cells are computed off the GUI thread (``core.risk_map``) when the window gives the map its task runner;
drawing them is one image whatever the number of places, so the map never holds up the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer

from privacy_studio.core.numbers import number
from privacy_studio.core.risk_map import RiskCells, bin_places
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.results import Record, by_p

if TYPE_CHECKING:
    from privacy_studio.gui.workers import TaskRunner

#: Colours of the risk classes, lowest to highest (viridis steps: ordered lightness, colour-blind safe).
CLASS_COLOURS = ("#FDE725", "#5EC962", "#21918C", "#3B528B", "#440154")
#: Places are drawn one by one only when at most this many are in view.
MAX_PLACES_SHOWN = 2000
#: Milliseconds to wait after a pan or zoom before choosing the places to draw.
VIEW_DELAY_MS = 150


def em_people(rec: Record) -> str:
    """Whom the places' EM-disclosure is estimated from, when not everyone in the file (a sentence)."""
    n_users = int(rec.get("n_users") or 0)
    people = int((by_p(rec, rec.get("reference_p")) or {}).get("em_users") or 0)
    if not people or people >= n_users:
        return ""
    return f" Estimated from the {people:,} of the {n_users:,} people on whom EM-disclosure was computed."


class LocationEmMap(PlotTab):
    title = "EM per location map"
    tab_title = "Risk map"
    measure_key = "em_disclosure"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.runner: TaskRunner | None = None
        self.combo = self.add_profile_chooser()
        self.plot = self.graphics.addPlot()
        self.plot.setAspectLocked(True)
        self.plot.setLabel("bottom", "east (km)")
        self.plot.setLabel("left", "north (km)")
        self.cells_image = pg.ImageItem(axisOrder="row-major")
        self.plot.addItem(self.cells_image)
        self.brushes = [pg.mkBrush(c) for c in CLASS_COLOURS]
        self.scatter = pg.ScatterPlotItem(size=9, pen=pg.mkPen("#606060", width=0.5))
        self.plot.addItem(self.scatter)
        self.legend = self.add_side_legend()
        self.swatches = [pg.ScatterPlotItem(symbol="s", size=12, pen=None, brush=b) for b in self.brushes]
        self.cells: RiskCells | None = None
        self._places = (np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
        self._request = 0
        self._shown: dict | None = None
        self._view_timer = QTimer(self)
        self._view_timer.setSingleShot(True)
        self._view_timer.setInterval(VIEW_DELAY_MS)
        self._view_timer.timeout.connect(self._show_places_in_view)
        self.plot.sigRangeChanged.connect(lambda *_: self._view_timer.start())

    def use_runner(self, runner: TaskRunner) -> None:
        """Aggregate places in ``runner``'s threads from now on (without one, on the calling thread)."""
        self.runner = runner

    def units(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Units with known coordinates and an EM value: ids, x, y, em."""
        rec = self.combo.chosen(self.records)
        loc = (rec or {}).get("per_location") or {}
        ids = [str(u) for u in loc.get("unit_ids") or []]
        x, y, em = (np.asarray(loc.get(k) or [], dtype=float) for k in ("x_km", "y_km", "em"))
        if not (len(ids) == len(x) == len(y) == len(em)):
            return [], np.zeros(0), np.zeros(0), np.zeros(0)
        keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(em)
        return [i for i, k in zip(ids, keep, strict=True) if k], x[keep], y[keep], em[keep]

    def refresh(self) -> None:
        rec = self.combo.chosen(self.records)
        shown = (rec or {}).get("per_location")
        if shown is not None and shown is self._shown:
            return  # another profile arrived: the map of the chosen one is already drawn
        self._shown = shown
        _ids, x, y, em = self.units()
        self._request += 1
        request = self._request
        if self.runner is None:
            self._draw(request, x, y, em, bin_places(x, y, em))
            return
        from privacy_studio.gui.workers import Worker

        worker = Worker(bin_places, x, y, em, name="risk map")
        worker.background = True
        worker.signals.finished.connect(lambda cells: self._draw(request, x, y, em, cells))
        worker.signals.failed.connect(
            lambda message, _trace: self.note.setText(f"Cannot draw the map: {message}")
        )
        self.runner.start(worker)

    def _draw(self, request: int, x: np.ndarray, y: np.ndarray, em: np.ndarray, cells: RiskCells) -> None:
        """Show the cells of the latest request (an older aggregation finishing late is dropped)."""
        if request != self._request:
            return
        self.cells = cells
        self._places = (x, y, cells.classes.of(em))
        self.legend.clear()
        if not x.size:
            self.cells_image.clear()
            self.scatter.setData([], [])
            self.note.setText(
                "No place coordinates for this profile: import an antennas (or locations) file to draw "
                "the map."
                if self.records
                else self.note.text()
            )
            return
        colours = np.array([pg.mkColor(c).getRgb() for c in CLASS_COLOURS], dtype=np.ubyte)
        classes = cells.classes.of(cells.highest)
        rgba = np.zeros((*cells.shape, 4), dtype=np.ubyte)
        rgba[classes >= 0] = colours[classes[classes >= 0]]
        self.cells_image.setImage(rgba, autoLevels=False, levels=(0, 255))
        rows, columns = cells.shape
        self.cells_image.setRect(QRectF(cells.x0, cells.y0, columns * cells.cell_km, rows * cells.cell_km))
        for swatch, label in zip(self.swatches, cells.classes.labels(), strict=True):
            self.legend.addItem(swatch, label)
        self.plot.autoRange()
        rec = self.combo.chosen(self.records) or {}
        p = rec.get("reference_p")
        self.note.setText(
            f"{x.size:,} places with coordinates in squares of {number(cells.cell_km, 2)} km, each coloured "
            "by the EM-disclosure of its riskiest place (classes of one fifth of the places each; darker = "
            "riskier)"
            + (f", attacker knows p = {p} points" if p else "")
            + f". Zoom in to see each place (drawn when at most {MAX_PLACES_SHOWN:,} are in view)."
            + em_people(rec)
        )
        self._show_places_in_view()

    def coverage(self) -> str:
        """The file's people, then whom the places' values are estimated from, for an export's header."""
        rec = self.combo.chosen(self.records) if self.combo is not None else None
        return super().coverage() + ("" if rec is None else em_people(rec))

    def _show_places_in_view(self) -> None:
        """Draw the places inside the view when they are few enough; only the cells otherwise."""
        x, y, classes = self._places
        (x0, x1), (y0, y1) = self.plot.viewRange()
        inside = np.flatnonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))
        if not inside.size or inside.size > MAX_PLACES_SHOWN:
            self.scatter.setData([], [])
            self.cells_image.setOpacity(1.0)
            return
        self.cells_image.setOpacity(0.35)
        self.scatter.setData(x=x[inside], y=y[inside], brush=[self.brushes[c] for c in classes[inside]])

    def shown_places(self) -> int:
        """How many places are drawn one by one (0 at city scale)."""
        return len(self.scatter.data)

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        ids, x, y, em = self.units()
        return ["unit", "x_km", "y_km", "em"], [
            [i, a, b, e] for i, a, b, e in zip(ids, x, y, em, strict=True)
        ]
