"""Sparsity theory (metrics.md §3): chance of being unique or 2-anonymous against d, with the data marked."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.core.measures import theory
from privacy_studio.core.numbers import one_in
from privacy_studio.gui.plots.base import PercentAxis, PlotTab

CURVE_POINTS = 200


class SparsityPlot(PlotTab):
    title = "Sparsity theory"
    measure_key = "sparsity_theory"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.combo = self.add_profile_chooser("n and fill rate of profile:")
        self.plot = self.graphics.addPlot(axisItems={"left": PercentAxis("left")})
        self.plot.setLogMode(x=True, y=False)
        self.plot.getAxis("bottom").setStyle(maxTextLevel=0)  # decades only: minor labels collided
        self.plot.setLabel("bottom", "dimensions d (spatial units x time bins)")
        self.plot.setLabel("left", "probability")
        self.plot.setYRange(0, 1)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        legend = self.add_side_legend()
        self.unique = self.plot.plot([], [], pen=pg.mkPen("#D55E00", width=2))
        self.anon2 = self.plot.plot(
            [], [], pen=pg.mkPen("#0072B2", width=2, style=pg.QtCore.Qt.PenStyle.DashLine)
        )
        legend.addItem(self.unique, "P(a record is unique)")
        legend.addItem(self.anon2, "P(the data is 2-anonymous)")
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen("#404040", style=pg.QtCore.Qt.PenStyle.DashLine))
        self.marker.setVisible(False)
        self.plot.addItem(self.marker)
        self.dot = self.plot.plot([], [], pen=None, symbol="o", symbolSize=10, symbolBrush="#D55E00")

    def curves(self) -> tuple[dict[str, Any], np.ndarray]:
        """Curve values for the chosen profile's n and fill rate, and d values ending past its own d."""
        rec = self.combo.chosen(self.records)
        if rec is None or not rec.get("n_users") or not rec.get("d") or rec.get("fill_rate") is None:
            return {}, np.zeros(0)
        d_max = max(10.0, float(rec["d"]) * 10)
        ds = np.unique(np.round(np.logspace(0, np.log10(d_max), CURVE_POINTS)).astype(np.int64))
        return theory.sparsity_curves(int(rec["n_users"]), float(rec["fill_rate"]), ds), ds

    def refresh(self) -> None:
        curves, ds = self.curves()
        rec = self.combo.chosen(self.records)
        if not curves or rec is None:
            for item in (self.unique, self.anon2, self.dot):
                item.setData([], [])
            self.marker.setVisible(False)
            return
        self.unique.setData(ds, curves["p_unique"])
        self.anon2.setData(ds, curves["p_2anon"])
        d = float(rec["d"])
        own = theory.sparsity_curves(int(rec["n_users"]), float(rec["fill_rate"]), np.array([int(d)]))
        self.marker.setValue(np.log10(d))
        self.marker.setVisible(True)
        self.dot.setData([d], [float(own["p_unique"][0])])
        self.note.setText(
            f"n = {rec['n_users']:,} people, fill rate q = {one_in(rec['fill_rate'])}, "
            f"this profile's d = {int(d):,} "
            "(dashed line). The theory assumes independent random cells: real traces are far more regular."
        )

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        curves, ds = self.curves()
        if not curves:
            return ["d", "p_unique", "p_2anon"], []
        rows = [
            [int(d), float(u), float(a)]
            for d, u, a in zip(ds, curves["p_unique"], curves["p_2anon"], strict=True)
        ]
        return ["d", "p_unique", "p_2anon"], rows
