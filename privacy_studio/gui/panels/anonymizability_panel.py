"""Anonymizability page: settings, then CDFs of Δ_a^k for several k and aggregation levels, the
temporal/spatial ratio, Gini and tail indices, and one user's sample distances split into space and time.

The panel starts no thread: :meth:`job` gives the core generator for ``gui.workers.Worker`` and :meth:`start`
hands it to the window's task runner. Each finished level arrives via :meth:`add_result`;
:meth:`state` / :meth:`restore` keep the results in a project.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.events import EventTable
from privacy_studio.core.measures.anonymizability import (
    AggregationLevel,
    AnonymizabilityResult,
    DistanceParams,
    Fingerprints,
    aggregation_study,
    cdf,
    sample_distances,
)
from privacy_studio.core.project import jsonable
from privacy_studio.gui.plots.base import CompactGraphics
from privacy_studio.gui.workers import TaskRunner, Worker

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
DEFAULT_LEVELS = "1km/20min,5km/2h,20km/8h"
#: What the empty "One user" tab says.
CHOOSE_USER = "Run the analysis, then choose a person in the User list above to draw their distances"


def _cdf_plot(layout: pg.GraphicsLayoutWidget, x_label: str) -> pg.PlotItem:
    plot = layout.addPlot()
    plot.setLabel("bottom", x_label)
    plot.setLabel("left", "fraction of users")
    plot.setYRange(0, 1)
    plot.addLegend(offset=(-10, 10))
    plot.showGrid(x=True, y=True, alpha=0.2)
    return plot


def _draw(plot: pg.PlotItem, curves: list[tuple[str, np.ndarray]]) -> None:
    """Show one empirical CDF per (label, values); a curve whose users all share one value is a bare step,
    so the title says it in words (e.g. every tail weight is 0). Lines with the same labels as before are
    updated in place: rebuilding five plots and their legends per result paused the window (~0.1 s each)."""
    lines = [(label, *cdf(values)) for label, values in curves]
    lines = [(label, x, y) for label, x, y in lines if len(x)]
    items = plot.listDataItems()
    if [item.name() for item in items] != [label for label, _x, _y in lines]:
        plot.clear()
        items = [
            plot.plot(pen=pg.mkPen(PALETTE[i % len(PALETTE)], width=2), name=label)
            for i, (label, _x, _y) in enumerate(lines)
        ]
    same = []
    for item, (label, x, y) in zip(items, lines, strict=True):
        item.setData(x, y)
        if x[0] == x[-1]:
            same.append(f"{label}: all {len(x):,} users at {x[0]:.3g}")
    plot.setTitle(("One value for everyone — " + "; ".join(same)) if same else None)


def _with_records(
    job: Callable[..., Iterator[AnonymizabilityResult]], control: Any = None
) -> Iterator[tuple[AnonymizabilityResult, dict]]:
    """The study's levels, each with its JSON record for the project, both made in the worker."""
    for result in job(control=control):
        yield result, jsonable(result.to_dict())


