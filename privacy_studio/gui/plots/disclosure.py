"""k-disclosure, EM- and KL-disclosure per profile for a chosen p, as bars side by side."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.gui.plots.base import PlotTab, profile_colour
from privacy_studio.gui.results import by_p, profile_label, profile_title

#: (record key, axis title, explanation key) of each panel, top to bottom.
MEASURES = (
    ("k_disclosure", "k-disclosure", "k_disclosure"),
    ("em", "EM-disclosure", "em"),
    ("kl", "KL-disclosure (nats)", "kl"),
)


class DisclosurePlot(PlotTab):
    title = "Disclosure per profile"
    tab_title = "Disclosure"
    measure_key = "em_disclosure"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.p_box = self.add_p_chooser()
        self.panels: dict[str, tuple[pg.PlotItem, pg.BarGraphItem]] = {}
        for row, (key, title, _) in enumerate(MEASURES):
            plot = self.graphics.addPlot(row=row, col=0)
            plot.setLabel("left", title)
            plot.showGrid(y=True, alpha=0.3)
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.getAxis("bottom").setHeight(42)
            bars = pg.BarGraphItem(x=[], height=[], width=0.7)
            plot.addItem(bars)
            self.panels[key] = (plot, bars)

    def values(self, key: str) -> list[float]:
        """The measure of each record at the chosen p (NaN when it was not computed)."""
        out = []
        for rec in self.records:
            entry = by_p(rec, self.p_box.value())
            value = entry.get(key) if entry else None
            out.append(float(value) if value is not None else float("nan"))
        return out

    def refresh(self) -> None:
        x = np.arange(len(self.records), dtype=float)
        brushes = [profile_colour(i) for i in range(len(self.records))]
        ticks = [[(i, profile_title(r).replace(" × ", "\n")) for i, r in enumerate(self.records)]]
        for key, (plot, bars) in self.panels.items():
            heights = np.nan_to_num(np.asarray(self.values(key), dtype=float))
            bars.setOpts(x=x, height=heights, width=0.7, brushes=brushes)
            plot.getAxis("bottom").setTicks(ticks)
            plot.setXRange(-0.6, max(len(self.records), 1) - 0.4, padding=0)

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        columns = [self.values(key) for key, _, _ in MEASURES]
        rows = [
            [profile_label(rec), self.p_box.value(), *(col[i] for col in columns)]
            for i, rec in enumerate(self.records)
        ]
        return ["profile", "p", *(key for key, _, _ in MEASURES)], rows
