"""Attacks page: precision-recall of the matching attack, accuracy against population of the profiling attack,
record-linkage table and transparency result. It only shows results; workers run the attacks.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget

BLUE, ORANGE, GREEN, GREY = "#0072B2", "#E69F00", "#009E73", "#555555"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def _points(rows: list[dict], x: str, y: str) -> tuple[list[float], list[float]]:
    kept = [(r[x], r[y]) for r in rows if r.get(y) is not None]
    return [a for a, _ in kept], [b for _, b in kept]


class AttacksPanel(QWidget):
    """Four tabs filled by :meth:`set_results` from the attacks' JSON-ready dictionaries."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget()
        self.matching_plot = self._plot("ε (standard deviations)", "share")
        self.matching_note = QLabel("Run a matching attack to see precision and recall against ε.")
        self.profiling_plot = self._plot("population (people)", "accuracy")
        self.profiling_plot.setLogMode(x=True, y=False)
        self.profiling_note = QLabel("Run a profiling attack to see accuracy against population size.")
        self.linkage_table = QTableWidget(0, 2)
        self.linkage_table.setHorizontalHeaderLabels(["distance", "correct re-identifications"])
        self.linkage_note = QLabel("Run record linkage on an original and a masked file.")
        self.transparency_note = QLabel("Run the transparency attack on a rank-swapped file.")
        for title, widgets in (
            ("Matching", (self.matching_plot, self.matching_note)),
            ("Profiling", (self.profiling_plot, self.profiling_note)),
            ("Record linkage", (self.linkage_table, self.linkage_note)),
            ("Transparency", (self.transparency_note,)),
        ):
            page = QWidget()
            layout = QVBoxLayout(page)
            for w in widgets:
                if isinstance(w, QLabel):
                    w.setWordWrap(True)
                layout.addWidget(w, 1 if not isinstance(w, QLabel) else 0)
            layout.addStretch(0)
            self.tabs.addTab(page, title)
        QVBoxLayout(self).addWidget(self.tabs)
        self.results: dict[str, Any] = {}

    @staticmethod
    def _plot(x_label: str, y_label: str) -> pg.PlotWidget:
        plot = pg.PlotWidget(background="w")
        plot.setLabel("bottom", x_label)
        plot.setLabel("left", y_label)
        plot.setYRange(0, 1.05)
        plot.addLegend(offset=(-10, 10))
        plot.showGrid(x=True, y=True, alpha=0.2)
        return plot

    def set_results(self, results: dict[str, Any]) -> None:
        """Show any of ``matching``, ``profiling``, ``linkage``, ``transparency``; others stay as they are."""
        self.results.update(results)
        if "matching" in results:
            self._show_matching(results["matching"])
        if "profiling" in results:
            self._show_profiling(results["profiling"])
        if "linkage" in results:
            self._show_linkage(results["linkage"])
        if "transparency" in results:
            self._show_transparency(results["transparency"])

    def _show_matching(self, r: dict) -> None:
        self.matching_plot.clear()
        for key, colour in (("precision", BLUE), ("recall", ORANGE)):
            xs, ys = _points(r["curve"], "epsilon", key)
            self.matching_plot.plot(xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=5, name=key)
        first = r["curve"][0] if r["curve"] else {}
        self.matching_note.setText(
            f"{r['profile']}: {r['n_identified']:,} identified vs {r['n_anonymous']:,} anonymous people, "
            f"{r['n_true_pairs']:,} true pairs. Without filter {r['assigned_correct']:,} of "
            f"{r['assigned']:,} assignments are right; at ε = {first.get('epsilon', 0)} precision "
            f"{_pct(first.get('precision'))}, recall {_pct(first.get('recall'))}."
        )

    def _show_profiling(self, r: dict) -> None:
        self.profiling_plot.clear()
        keys = ["accuracy"] + [k for k in (r["curve"][0] if r["curve"] else {}) if k.startswith("top_")]
        for key, colour in zip(keys, (BLUE, ORANGE, GREEN, GREY), strict=False):
            xs, ys = _points(r["curve"], "population", key)
            self.profiling_plot.plot(
                xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=5, name=key
            )
        last = r["curve"][-1] if r["curve"] else {}
        self.profiling_note.setText(
            f"Distance {r['distance']} on {r['spatial']}{' x hour of week' if r['hour_of_week'] else ''}: "
            f"accuracy {_pct(last.get('accuracy'))} over the whole population of "
            f"{last.get('population', 0):,}."
        )

    def _show_linkage(self, r: dict) -> None:
        rows = list(r["distances"].items())
        self.linkage_table.setRowCount(len(rows))
        for i, (name, row) in enumerate(rows):
            self.linkage_table.setItem(i, 0, QTableWidgetItem(name))
            self.linkage_table.setItem(i, 1, QTableWidgetItem(f"{row['percent_correct']:.2f} %"))
        loss = r.get("information_loss", {})
        extra = ""
        if "learned" in r:
            w = ", ".join(f"{v:.2f}" for v in r["learned"]["weights"])
            extra = f" Learned weights: {w}{' (relaxed program)' if r['learned']['relaxed'] else ''}."
        self.linkage_note.setText(
            f"{r['n_records']:,} records x {r['n_attributes']} attributes. Information loss score "
            f"{loss.get('score', float('nan')):.4g}.{extra}"
        )

    def _show_transparency(self, r: dict) -> None:
        self.transparency_note.setText(
            f"Window {r['window_ranks']} ranks over {r['n_records']:,} records: "
            f"{_pct(r['pinned_share'])} pinned to a single masked record, "
            f"{r['mean_candidates']:.2f} candidates on average, "
            f"{r['linkage_percent_correct']:.1f} % re-identified by linkage inside the candidate sets."
        )

    def summary_lines(self) -> list[str]:
        """One plain sentence per attack shown, for the project report."""
        labels = (self.matching_note, self.profiling_note, self.linkage_note, self.transparency_note)
        keys = ("matching", "profiling", "linkage", "transparency")
        return [label.text() for key, label in zip(keys, labels, strict=True) if key in self.results]
