"""Distribution of per-user EM-disclosure for one profile: how unequal the risk is across people."""

from __future__ import annotations

from typing import Any

import numpy as np

from privacy_studio.core.numbers import number
from privacy_studio.gui.plots.base import PlainAxis, PlotTab

BINS = 30
#: The bars span up to this quantile of the people's values; the last bar also holds everyone above it, so
#: a few extreme people do not squeeze everybody else into the first bar.
TOP_QUANTILE = 0.99


class UserEmHistogram(PlotTab):
    title = "Per-user EM distribution"
    tab_title = "EM per person"
    measure_key = "em_disclosure"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.combo = self.add_profile_chooser()
        self.plot = self.graphics.addPlot(axisItems={"bottom": PlainAxis("bottom")})
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
        """Counts and bin edges over [0, the 99th percentile]; values above count in the last bin."""
        em = self.user_em()
        em = em[np.isfinite(em)]
        if not em.size:
            return np.zeros(0), np.array([0.0, 1.0])
        top = max(float(np.quantile(em, TOP_QUANTILE)), 1e-12)
        return np.histogram(np.minimum(em, top), bins=BINS, range=(0.0, top))

    def above_top(self) -> int:
        """People whose value is beyond the plotted range (counted in the last bar)."""
        em = self.user_em()
        em = em[np.isfinite(em)]
        return int(np.sum(em > np.quantile(em, TOP_QUANTILE))) if em.size else 0

    def refresh(self) -> None:
        counts, edges = self.histogram()
        self.curve.setData(edges, counts)
        rec = self.combo.chosen(self.records)
        p = (rec or {}).get("reference_p")
        above = self.above_top()
        self.note.setText(
            f"{counts.sum():.0f} people"
            + (f", attacker knows p = {p} points" if p else "")
            + (f"; the last bar also holds the {above} people above {number(edges[-1])}" if above else "")
        )

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        counts, edges = self.histogram()
        rows = [[edges[i], edges[i + 1], int(c)] for i, c in enumerate(counts)]
        return ["em_from", "em_to", "people"], rows
