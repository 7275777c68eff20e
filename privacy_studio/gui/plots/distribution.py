"""Distribution of per-user EM-disclosure for one profile: how unequal the risk is across people."""

from __future__ import annotations

from typing import Any

import numpy as np

from privacy_studio.gui.plots.base import PlotTab

BINS = 30


class UserEmHistogram(PlotTab):
    title = "Per-user EM distribution"
    tab_title = "EM per person"
    measure_key = "em_disclosure"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.combo = self.add_profile_chooser()
        self.plot = self.graphics.addPlot()
        self.plot.setLabel("bottom", "EM-disclosure of a person")
        self.plot.setLabel("left", "people")
        self.curve = self.plot.plot(
            [0, 1], [0], stepMode="center", fillLevel=0, brush="#0072B280", pen="#0072B2"
        )

    def user_em(self) -> np.ndarray:
        rec = self.combo.chosen(self.records)
        per_user = (rec or {}).get("per_user") or {}
        return np.asarray(per_user.get("em") or [], dtype=float)

    def histogram(self) -> tuple[np.ndarray, np.ndarray]:
        em = self.user_em()
        em = em[np.isfinite(em)]
        if not em.size:
            return np.zeros(0), np.array([0.0, 1.0])
        return np.histogram(em, bins=BINS, range=(0.0, max(float(em.max()), 1e-12)))

    def refresh(self) -> None:
        counts, edges = self.histogram()
        self.curve.setData(edges, counts)
        rec = self.combo.chosen(self.records)
        p = (rec or {}).get("reference_p")
        self.note.setText(f"{counts.sum():.0f} people" + (f", attacker knows p = {p} points" if p else ""))

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        counts, edges = self.histogram()
        rows = [[edges[i], edges[i + 1], int(c)] for i, c in enumerate(counts)]
        return ["em_from", "em_to", "people"], rows
