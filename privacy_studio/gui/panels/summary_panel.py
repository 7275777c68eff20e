"""Dataset summary: people, events, period, locations, the events-per-person distribution, import report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QFormLayout, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from privacy_studio.core.io.dataset import period_text
from privacy_studio.core.io.overview import DatasetOverview
from privacy_studio.gui.panels.place_map import PlaceMap
from privacy_studio.gui.plots.base import DecadeAxis

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset

BINS = 40
#: Said of data that exceed memory: the summary comes from the engine's counts.
OUT_OF_CORE = (
    "DuckDB, out of core: the data exceed the memory, so these figures are counts the engine computed "
    "(per person, per place, per hour) and the events are not held by the window"
)


#: The summary's quantile keys (``q50`` …) in words a newcomer reads without statistics.
QUANTILE_WORDS = {"q0": "min", "q50": "median", "q100": "max"}


def _key_text(key: str) -> str:
    """``q50`` -> ``median``, ``q90`` -> ``90 %`` (other keys unchanged)."""
    if key in QUANTILE_WORDS:
        return QUANTILE_WORDS[key]
    return f"{key[1:]} %" if key[:1] == "q" and key[1:].isdigit() else key


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{_key_text(str(k))}: {_text(v)}" for k, v in value.items()) or "—"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value) or "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


class SummaryPanel(QWidget):
    """Shows ``Dataset.summary()`` as a form and the events-per-person histogram."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = QFormLayout()
        self.empty = QLabel("No data yet: use File › Import data… (Ctrl+I).")
        self.plot = pg.PlotWidget(background="w", axisItems={"bottom": DecadeAxis("bottom")})
        self.plot.setLabel("bottom", "events per person (log scale)")
        self.plot.setLogMode(x=True, y=False)
        self.plot.setLabel("left", "people")
        self.plot.setFixedHeight(220)
        self.curve = self.plot.plot(
            [0, 1], [0], stepMode="center", fillLevel=0, brush="#009E7380", pen="#009E73"
        )
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setMaximumHeight(110)
        self.report.setPlaceholderText("import report")
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty)
        layout.addLayout(self.form)
        layout.addWidget(self.plot)
        self.places = PlaceMap()
        layout.addWidget(self.places)
        layout.addWidget(QLabel("Import report"))
        layout.addWidget(self.report)
        self.counts = np.zeros(0, dtype=np.int64)  # events a person has (each distinct number once)
        self.people = np.zeros(0, dtype=np.int64)  # people with that many

    def set_report(self, text: str) -> None:
        """Show the import report's text."""
        self.report.setPlainText(text)

    def set_dataset(self, dataset: Dataset | DatasetOverview | None, report_text: str = "") -> None:
        """Show a dataset's summary (or nothing for ``None``) and its import report; an overview (data that
        exceed memory, issue #30) shows the same from its aggregates, and its places on a map."""
        while self.form.rowCount():
            self.form.removeRow(0)
        self.empty.setVisible(dataset is None)
        self.set_report(report_text)
        self.places.show_overview(dataset if isinstance(dataset, DatasetOverview) else None)
        if dataset is None:
            self.counts = self.people = np.zeros(0, dtype=np.int64)
            self.curve.setData([0, 1], [0])
            return
        overview = dataset if isinstance(dataset, DatasetOverview) else None
        summary = dataset.summary()
        for key, value in summary.items():
            if key == "period_end":
                continue  # one "period" row, in the data's zone
            text = _text(value)
            if key == "period_start" and value is not None:
                key, text = "period", _period(dataset)
            if key == "locations" and not value and summary.get("has_coordinates"):
                text = "none named (each event has its own coordinates)"
            label = QLabel(text)
            label.setWordWrap(True)
            self.form.addRow(str(key).replace("_", " "), label)
        if overview is not None and overview.computed_by == "duckdb":
            self.form.addRow("read by", QLabel(OUT_OF_CORE))
        if overview is not None:
            self.counts, self.people = (np.asarray(a, dtype=np.int64) for a in overview.per_person)
        else:
            self.counts, self.people = np.unique(np.diff(dataset.events.user_offsets()), return_counts=True)
        if self.counts.size:
            edges = np.unique(np.round(np.geomspace(1, self.counts.max() + 1, BINS + 1)))
            self.curve.setData(edges, np.histogram(self.counts, edges, weights=self.people)[0])


def _period(data: Dataset | DatasetOverview) -> str:
    """The period in the data's own zone, from the events or from the overview."""
    if isinstance(data, DatasetOverview):
        return data.period_text()
    return period_text(*data.events.period(), data.events.tz)