class AnonymizabilityPanel(QWidget):
    """Run settings plus five result tabs; results are :class:`AnonymizabilityResult`, raw level first."""

    resultsChanged = Signal()  # after any new result, so the window can mark the project modified

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.events: EventTable | None = None
        self.results: list[AnonymizabilityResult] = []
        self._records: list[dict] = []  # the results as the project file keeps them
        self._fingerprints: tuple[EventTable, Fingerprints] | None = None  # of these events
        self._worker: Any = None
        self.user_parts: dict[str, np.ndarray] = {}  # the last user shown: distances split into parts

        self.run_button = QPushButton("Run")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.status = QLabel("Load a dataset with coordinates, then run.")
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        for w in (self.run_button, self.cancel_button, self.progress):
            buttons.addWidget(w)
        layout = QVBoxLayout(self)
        layout.addLayout(self._settings_row())
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        layout.addLayout(self._pick_row())
        layout.addWidget(self._result_tabs(), 1)

    def _settings_row(self) -> QHBoxLayout:
        """Who is studied (k, target users, seed) beside how (weights, saturation, levels), so the plots
        keep the height."""
        self.k_edit = QLineEdit("2,5,10")
        self.targets = QSpinBox()
        self.targets.setRange(0, 10_000_000)
        self.targets.setSpecialValueText("all users")
        self.targets.setValue(1000)
        self.targets.setToolTip(
            "People whose anonymizability is computed (all of them if the data has fewer)."
        )
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.ws, self.wt = self._spin(0.5, 0, 1, 0.05), self._spin(0.5, 0, 1, 0.05)
        self.smax, self.tmax = self._spin(20.0, 0.01, 10_000, 1), self._spin(8.0, 0.01, 10_000, 0.5)
        self.levels = QLineEdit(DEFAULT_LEVELS)
        self.levels.setToolTip("coarser space/time to compare with, e.g. 1km/20min,5km/2h,20km/8h")
        who, how = QFormLayout(), QFormLayout()
        who.addRow("k values", self.k_edit)
        who.addRow("target users", self.targets)
        who.addRow("seed", self.seed)
        how.addRow("weights space / time", self._pair(self.ws, self.wt))
        how.addRow("saturation km / hours", self._pair(self.smax, self.tmax))
        how.addRow("aggregation levels", self.levels)
        row = QHBoxLayout()
        row.addLayout(who, 2)
        row.addLayout(how, 3)
        return row

    def _pick_row(self) -> QHBoxLayout:
        """The k shown and the user whose distances are drawn."""
        self.k_choice = QComboBox()
        self.k_choice.currentIndexChanged.connect(self.refresh)
        self.user_choice = QComboBox()
        self.user_choice.setEditable(True)
        self.user_choice.activated.connect(self.show_user)
        picks = QHBoxLayout()
        picks.addWidget(QLabel("k shown:"))
        picks.addWidget(self.k_choice)
        picks.addWidget(QLabel("user:"))
        picks.addWidget(self.user_choice, 1)
        return picks

    def _result_tabs(self) -> QTabWidget:
        """The five result tabs: Δ by k, aggregation, time against space, dispersion and one user."""
        self.tabs = QTabWidget()
        self.plot_k = self._tab("Δ by k", "Δ_a^k (0 = already k-anonymous)")
        self.plot_levels = self._tab("Aggregation", "Δ_a^k on generalized data")
        self.plot_ratio = self._tab("Time vs space", "Σ temporal parts / Σ spatial parts")
        self.plot_ratio.setLogMode(x=True)
        dispersion = CompactGraphics()
        dispersion.setBackground("w")
        self.plot_gini = _cdf_plot(dispersion, "Gini coefficient")
        self.plot_tail = _cdf_plot(dispersion, "tail weight index")
        self.tabs.addTab(dispersion, "Gini and tail")
        self.plot_user = self._tab("One user", "sample distance to the k-1 nearest users")
        self.plot_user.setLabel("left", "fraction of matched samples")
        self.plot_user.setTitle(CHOOSE_USER)
        return self.tabs

    # -- construction helpers ----------------------------------------------------------------------
    @staticmethod
    def _spin(value: float, low: float, high: float, step: float) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(low, high)
        spin.setSingleStep(step)
        spin.setDecimals(2)
        spin.setValue(value)
        return spin

    @staticmethod
    def _pair(a: QWidget, b: QWidget) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(a)
        row.addWidget(b)
        return box

    def _tab(self, title: str, x_label: str) -> pg.PlotItem:
        view = CompactGraphics()
        view.setBackground("w")
        self.tabs.addTab(view, title)
        return _cdf_plot(view, x_label)

    # -- running -----------------------------------------------------------------------------------
    def set_events(self, events: EventTable | None) -> None:
        """The data the next run uses (previous results stay until a new run)."""
        self.events = events
        self._fingerprints = None
        self.status.setText("Ready to run." if events is not None else "Load a dataset first.")

    def settings(self) -> dict[str, Any]:
        """The run parameters from the form; ValueError with a readable text when one is wrong."""
        try:
            ks = [int(v) for v in self.k_edit.text().split(",") if v.strip()]
        except ValueError:
            raise ValueError("k values must be whole numbers separated by commas, e.g. 2,5,10") from None
        text = self.levels.text().strip()
        return {
            "ks": ks,
            "targets": self._targets(),
            "seed": self.seed.value(),
            "params": DistanceParams(self.ws.value(), self.wt.value(), self.smax.value(), self.tmax.value()),
            "levels": [AggregationLevel(0.0, 0.0)]
            + ([AggregationLevel.parse(v) for v in text.split(",")] if text else []),
        }

    def _targets(self) -> int | None:
        """People analysed: the box's number capped at the dataset's people (``None``: everyone)."""
        wanted = self.targets.value() or None
        if wanted is None or self.events is None or wanted < self.events.n_users:
            return wanted
        return None

    def job(self) -> Callable[..., Iterator[AnonymizabilityResult]]:
        """The computation for a worker: call it with ``control=``; yields the raw level, then each level."""
        if self.events is None:
            raise ValueError("load a dataset before running the anonymizability analysis")
        s = self.settings()
        return functools.partial(
            aggregation_study,
            self.events,
            s["levels"],
            s["ks"],
            targets=s["targets"],
            seed=s["seed"],
            params=s["params"],
        )

    def start(self) -> Any:
        """Run in the window's task runner (a new run replaces a running one); return the worker."""
        try:
            job = self.job()
        except ValueError as exc:
            self.status.setText(str(exc))
            return None
        self.results, self._records = [], []
        worker = Worker(_with_records, job, name="anonymizability")
        worker.signals.progress.connect(self.set_progress)
        worker.signals.partial.connect(self._add_converted)
        worker.signals.failed.connect(lambda message, _trace: self._finish(f"Failed: {message}"))
        worker.signals.cancelled.connect(lambda _items: self._finish("Cancelled; finished levels are kept."))
        worker.signals.finished.connect(lambda _items: self._finish("Done."))
        self._worker = worker
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        return self.runner.start(worker, kind="anonymizability")

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def set_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(1000 * fraction))
        self.status.setText(message)

    def _finish(self, message: str) -> None:
        self._worker = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.status.setText(message)

    # -- results -----------------------------------------------------------------------------------
    def add_result(self, result: AnonymizabilityResult) -> None:
        """One more level (the first is the raw data)."""
        self._add_converted((result, jsonable(result.to_dict())))

    def _add_converted(self, converted: tuple[AnonymizabilityResult, dict]) -> None:
        """One more level with its project-file record, converted in the worker: turning every level into
        JSON again on each result held the GUI thread 0.3-0.6 s (issue #27)."""
        result, record = converted
        self.results.append(result)
        self._records.append(record)
        self._update_choices()
        self.refresh()
        self.resultsChanged.emit()

    def set_results(self, results: list[AnonymizabilityResult] | AnonymizabilityResult) -> None:
        """Show these results (raw level first), replacing what was shown."""
        self._show([results] if isinstance(results, AnonymizabilityResult) else list(results))
        self.resultsChanged.emit()

    def _show(self, results: list[AnonymizabilityResult], records: list[dict] | None = None) -> None:
        self.results = results
        self._records = records if records is not None else [jsonable(r.to_dict()) for r in results]
        self._update_choices()
        self.refresh()

    def state(self) -> list[dict]:
        """JSON-ready results for the project file (the records kept beside the results)."""
        return list(self._records)

    def restore(self, state: list[dict]) -> None:
        """Show a project's saved results; restoring is not a change, so ``resultsChanged`` stays quiet."""
        self._show([AnonymizabilityResult.from_dict(d) for d in state], list(state))

    def _update_choices(self) -> None:
        if not self.results:
            return
        raw = self.results[0]
        if [self.k_choice.itemText(i) for i in range(self.k_choice.count())] != [str(k) for k in raw.ks]:
            self.k_choice.blockSignals(True)
            self.k_choice.clear()
            self.k_choice.addItems([str(k) for k in raw.ks])
            self.k_choice.blockSignals(False)
        if self.user_choice.count() != len(raw.user_ids):
            self.user_choice.clear()
            self.user_choice.addItems([str(u) for u in raw.user_ids])

    def chosen_k(self) -> int | None:
        text = self.k_choice.currentText()
        return int(text) if text else None

    def refresh(self) -> None:
        """Redraw every tab from ``self.results``."""
        k = self.chosen_k()
        if not self.results or k is None:
            for plot in (self.plot_k, self.plot_levels, self.plot_ratio, self.plot_gini, self.plot_tail):
                plot.clear()
            return
        raw = self.results[0]
        row = raw.row(k)
        _draw(self.plot_k, [(f"k = {kk}", raw.delta[i]) for i, kk in enumerate(raw.ks)])
        _draw(self.plot_levels, [(r.level, r.delta[r.row(k)]) for r in self.results if k in r.ks])
        ratio = raw.ratio[row]
        _draw(self.plot_ratio, [(f"k = {k}", ratio[(ratio > 0) & np.isfinite(ratio)])])
        _draw(self.plot_gini, [("spatial", raw.spatial_gini[row]), ("temporal", raw.temporal_gini[row])])
        _draw(self.plot_tail, [("spatial", raw.spatial_tail[row]), ("temporal", raw.temporal_tail[row])])
        undefined = int(np.sum(~np.isfinite(raw.temporal_tail[row])))
        self.status.setText(
            f"{len(raw.users)} users (of {raw.n_candidates}); median Δ for k={k}: "
            f"{np.median(raw.delta[row]):.3f}; {np.mean(raw.delta[row] == 0):.1%} already {k}-anonymous"
            + (f"; temporal tail index undefined for {undefined}" if undefined else "")
        )

    def show_user(self, index: int | None = None) -> Worker | None:
        """Plot the chosen user's matched sample distances to the k-1 nearest users, whole and split; the
        fingerprints and distances are computed in a worker (they held the GUI thread for 0.1 s and more)."""
        k = self.chosen_k()
        index = self.user_choice.currentIndex() if index is None else index
        if not self.results or k is None or index < 0 or self.events is None:
            self.status.setText("Run the analysis on loaded data to inspect one user.")
            return None
        raw = self.results[0]
        name = self.user_choice.itemText(index)
        neighbours = raw.neighbours[index, : k - 1].tolist()
        worker = Worker(
            self._user_parts, self.events, int(raw.users[index]), neighbours, raw.params, name="one user"
        )
        worker.signals.finished.connect(lambda parts: self._show_user_parts(parts, name, k))
        worker.signals.failed.connect(lambda message, _trace: self.status.setText(f"Failed: {message}"))
        self.runner.start(worker, kind="anonymizability user")
        return worker

    def _user_parts(
        self,
        events: EventTable,
        user: int,
        neighbours: list[int],
        params: DistanceParams,
        control: Any = None,
    ) -> dict[str, np.ndarray]:
        """Worker side: the fingerprints (built once per dataset) and the user's split distances."""
        fingerprints = self._fingerprints
        if fingerprints is None or fingerprints[0] is not events:
            fingerprints = self._fingerprints = (events, Fingerprints.from_events(events))
        return sample_distances(fingerprints[1], user, neighbours, params)

    def _show_user_parts(self, parts: dict[str, np.ndarray], name: str, k: int) -> None:
        self.user_parts = parts
        _draw(self.plot_user, [(part, parts[part]) for part in ("total", "spatial", "temporal")])
        self.plot_user.setTitle(f"person {name}, k = {k}")
        self.tabs.setCurrentIndex(self.tabs.count() - 1)
