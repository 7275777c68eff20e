"""k-disclosure, EM- and KL-disclosure per profile for a chosen p, as bars side by side."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.gui.plots.base import PlotTab, profile_colour
from privacy_studio.gui.results import Record, by_p, profile_label, profile_title

#: (record key, axis title, explanation key) of each panel, top to bottom.
MEASURES = (
    ("k_disclosure", "k-disclosure", "k_disclosure"),
    ("em", "EM-disclosure", "em"),
    ("kl", "KL-disclosure (nats)", "kl"),
)


def _span(values: list[int]) -> str:
    """One count, or the smallest to the largest."""
    low, high = min(values), max(values)
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def em_coverage(records: list[Record], p: int) -> str:
    """Whom EM- and KL-disclosure cover at ``p`` when fewer than the people evaluated (EM is computed for
    the first people sampled only), else nothing."""
    entries = [by_p(r, p) or {} for r in records]
    evaluated = [int(e.get("n_sampled") or 0) - int(e.get("n_excluded") or 0) for e in entries]
    em = [int(e.get("em_users") or 0) for e in entries]
    if not any(em) or all(m >= v for m, v in zip(em, evaluated, strict=True)):
        return ""
    return (
        f"EM- and KL-disclosure computed for {_span(em)} of the {_span(evaluated)} people evaluated per "
        f"profile (the first sampled); k-disclosure for all of them, attacker knows p = {p} points."
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
        if self.records:
            self.note.setText(em_coverage(self.records, self.p_box.value()))

    def coverage(self) -> str:
        """The base's coverage, then whom EM- and KL-disclosure cover when fewer, for an export's header."""
        extra = em_coverage(self.records, self.p_box.value()) if self.records else ""
        return super().coverage() + (f"; {extra}" if extra else "")

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        columns = [self.values(key) for key, _, _ in MEASURES]
        rows = [
            [profile_label(rec), self.p_box.value(), *(col[i] for col in columns)]
            for i, rec in enumerate(self.records)
        ]
        return ["profile", "p", *(key for key, _, _ in MEASURES)], rows
