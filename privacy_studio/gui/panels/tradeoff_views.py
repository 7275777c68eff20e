"""The trade-off panel's views of one analysis: the Pareto plot with the recommendation and the dominance
table, Kendall's tau between risk measures, and the power law of risk against coarseness."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer
from PySide6.QtWidgets import (
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.risk.catalogue import RISK_FIELDS, format_value
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
from privacy_studio.core.tradeoff.candidates import Candidate, SearchResult
from privacy_studio.core.utility import utility_title
from privacy_studio.gui.panels.tradeoff_widgets import (
    CEILING_PEN,
    DOMINATED_BRUSH,
    FRONT_PEN,
    POINT_BRUSH,
    RELEASE_BRUSH,
    data_table,
    fill_table,
    plot_widget,
    tab_page,
)
from privacy_studio.rendering.label_place import LabelPlacer


def dominance_row(a: TradeoffAnalysis, i: int) -> list[str]:
    """Profile ``i`` in the dominance table: its risk and utility, Pareto status, criteria and people."""
    label = a.labels[i]
    status = "missing" if label in a.pareto.missing else ("front" if label in a.pareto.front else "dominated")
    failed = ", ".join(c.name for c in a.checks[i] if not c.passed)
    return [
        label_words(label),
        format_value(a.measure, a.risk[i]),
        number(a.utility[i]),
        status,
        ", ".join(map(label_words, a.pareto.dominated_by.get(label, []))),
        "pass" if a.passed(label) else f"fail: {failed}",
        a.population[i].sentence(),
    ]


def plotted_candidates(result: SearchResult | None) -> list[Candidate]:
    """The candidates of a search that can be placed on the Pareto plot: measured, with a utility and a
    judged risk (unmeasured candidates have no risk of their own)."""
    if result is None:
        return []
    return [
        c
        for c in result.measured()
        if math.isfinite(c.utility)
        and c.checks
        and c.checks[0].value is not None
        and math.isfinite(c.checks[0].value)  # a NaN point would take every name's spot
    ]


def candidates_note(shown: list[Candidate], result: SearchResult) -> str:
    """What the triangles are, whom they cover and how many candidates are not drawn."""
    passing = sum(c.passes for c in shown)
    left = len(result.candidates) - len(shown)
    rec = result.recommended
    named = f" Recommended: {recommended_words(rec)}." if rec in shown else ""
    return (
        f"▲ {count(len(shown))} release candidates of the protection search (profile with suppression), "
        f"{count(passing)} passing: utility after suppression against the risk judged on their rows as "
        "written, or in the project's run for a profile without suppression (the upper end of the 95 % "
        "interval where sampled), each over the people it releases, not "
        f"the whole data. {count(left)} candidates were not measured and are not drawn (Candidates tab)."
        f"{named}"
    )


def recommended_words(rec: Candidate) -> str:
    """The recommended candidate with the share of people it releases, as the plot and its note name it."""
    return f"{rec.name()}: {share(rec.released_share)} of people released"


class AnalysisViews:
    """Mixin of ``TradeoffPanel``: builds and draws the Pareto, ordinal and power-law tabs from
    ``self.analysis``."""

    def _build_pareto(self) -> QWidget:
        self.pareto_plot = plot_widget("utility (reversed: more useful to the left)", "risk")
        self.pareto_plot.invertX(True)
        self.pareto_plot.setRange(xRange=(0, 10), yRange=(0, 1))  # utility 0-10, risk 0-1 until data
        self.points = pg.ScatterPlotItem(size=10, pen=pg.mkPen("w"))
        self.front_line = pg.PlotDataItem(pen=FRONT_PEN)
        self.ceiling_line = pg.InfiniteLine(self.ceiling.value() / 100.0, angle=0, pen=CEILING_PEN)
        self.chosen = pg.ScatterPlotItem(size=20, brush=None, pen=pg.mkPen("#D55E00", width=2))
        self.release_points = pg.ScatterPlotItem(size=12, symbol="t1", brush=RELEASE_BRUSH, pen=pg.mkPen("w"))
        items = (self.front_line, self.points, self.release_points, self.chosen, self.ceiling_line)
        for item in items:
            self.pareto_plot.addItem(item)
        self.pareto_plot.getViewBox().setDefaultPadding(0.1)
        self.point_labels: list[pg.TextItem] = []
        self.label_order: list[int] = []
        # names are placed in pixels: again once the view has moved or been resized (once per burst)
        self.label_timer = QTimer(self.pareto_plot, singleShot=True, interval=50)
        self.label_timer.timeout.connect(self._place_labels)
        self.pareto_plot.getViewBox().sigTransformChanged.connect(lambda _view: self.label_timer.start())
        self.release_label: pg.TextItem | None = None
        self.release_named: tuple[str, str, float, float] | None = None  # the search's recommendation
        self.release_xy: list[tuple[float, float]] = []  # the search's candidates drawn
        self.release_note = QLabel("")
        self.release_note.setWordWrap(True)
        self.recommendation = QLabel("No results yet.")
        self.recommendation.setWordWrap(True)
        self.recommendation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence = QLabel("")
        self.evidence.setWordWrap(True)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dominance = data_table(
            ["profile", "risk", "utility", "Pareto", "dominated by", "criteria", "people"]
        )
        return tab_page(
            (self.pareto_plot, 3), self.release_note, self.recommendation, self.evidence, (self.dominance, 2)
        )

    def _draw_release_candidates(self, result: SearchResult | None, current: bool) -> None:
        """The protection search's measured candidates as triangles: utility after suppression against the
        risk judged on their rows as written; the recommended one named with the share of people it keeps."""
        shown = plotted_candidates(result) if current else []
        self.release_points.setData(
            [c.utility for c in shown], [c.checks[0].value for c in shown], data=list(range(len(shown)))
        )
        self.release_xy = [(c.utility, c.checks[0].value) for c in shown]
        self.release_named = None
        rec = result.recommended if result is not None else None
        if rec in shown:
            short = f"recommended: {share(rec.released_share)} released"
            self.release_named = (recommended_words(rec), short, rec.utility, rec.checks[0].value)
        self.release_note.setText(candidates_note(shown, result) if shown else "")
        self._place_labels()

    def _build_ordinal(self) -> QWidget:
        self.tau_table = QTableWidget(0, 0)
        self.tau_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tau_message = QLabel("")
        self.tau_message.setWordWrap(True)
        title = QLabel("Kendall's tau between the profile rankings of each pair of risk measures")
        return tab_page(title, (self.tau_table, 1), self.tau_message)

    def _build_power_law(self) -> QWidget:
        self.power_plot = plot_widget("unit area × bin width (km²·h)", "risk")
        self.power_plot.setLogMode(x=True, y=True)
        self.power_points = pg.ScatterPlotItem(size=9, brush=POINT_BRUSH)
        self.power_line = pg.PlotDataItem(pen=FRONT_PEN)
        self.power_ceiling = pg.InfiniteLine(angle=0, pen=CEILING_PEN)
        for item in (self.power_points, self.power_line, self.power_ceiling):
            self.power_plot.addItem(item)
        self.power_text = QLabel("")
        self.power_text.setWordWrap(True)
        return tab_page((self.power_plot, 1), self.power_text)

    def _place_labels(self) -> None:
        """Name the search's recommended candidate, then the profiles of ``label_order``, beside their points
        where no name covers another, a point or the front (``rendering.label_place``, the report's rule);
        again whenever the view moves or is resized, since the free spots are in pixels. A name with no free
        spot is left out (the table below names the profiles; the recommended candidate, named in full in the
        note below the plot, falls back to a short name)."""
        for label in self.point_labels:
            self.pareto_plot.removeItem(label)
        self.point_labels, self.release_label = [], None
        a, view = self.analysis, self.pareto_plot.getViewBox()
        scene = lambda x, y: view.mapViewToScene(QPointF(x, y))  # noqa: E731
        known = np.flatnonzero(np.isfinite(a.risk) & np.isfinite(a.utility)) if a is not None else []
        at = {int(i): scene(a.utility[i], a.risk[i]) for i in known}
        points = [*at.values(), *(scene(u, r) for u, r in self.release_xy)]
        front = [at[i] for i in (a.labels.index(label) for label in a.pareto.front) if i in at] if a else []
        markers = [QRectF(p.x() - 6, p.y() - 6, 12, 12) for p in points]
        segments = [QLineF(p, q) for p, q in itertools.pairwise(front)]
        placer = LabelPlacer(view.sceneBoundingRect(), markers, segments)
        if self.release_named is not None:
            text, short, u, r = self.release_named
            self.release_label = self._name_point(placer, text, "#006B4F", u, r) or self._name_point(
                placer, short, "#006B4F", u, r
            )
        for i in self.label_order:
            self._name_point(placer, label_words(a.labels[i]), "#333333", a.utility[i], a.risk[i])

    def _name_point(
        self, placer: LabelPlacer, words: str, color: str, x: float, y: float
    ) -> pg.TextItem | None:
        """``words`` at the first free spot beside the point (x, y), or nothing when every spot is taken."""
        text = pg.TextItem(words, color=color)
        size, point = (
            text.textItem.boundingRect(),
            self.pareto_plot.getViewBox().mapViewToScene(QPointF(x, y)),
        )
        spot = placer.place(point.x(), point.y(), size.width(), size.height())
        if spot is None:
            return None
        # the anchor puts the name's top left corner on the spot, in pixels whatever the zoom
        text.setAnchor(((point.x() - spot.left()) / size.width(), (point.y() - spot.top()) / size.height()))
        text.setPos(x, y)
        self.pareto_plot.addItem(text, ignoreBounds=True)  # names do not widen the range they are placed in
        self.point_labels.append(text)
        return text

    def _draw_pareto(self) -> None:
        self.label_order: list[int] = []
        a = self.analysis
        if a is None:
            self.points.setData([], [])
            self.chosen.setData([], [])
            self.front_line.setData([], [])
            self.recommendation.setText("No results yet." if self.grid is None else "")
            self.evidence.setText("")
            fill_table(self.dominance, [])
            self.pareto_plot.setRange(xRange=(0, 10), yRange=(0, 1))
            self._place_labels()
            return
        known = np.isfinite(a.risk) & np.isfinite(a.utility)
        brushes = [POINT_BRUSH if label in a.pareto.front else DOMINATED_BRUSH for label in a.labels]
        idx = np.flatnonzero(known)
        self.points.setData(a.utility[idx], a.risk[idx], brush=[brushes[i] for i in idx], data=idx)
        front = [a.labels.index(label) for label in a.pareto.front]
        self.front_line.setData(a.utility[front], a.risk[front], stepMode=None)
        # Only the recommended profile and the front are named, most wanted first (the table below names
        # every point), placed in pixels as the report's figures are once the view has its range.
        chosen_first = [a.labels.index(a.recommendation.label)] if a.recommendation.label else []
        candidates = chosen_first + sorted(set(front) - set(chosen_first), key=lambda i: -a.utility[i])
        self.label_order = [i for i in candidates if known[i]]
        self._place_labels()
        self.ceiling_line.setPos(a.ceiling)
        self.pareto_plot.setLabel("left", a.risk_name)
        self.pareto_plot.setLabel(
            "bottom", f"{utility_title(a.utility_name)} (reversed: more useful to the left)"
        )
        rec = a.recommendation
        chosen = [a.labels.index(rec.label)] if rec.label else []
        self.chosen.setData(a.utility[chosen], a.risk[chosen])
        self.evidence.setText("\n".join(a.evidence_lines()))
        fill_table(self.dominance, [dominance_row(a, i) for i in range(len(a.labels))])

    def _draw_ordinal(self) -> None:
        table = self.analysis.ordinal if self.analysis else None
        names = (
            [] if table is None else [RISK_FIELDS[n].label if n in RISK_FIELDS else n for n in table.names]
        )
        self.tau_table.setRowCount(len(names))
        self.tau_table.setColumnCount(len(names))
        self.tau_table.setHorizontalHeaderLabels(names)
        self.tau_table.setVerticalHeaderLabels(names)
        for i in range(len(names)):
            for j in range(len(names)):
                self.tau_table.setItem(i, j, QTableWidgetItem(number(table.tau[i, j])))
        self.tau_message.setText("" if table is None else table.message())

    def _draw_power_law(self) -> None:
        a = self.analysis
        if a is None:
            return
        ok = np.isfinite(a.coarseness) & (a.coarseness > 0) & (a.risk > 0)
        self.power_plot.setLabel("left", a.risk_name)
        self.power_ceiling.setPos(math.log10(a.ceiling) if a.ceiling > 0 else -12)
        self.power_points.setData(np.log10(a.coarseness[ok]), np.log10(a.risk[ok]))
        if a.power_law is not None:  # drawn only over the measured range, clipped to [0, 1]
            xs = np.geomspace(*a.power_law.measured_range, 50)
            ys = np.clip(a.power_law.fit.predict(xs), 1e-12, 1.0)
            self.power_line.setData(np.log10(xs), np.log10(ys))
        else:
            self.power_line.setData([], [])
        rows = zip(self.grid.spatial, self.grid.price, a.coarseness, strict=True)
        missing = sorted({s for s, price, area in rows if price == "none" and not area > 0})
        extra = f" Unknown unit area for: {', '.join(missing)}." if missing else ""
        self.power_text.setText(a.power_law_text + extra)
