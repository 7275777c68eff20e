"""Heat-map of unicity ε_p over the grid (spatial levels x time widths) for a chosen p, values in cells."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.core.generalize import finest_first
from privacy_studio.core.naming import spatial_short, temporal_short
from privacy_studio.core.report.numbers import share
from privacy_studio.core.risk.catalogue import RISK_FIELDS
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria, check_profiles
from privacy_studio.core.tradeoff.grid import grid_table
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.results import by_p, profile_label


def _safe(name: Any, code: str) -> str:
    """A level's short name, or its code when it cannot be read."""
    try:
        return str(name(code))
    except ValueError:
        return code


#: Text of a cell without a result for the chosen p ("…" read as "still computing").
NOT_RUN = "not run"


def _field_label(key: Any) -> str:
    """A risk field in words ("unicity ε_p") rather than its JSON key; the key if the catalogue lacks it."""
    field = RISK_FIELDS.get(str(key))
    return field.label if field is not None else str(key)


class UnicityHeatmap(PlotTab):
    title = "Unicity heat-map"
    tab_title = "Heat-map"
    measure_key = "unicity"

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.p_box = self.add_p_chooser()
        self.plot = self.graphics.addPlot()
        self.plot.setLabel("bottom", "time width")
        self.plot.setLabel("left", "spatial level")
        self.plot.invertY(True)
        self.plot.getAxis("left").setWidth(100)
        self.plot.setMouseEnabled(x=False, y=False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(pg.colormap.get("viridis"))
        self.plot.addItem(self.image)
        self.colorbar = self.plot.addColorBar(
            self.image, colorMap="viridis", values=(0, 1), interactive=False, label="unicity ε_p"
        )
        self.texts: list[pg.TextItem] = []
        self.spatial: list[str] = []
        self.temporal: list[str] = []
        self.criteria: dict[str, Any] = {}

    def set_criteria(self, choices: dict[str, Any]) -> None:
        """The project's release criteria (its trade-off choices): each cell is then marked as meeting
        them or not, judged at the criteria's own measure and p."""
        if choices != self.criteria:
            self.criteria = dict(choices)
            self.set_records(self.records)

    def verdicts(self) -> dict[str, bool]:
        """Profile label -> whether it meets every release criterion (empty without criteria)."""
        if not self.criteria or not self.records:
            return {}
        measure, p = self.criteria.get("risk_measure") or "unicity", self.criteria.get("risk_p")
        try:
            grid = grid_table(self.records)
            checks = check_profiles(grid, ReleaseCriteria.from_choices(self.criteria), measure, p, measure)
        except (ValueError, KeyError):
            return {}
        return {label: all(c.passed for c in row) for label, row in zip(grid.labels, checks, strict=True)}

    def set_axes(self, spatial: list[str], temporal: list[str]) -> None:
        """The grid's levels from fine to coarse (time widths by length, squares by size; other places in the
        order the user listed them), shown from the next refresh on."""
        self.spatial, self.temporal = finest_first(list(spatial), list(temporal))

    def _axes(self) -> tuple[list[str], list[str]]:
        spatial, temporal = list(self.spatial), list(self.temporal)
        for rec in self.records:
            if rec["spatial"] not in spatial:
                spatial.append(rec["spatial"])
            if rec["temporal"] not in temporal:
                temporal.append(rec["temporal"])
        return finest_first(spatial, temporal)

    def matrix(self) -> tuple[list[str], list[str], np.ndarray]:
        """Rows = spatial levels, columns = time widths, NaN where no result (yet) for the chosen p."""
        spatial, temporal = self._axes()
        values = np.full((len(spatial), len(temporal)), np.nan)
        p = self.p_box.value()
        for rec in self.records:
            entry = by_p(rec, p)
            if entry is not None and entry.get("unicity") is not None:
                values[spatial.index(rec["spatial"]), temporal.index(rec["temporal"])] = entry["unicity"]
        return spatial, temporal, values

    def refresh(self) -> None:
        spatial, temporal, values = self.matrix()
        if len(self.texts) != values.size:
            self._rebuild_texts(values.shape)
        if not values.size:
            self.image.clear()
            return
        self.image.setImage(values, levels=(0, 1), autoLevels=False)
        self.plot.getAxis("bottom").setTicks(
            [[(j + 0.5, _safe(temporal_short, t)) for j, t in enumerate(temporal)]]
        )
        self.plot.getAxis("left").setTicks(
            [[(i + 0.5, _safe(spatial_short, s)) for i, s in enumerate(spatial)]]
        )
        verdicts = self.verdicts()
        labels = {(r["spatial"], r["temporal"]): profile_label(r) for r in self.records}
        for (i, j), text, v in zip(np.ndindex(values.shape), self.texts, values.ravel(), strict=True):
            verdict = verdicts.get(labels.get((spatial[i], temporal[j]), ""))
            mark = "" if verdict is None else ("\n✓ meets criteria" if verdict else "\n✗ fails criteria")
            text.setText(NOT_RUN if math.isnan(v) else f"{share(v)}{mark}")
            text.setColor("w" if not math.isnan(v) and v < 0.6 else "k")
        if verdicts:
            ceiling = float(self.criteria.get("ceiling") or 0.05)
            self.note.setText(
                "✓ / ✗: the release criteria of the Decide step "
                f"({_field_label(self.criteria.get('risk_measure'))} at p = {self.criteria.get('risk_p')}, "
                "upper end of "
                f"its 95 % interval where it has one, at most {ceiling:.1%}, and any other limit set there), "
                "whatever p the colours show."
            )
        self.plot.setRange(xRange=(0, len(temporal)), yRange=(0, len(spatial)), padding=0.02)

    def _rebuild_texts(self, shape: tuple[int, int]) -> None:
        """One text item per cell, made again only when the grid's shape changes."""
        for text in self.texts:
            self.plot.removeItem(text)
        self.texts = []
        for i, j in np.ndindex(shape):
            text = pg.TextItem("", anchor=(0.5, 0.5))
            text.setPos(j + 0.5, i + 0.5)
            self.plot.addItem(text)
            self.texts.append(text)

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        spatial, temporal, values = self.matrix()
        rows = [
            [s, t, self.p_box.value(), values[i, j]]
            for i, s in enumerate(spatial)
            for j, t in enumerate(temporal)
            if not math.isnan(values[i, j])
        ]
        return ["spatial", "temporal", "p", "unicity"], rows
