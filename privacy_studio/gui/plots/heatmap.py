"""Heat-map of unicity ε_p over the grid (spatial levels x time widths) for a chosen p, values in cells."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyqtgraph as pg

from privacy_studio.core.generalize import finest_first
from privacy_studio.core.naming import price_short, readable, spatial_short, temporal_short
from privacy_studio.core.numbers import share
from privacy_studio.core.risk.catalogue import RISK_FIELDS, UNICITY
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria, check_profiles
from privacy_studio.core.tradeoff.grid import ALL_POINTS_ABOVE, grid_table
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.results import by_p, profile_label

#: Text of a cell without a result for the chosen p ("…" read as "still computing").
NOT_RUN = "not run"


def _field_label(key: Any) -> str:
    """A risk field in words ("unicity ε_p") rather than its JSON key; the key if the catalogue lacks it."""
    field = RISK_FIELDS.get(str(key))
    return field.label if field is not None else str(key)


@dataclass
class _Panel:
    """One small heat-map: the places x times grid at one price choice."""

    price: str
    plot: Any
    image: Any
    texts: list = field(default_factory=list)


class UnicityHeatmap(PlotTab):
    title = "Unicity heat-map"
    tab_title = "Heat-map"
    measure_key = UNICITY

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.p_box = self.add_p_chooser()
        self.panels: list[_Panel] = []
        self.colorbar = None
        self.spatial: list[str] = []
        self.temporal: list[str] = []
        self.criteria: dict[str, Any] = {}
        self._build_panels(["none"])

    @property
    def plot(self) -> Any:
        """The first (or only) heat-map's plot."""
        return self.panels[0].plot

    @property
    def image(self) -> Any:
        return self.panels[0].image

    @property
    def texts(self) -> list[pg.TextItem]:
        """Every cell's text, heat-map after heat-map (price choices in the grid's order)."""
        return [text for panel in self.panels for text in panel.texts]

    def _build_panels(self, prices: list[str]) -> None:
        """One small heat-map per price choice, side by side, sharing one colour bar."""
        for panel in self.panels:
            self.graphics.removeItem(panel.plot)
        if self.colorbar is not None:
            self.graphics.removeItem(self.colorbar)
        self.panels = []
        for k, price in enumerate(prices):
            plot = self.graphics.addPlot(row=0, col=k)
            plot.setLabel("bottom", "time width")
            if k == 0:
                plot.setLabel("left", "spatial level")
                plot.getAxis("left").setWidth(100)
            if len(prices) > 1:
                plot.setTitle(readable(price_short, price), size="9pt")
            plot.invertY(True)
            plot.setMouseEnabled(x=False, y=False)
            image = pg.ImageItem(axisOrder="row-major")
            image.setColorMap(pg.colormap.get("viridis"))
            plot.addItem(image)
            self.panels.append(_Panel(price, plot, image))
        self.colorbar = pg.ColorBarItem(
            colorMap="viridis", values=(0, 1), interactive=False, label="unicity ε_p"
        )
        self.colorbar.setImageItem([panel.image for panel in self.panels])
        self.graphics.addItem(self.colorbar, row=0, col=len(prices))

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
        measure, p = self.criteria.get("risk_measure") or UNICITY, self.criteria.get("risk_p")
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

    def prices(self) -> list[str]:
        """The price choices of the results in grid order (``none`` alone without results)."""
        return list(dict.fromkeys(_price(rec) for rec in self.records)) or ["none"]

    def matrix(self, price: str = "none") -> tuple[list[str], list[str], np.ndarray]:
        """Rows = spatial levels, columns = time widths, NaN where no result (yet) for the chosen p, at one
        price choice."""
        spatial, temporal = self._axes()
        values = np.full((len(spatial), len(temporal)), np.nan)
        p = self.p_box.value()
        for rec in self.records:
            entry = by_p(rec, p)
            if _price(rec) == price and entry is not None and entry.get(UNICITY) is not None:
                values[spatial.index(rec["spatial"]), temporal.index(rec["temporal"])] = entry[UNICITY]
        return spatial, temporal, values

    def left_out_notes(self) -> dict[tuple[str, str, str], str]:
        """Cells whose profile leaves out more than 10 % of the file at the chosen p: the share left out and
        the unicity with those people judged on all their points."""
        out = {}
        p = self.p_box.value()
        for rec in self.records:
            entry = by_p(rec, p) or {}
            excluded, n = entry.get("n_excluded_in_file"), rec.get("n_users")
            if excluded is None or not n or excluded / n <= ALL_POINTS_ABOVE:
                continue
            conservative = entry.get("unicity_all_points")
            judged = "" if conservative is None else f"\nall points: {share(conservative)}"
            out[(rec["spatial"], rec["temporal"], _price(rec))] = f"\n{share(excluded / n)} left out{judged}"
        return out

    def refresh(self) -> None:
        prices = self.prices()
        if [panel.price for panel in self.panels] != prices:
            self._build_panels(prices)
        verdicts = self.verdicts()
        left_out = self.left_out_notes()
        for panel in self.panels:
            self._fill(panel, verdicts, left_out)
        if verdicts:
            ceiling = float(self.criteria.get("ceiling") or 0.05)
            self.note.setText(
                "✓ / ✗: the release criteria of the Decide step "
                f"({_field_label(self.criteria.get('risk_measure'))} at p = {self.criteria.get('risk_p')}, "
                "upper end of "
                f"its 95 % interval where it has one, at most {ceiling:.1%}; unique whole traces and the "
                "worst-case share at risk 1 at most their limits, the ceiling unless changed there), "
                "whatever p the colours show."
            )
        if left_out:
            self.note.setText(
                (self.note.text() + " " if verdicts else "")
                + "“left out”: people of the file with fewer than p points; “all points”: unicity with them "
                "judged on all their points (short traces: all-points)."
            )

    def _fill(
        self, panel: _Panel, verdicts: dict[str, bool], left_out: dict[tuple[str, str, str], str]
    ) -> None:
        """Draw one price choice's values, texts, verdicts and the share its profiles leave out."""
        spatial, temporal, values = self.matrix(panel.price)
        if len(panel.texts) != values.size:
            self._rebuild_texts(panel, values.shape)
        if not values.size:
            panel.image.clear()
            return
        panel.image.setImage(values, levels=(0, 1), autoLevels=False)
        panel.plot.getAxis("bottom").setTicks(
            [[(j + 0.5, readable(temporal_short, t)) for j, t in enumerate(temporal)]]
        )
        panel.plot.getAxis("left").setTicks(
            [
                [
                    (i + 0.5, readable(spatial_short, s) if panel is self.panels[0] else "")
                    for i, s in enumerate(spatial)
                ]
            ]
        )
        labels = {
            (r["spatial"], r["temporal"]): profile_label(r) for r in self.records if _price(r) == panel.price
        }
        for (i, j), text, v in zip(np.ndindex(values.shape), panel.texts, values.ravel(), strict=True):
            verdict = verdicts.get(labels.get((spatial[i], temporal[j]), ""))
            mark = "" if verdict is None else ("\n✓ meets criteria" if verdict else "\n✗ fails criteria")
            extra = left_out.get((spatial[i], temporal[j], panel.price), "")
            text.setText(NOT_RUN if math.isnan(v) else f"{share(v)}{extra}{mark}")
            text.setColor("w" if not math.isnan(v) and v < 0.6 else "k")
        panel.plot.setRange(xRange=(0, len(temporal)), yRange=(0, len(spatial)), padding=0.02)

    @staticmethod
    def _rebuild_texts(panel: _Panel, shape: tuple[int, int]) -> None:
        """One text item per cell, made again only when the grid's shape changes."""
        for text in panel.texts:
            panel.plot.removeItem(text)
        panel.texts = []
        for i, j in np.ndindex(shape):
            text = pg.TextItem("", anchor=(0.5, 0.5))
            text.setPos(j + 0.5, i + 0.5)
            panel.plot.addItem(text)
            panel.texts.append(text)

    def data_table(self) -> tuple[list[str], list[list[Any]]]:
        rows = []
        for price in self.prices():
            spatial, temporal, values = self.matrix(price)
            rows += [
                [s, t, price, self.p_box.value(), values[i, j]]
                for i, s in enumerate(spatial)
                for j, t in enumerate(temporal)
                if not math.isnan(values[i, j])
            ]
        return ["spatial", "temporal", "price", "p", UNICITY], rows


def _price(rec: dict) -> str:
    """A result's price choice (``none`` for results of grids without a price axis)."""
    return str(rec.get("price") or "none")
