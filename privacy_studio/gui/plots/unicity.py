"""Unicity ε_p against the attacker's number of known points p: one curve per profile with its 95 % band."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.gui.plots.base import PercentAxis, PlotTab, profile_colour, profile_dash, profile_symbol
from privacy_studio.gui.results import Record, p_values, profile_label, profile_title, series

#: New curves built per turn of the event loop in a timed redraw (12 curves with their bands and legend
#: entries took the window's thread 150–250 ms at once on a loaded machine).
NEW_CURVES_PER_STEP = 3


class _Curve:
    """The items of one profile, built once and updated with ``setData``."""

    def __init__(self, plot: pg.PlotItem, legend: pg.LegendItem, label: str, index: int) -> None:
        colour = profile_colour(index)
        pen = pg.mkPen(colour, width=2, style=profile_dash(index))
        self.line = plot.plot(
            [], [], pen=pen, symbol=profile_symbol(index), symbolSize=8, symbolBrush=colour, symbolPen=colour
        )
        legend.addItem(self.line, label)
        self.low = pg.PlotDataItem([], [], pen=None)
        self.high = pg.PlotDataItem([], [], pen=None)
        band = pg.mkColor(colour)
        band.setAlpha(60)
        self.band = pg.FillBetweenItem(self.low, self.high, brush=band)
        plot.addItem(self.band)
        self.record: Record | None = None  # the record drawn: a result shown before keeps its record

    def set_data(self, ps: list[float], values: list[float], lows: list[float], highs: list[float]) -> None:
        self.line.setData(ps, values)
        self.low.setData(ps, lows)
        self.high.setData(ps, highs)


class UnicityPlot(PlotTab):
    title = "Unicity vs p"
    tab_title = "Unicity"
    measure_key = UNICITY

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.plot = self.graphics.addPlot(axisItems={"left": PercentAxis("left")})
        self.plot.setLabel("bottom", "points known to the attacker (p)")
        self.plot.setLabel("left", "unicity ε_p: people singled out (shaded: 95 % interval)")
        self.plot.setYRange(0, 1)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.getAxis("bottom").setTickSpacing(1, 1)
        self.legend = self.add_side_legend()
        self.curves: dict[str, _Curve] = {}

    def refresh(self) -> None:
        for label in [k for k in self.curves if k not in {profile_label(r) for r in self.records}]:
            curve = self.curves.pop(label)
            self.legend.removeItem(curve.line)
            for item in (curve.line, curve.band):
                self.plot.removeItem(item)
        built = 0
        for i, rec in enumerate(self.records):
            label = profile_label(rec)
            if label not in self.curves:
                if self.in_steps and built == NEW_CURVES_PER_STEP:
                    self.continue_later()  # the rest once the loop has turned
                    break
                self.curves[label] = _Curve(self.plot, self.legend, profile_title(rec), i)
                built += 1
            curve = self.curves[label]
            if curve.record is not rec:  # redrawing the 11 unchanged curves at each arrival took 20-40 ms
                curve.set_data(*self._points(rec))
                curve.record = rec
        all_p = p_values(self.records)
        if all_p:
            self.plot.setXRange(all_p[0] - 0.2, all_p[-1] + 0.2, padding=0)

    @staticmethod
    def _points(rec: Record) -> tuple[list[float], list[float], list[float], list[float]]:
        ps, values = series(rec, UNICITY)
        by = {float(e["p"]): e for e in rec.get("by_p") or [] if e.get("p") is not None}
        lows, highs = [], []
        for p, v in zip(ps, values, strict=True):
            ci = by[p].get("unicity_ci") or [v, v]
            lows.append(float(ci[0]))
            highs.append(float(ci[1]))
        return ps, values, lows, highs

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        rows = []
        for rec in self.records:
            for p, v, lo, hi in zip(*self._points(rec), strict=True):
                rows.append([profile_label(rec), int(p), v, lo, hi])
        return ["profile", "p", UNICITY, "ci_low", "ci_high"], rows
