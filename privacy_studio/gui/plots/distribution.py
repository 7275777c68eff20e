"""Distribution of per-user EM-disclosure for one profile: how unequal the risk is across people."""

from __future__ import annotations

from typing import Any

import numpy as np

from privacy_studio.core.numbers import number
from privacy_studio.gui.plots.base import PlainAxis, PlotTab
from privacy_studio.gui.results import Record, by_p

BINS = 30
#: The bars span up to this quantile of the people's values; the last bar also holds everyone above it, so
#: a few extreme people do not squeeze everybody else into the first bar.
TOP_QUANTILE = 0.99


def covered_people(rec: Record | None, shown: int) -> str:
    """Whom the histogram covers when that is not everyone in the file: the people sampled at the reference
    p with at least p points on whom EM-disclosure was computed, and how many the sample, short traces and
    the EM subset left out."""
    n_users = int((rec or {}).get("n_users") or 0)
    if not n_users or shown >= n_users:
        return f"{shown:,} people (everyone in the file)" if n_users else f"{shown:,} people"
    entry = by_p(rec, rec.get("reference_p")) or {}
    sampled, short = int(entry.get("n_sampled") or 0), int(entry.get("n_excluded") or 0)
    why = f"{sampled:,} sampled" if sampled and sampled < n_users else "everyone evaluated"
    if short:
        why += f", {short:,} of them left out with fewer than p points"
    evaluated = (sampled or n_users) - short
    if shown < evaluated:  # EM-disclosure is computed for the first people sampled only (em_samples)
        why += f"; EM-disclosure computed for {shown:,} of the {evaluated:,} evaluated, the first sampled"
    return f"{shown:,} of the {n_users:,} people in the file ({why})"


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
            covered_people(rec, int(counts.sum()))
            + (f", attacker knows p = {p} points" if p else "")
            + (f"; the last bar also holds the {above} people above {number(edges[-1])}" if above else "")
        )

    def coverage(self) -> str:
        """The people the histogram covers (not the profile's whole file), for an export's header."""
        rec = self.combo.chosen(self.records)
        if rec is None:
            return super().coverage()
        p = rec.get("reference_p")
        counts, _edges = self.histogram()
        return covered_people(rec, int(counts.sum())) + (f"; attacker knows p = {p} points" if p else "")

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        counts, edges = self.histogram()
        rows = [[edges[i], edges[i + 1], int(c)] for i, c in enumerate(counts)]
        return ["em_from", "em_to", "people"], rows
