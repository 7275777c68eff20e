"""The Data step's map of places: one dot per place with events, darker where more events were recorded,
drawn from an overview's counts per place (issue #30: the window never holds the events to draw it)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from privacy_studio.core.io.overview import DatasetOverview
from privacy_studio.core.numbers import count

#: Light to dark (viridis, colour-blind safe): quintiles of events per place.
SHADES = ("#FDE725", "#5EC962", "#21918C", "#3B528B", "#440154")


class PlaceMap(QWidget):
    """Places of an overview on a km plane, coloured by their share of the events; hidden without one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setAspectLocked(True)
        self.plot.setLabel("bottom", "east (km)")
        self.plot.setLabel("left", "north (km)")
        self.plot.setFixedHeight(260)
        # one item per shade with its brush set once: per-point brushes took 50-280 ms for 10,000 places
        self.shades = [pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(c)) for c in SHADES]
        for item in self.shades:
            self.plot.addItem(item)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addWidget(self.plot)
        self.setVisible(False)

    def show_overview(self, overview: DatasetOverview | None) -> None:
        """Draw the overview's located places (hide the map when there is none or no coordinates)."""
        x, y, n = overview.places.located() if overview is not None else (np.zeros(0),) * 3
        self.setVisible(bool(len(x)))
        shade = np.searchsorted(np.quantile(n, [0.2, 0.4, 0.6, 0.8]), n, side="right") if len(n) else n
        for k, item in enumerate(self.shades):
            item.setData(x=x[shade == k], y=y[shade == k])
        if not len(x):
            return
        self.plot.autoRange()
        assert overview is not None
        self.note.setText(
            f"Events per place: {count(len(x))} places with coordinates, darker = more events (fifths of the "
            f"places); {count(int(n.sum()))} of the {count(overview.events)} events are at these places."
        )

    def shown_places(self) -> int:
        return sum(len(item.data) for item in self.shades)
