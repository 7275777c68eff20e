"""Map of EM-disclosure per location: every spatial unit drawn at its coordinates, coloured by its EM."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.gui.plots.base import PlotTab


class LocationEmMap(PlotTab):
    title = "EM per location map"
    tab_title = "Risk map"
    measure_key = "em_disclosure"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.combo = self.add_profile_chooser()
        self.plot = self.graphics.addPlot()
        self.plot.setAspectLocked(True)
        self.plot.setLabel("bottom", "east (km)")
        self.plot.setLabel("left", "north (km)")
        self.cmap = pg.colormap.get("plasma")
        self.scatter = pg.ScatterPlotItem(size=9, pen=None)
        self.plot.addItem(self.scatter)
        self.colorbar = pg.ColorBarItem(
            values=(0, 1), colorMap=self.cmap, interactive=False, label="EM-disclosure of the place"
        )
        self.graphics.addItem(self.colorbar)
        self._shown: dict | None = None

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
        self.combo.update_records(self.records)
        rec = self.combo.chosen(self.records)
        shown = (rec or {}).get("per_location")
        if shown is not None and shown is self._shown:
            return  # another profile arrived: the map of the chosen one is already drawn
        self._shown = shown
        ids, x, y, em = self.units()
        top = float(em.max()) if em.size and em.max() > 0 else 1.0
        self.colorbar.setLevels((0.0, top))
        brushes = [pg.mkBrush(c) for c in self.cmap.map(em / top, mode="qcolor")] if em.size else []
        self.scatter.setData(x=x, y=y, brush=brushes, data=ids)
        p = (rec or {}).get("reference_p")
        self.note.setText(
            f"{len(ids)} places with coordinates, coloured by their EM-disclosure (how far learning a "
            "person's known points moves the belief that they went there, averaged over people and summed "
            "over the place's time bins)"
            + (f" when the attacker knows p = {p} points" if p else "")
            + ' (the Grid tab\'s "Details at p")'
            if ids
            else "no place coordinates for this profile (import an antennas file to draw the map)"
        )

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        ids, x, y, em = self.units()
        return ["unit", "x_km", "y_km", "em"], [
            [i, a, b, e] for i, a, b, e in zip(ids, x, y, em, strict=True)
        ]
