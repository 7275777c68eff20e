"""Attacks page: pick two datasets or an original and a masked file, run an attack in the task runner, and
see the precision-recall curve, accuracy against population, the linkage table and the transparency result.

The panel starts no thread itself: runs go through the window's task runner (``gui.workers``). Results are
kept in the project under ``analyses["attacks"]`` so they are saved and reported.
"""

from __future__ import annotations

import os
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.analyses import AttackInputs, AttackResults, ReleaseRecord
from privacy_studio.core.measures.attacks.profiling import DISTANCES
from privacy_studio.core.measures.attacks.requests import ATTACKS, describe
from privacy_studio.core.overview.project_data import NEEDS_MEMORY
from privacy_studio.gui.plots.base import CompactPlot
from privacy_studio.gui.workers import TaskRunner, Worker

BLUE, ORANGE, GREEN, GREY = "#0072B2", "#E69F00", "#009E73", "#555555"
#: The profiling attack's distances in words.
DISTANCE_NAMES = {
    "js": "Jensen-Shannon divergence",
    "cosine": "cosine distance",
    "l1": "L1 distance (sum of differences)",
    "dot": "dot product (similarity)",
}


def metric_name(key: str) -> str:
    """``accuracy`` / ``top_5`` as a legend says them."""
    if key.startswith("top_") and key[4:].isdigit():
        return f"right person among the {key[4:]} best guesses"
    return "right person guessed first" if key == "accuracy" else key


#: Where the panel's inputs (paths, zone, levels, attributes) are kept in ``Project.analyses``.
INPUTS_KEY = AttackInputs.KEY


def project_inputs(project: Any) -> dict[str, str]:
    """The inputs an attack starts from in this project: its own data as the attacker's identified dataset
    (with its places and hierarchy files and time zone) and, once a release was written, that file as the
    anonymous side and as the masked file."""
    events = next((s for s in project.sources if s.role == "events"), None)
    if events is None:
        return {}
    reader = events.reader
    inputs = {
        "identified.data": events.path,
        "identified.places": str(reader.get("antennas") or reader.get("locations") or ""),
        "identified.hierarchy": str(reader.get("hierarchy") or ""),
        "tz": str(reader.get("tz") or "UTC"),
        "original": events.path,
    }
    released = (project.analyses.get(ReleaseRecord.KEY) or {}).get("release_file")
    if released:
        inputs.update({"anonymous.data": str(released), "masked": str(released)})
    return inputs


#: Reader options naming side files: the panel's own fields give them.
PLACE_KEYS = ("antennas", "locations", "hierarchy")


def project_reader(project: Any, path: str | None) -> dict[str, Any] | None:
    """How the project reads ``path`` when it is the project's own events file (its reader options: a
    headerless or tab-separated file reads only with them), else None."""
    events = next((s for s in project.sources if s.role == "events"), None)
    if events is None or not path or os.path.realpath(path) != os.path.realpath(events.path):
        return None
    return dict(events.reader)


def _form(rows: list[tuple[str, QWidget]], layout: QFormLayout | None = None) -> QFormLayout:
    """A form with one labelled row per (label, widget)."""
    form = layout if layout is not None else QFormLayout()
    for label, widget in rows:
        form.addRow(label, widget)
    return form


def _points(rows: list[dict], x: str, y: str) -> tuple[list[float], list[float]]:
    kept = [(r[x], r[y]) for r in rows if r.get(y) is not None]
    return [a for a, _ in kept], [b for _, b in kept]


class PathField(QWidget):
    """A path line edit with a browse button."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(placeholder)
        browse = QPushButton("…")
        browse.setFixedWidth(28)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(browse)

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a file", self.edit.text())
        if path:
            self.edit.setText(path)

    def value(self) -> str | None:
        return self.edit.text().strip() or None


class DatasetPicker(QGroupBox):
    """One dataset of a two-dataset attack: data file or folder, coordinates file and hierarchy file."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.data = PathField("events, CDR or card-transactions file / folder")
        self.places = PathField("optional antennas or shops file (id, latitude, longitude)")
        self.hierarchy = PathField("optional spatial hierarchy file")
        _form(
            [("data", self.data), ("places", self.places), ("hierarchy", self.hierarchy)], QFormLayout(self)
        )

    def side(self, tz: str, known: dict[str, Any] | None = None) -> dict[str, Any]:
        """The side's path and reader options: ``known`` (how the project reads this same file: delimiter,
        header, columns…) with the time zone and side files shown here."""
        known = known or {}
        reader: dict[str, Any] = {k: v for k, v in known.items() if k not in PLACE_KEYS}
        reader["tz"] = tz
        places = self.places.value()
        if places:  # the project's own key when it is the project's file (antennas or shops), else locations
            reader["antennas" if known.get("antennas") == places else "locations"] = places
        if self.hierarchy.value():
            reader["hierarchy"] = self.hierarchy.value()
        return {"path": self.data.value() or "", "reader": reader}


class AttacksPanel(QWidget):
    """Inputs and results of the four attacks; :meth:`set_results` shows results from their dictionaries."""

    run_requested = Signal(dict)  # the request, emitted when a run starts

    def __init__(self, session: Any, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.runner = runner
        self.results: dict[str, Any] = {}
        self.tabs = QTabWidget()
        self.tabs.addTab(self._two_datasets_page(), "Two datasets")
        self.tabs.addTab(self._masked_file_page(), "Masked file")
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        self._inputs_of: Any = None  # the project whose inputs the fields show
        if session is not None:
            for edit in self._fields().values():
                edit.editingFinished.connect(self._keep_inputs)
            session.changed.connect(self._restore)
            session.dataset_changed.connect(self._data_changed)
            self._restore()

    # -- inputs ------------------------------------------------------------------------------------
    def _two_datasets_page(self) -> QWidget:
        """The identified and anonymous datasets, the attacks' settings and buttons, and their plots."""
        self.identified = DatasetPicker("Identified dataset (the attacker's)")
        self.anonymous = DatasetPicker("Anonymous dataset (the release)")
        pickers = QHBoxLayout()
        pickers.addWidget(self.identified)
        pickers.addWidget(self.anonymous)
        run_matching = QPushButton("Run matching attack")
        run_matching.clicked.connect(lambda: self.start(self.matching_request()))
        run_profiling = QPushButton("Run profiling attack")
        run_profiling.clicked.connect(lambda: self.start(self.profiling_request()))
        buttons = QHBoxLayout()
        buttons.addWidget(run_matching)
        buttons.addWidget(run_profiling)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.addLayout(pickers)
        layout.addLayout(self._attack_settings())
        layout.addLayout(buttons)
        layout.addLayout(self._attack_plots(), 1)
        return page

    def _attack_settings(self) -> QVBoxLayout:
        """Links across, then two columns (matching, profiling) so the plots keep their height."""
        self.links = PathField("optional ground truth: identified id, anonymous id (default: equal ids)")
        self.tz, self.spatial, self.temporal = QLineEdit(), QLineEdit(), QLineEdit()
        for edit, default in ((self.tz, "UTC"), (self.spatial, "raw"), (self.temporal, "1h")):
            edit.setPlaceholderText(default)  # used when left empty, so the project's own values can fill it
        self.c = QDoubleSpinBox()
        self.c.setRange(0.0, 0.99)
        self.c.setSingleStep(0.05)
        self.c.setValue(0.5)
        self.distance = QComboBox()
        for key in DISTANCES:
            self.distance.addItem(DISTANCE_NAMES.get(key, key), key)
        self.hour_of_week = QCheckBox("place x hour of week")
        form = QVBoxLayout()
        form.addLayout(_form([("links", self.links)]))
        columns = QHBoxLayout()
        columns.addLayout(
            _form(
                [
                    ("time zone", self.tz),
                    ("spatial level", self.spatial),
                    ("matching: time bins", self.temporal),
                ]
            )
        )
        columns.addLayout(
            _form(
                [
                    ("matching: shared part c", self.c),
                    ("profiling: distance", self.distance),
                    ("profiling: cells", self.hour_of_week),
                ]
            )
        )
        form.addLayout(columns)
        return form

    def _attack_plots(self) -> QHBoxLayout:
        """The matching attack's precision and recall against ε beside the profiling attack's accuracy."""
        self.matching_plot = self._plot("ε (standard deviations)", "share")
        self.matching_note = QLabel("Run a matching attack to see precision and recall against ε.")
        self.profiling_plot = self._plot("population (people)", "accuracy")
        self.profiling_plot.setLogMode(x=True, y=False)
        self.profiling_note = QLabel("Run a profiling attack to see accuracy against population size.")
        plots = QHBoxLayout()
        for plot, note in (
            (self.matching_plot, self.matching_note),
            (self.profiling_plot, self.profiling_note),
        ):
            column = QVBoxLayout()
            note.setWordWrap(True)
            column.addWidget(plot, 1)
            column.addWidget(note)
            plots.addLayout(column)
        return plots

    def _masked_file_page(self) -> QWidget:
        page = QWidget()
        self.original = PathField("original numeric CSV (with a header)")
        self.masked = PathField("masked CSV: row i is the masked version of row i")
        self.columns = QLineEdit()
        self.columns.setPlaceholderText("attributes, comma-separated (default: every column)")
        self.window_ranks = QSpinBox()
        self.window_ranks.setRange(0, 1_000_000)
        self.window_ranks.setValue(2)
        form = _form(
            [
                ("original", self.original),
                ("masked", self.masked),
                ("attributes", self.columns),
                ("published window (ranks)", self.window_ranks),
            ]
        )
        run_linkage = QPushButton("Run record linkage")
        run_linkage.clicked.connect(lambda: self.start(self.table_request("linkage")))
        run_transparency = QPushButton("Run transparency attack")
        run_transparency.clicked.connect(lambda: self.start(self.table_request("transparency")))
        buttons = QHBoxLayout()
        buttons.addWidget(run_linkage)
        buttons.addWidget(run_transparency)
        self.linkage_table = QTableWidget(0, 2)
        self.linkage_table.setHorizontalHeaderLabels(["distance", "correct re-identifications"])
        self.linkage_note = QLabel("Run record linkage on an original and a masked file.")
        self.transparency_note = QLabel("Run the transparency attack on a rank-swapped file.")
        layout = QVBoxLayout(page)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.linkage_table, 1)
        for note in (self.linkage_note, self.transparency_note):
            note.setWordWrap(True)
            layout.addWidget(note)
        return page

    @staticmethod
    def _plot(x_label: str, y_label: str) -> pg.PlotWidget:
        plot = CompactPlot(background="w")
        plot.setLabel("bottom", x_label)
        plot.setLabel("left", y_label)
        plot.setYRange(0, 1.05)
        plot.addLegend(offset=(-10, 10))
        plot.showGrid(x=True, y=True, alpha=0.2)
        return plot

    # -- inputs kept in the project ---------------------------------------------------------------
    def _fields(self) -> dict[str, QLineEdit]:
        return {
            "identified.data": self.identified.data.edit,
            "identified.places": self.identified.places.edit,
            "identified.hierarchy": self.identified.hierarchy.edit,
            "anonymous.data": self.anonymous.data.edit,
            "anonymous.places": self.anonymous.places.edit,
            "anonymous.hierarchy": self.anonymous.hierarchy.edit,
            "links": self.links.edit,
            "tz": self.tz,
            "spatial": self.spatial,
            "temporal": self.temporal,
            "original": self.original.edit,
            "masked": self.masked.edit,
            "columns": self.columns,
        }

    def inputs(self) -> dict[str, str]:
        """Every text input of the panel, as saved in the project."""
        return {key: edit.text() for key, edit in self._fields().items()}

    def apply_inputs(self, inputs: dict[str, str], only_empty: bool = False) -> None:
        """Fill the fields from ``inputs`` (with ``only_empty``, leave what the user typed)."""
        for key, edit in self._fields().items():
            if key in inputs and not (only_empty and edit.text().strip()):
                edit.setText(str(inputs[key]))

    def _keep_inputs(self) -> None:
        saved = None if self.session is None else self.session.project.analysis(AttackInputs)
        if self.session is not None and (saved.content if saved else None) != self.inputs():
            self.session.project.store(AttackInputs(self.inputs()))
            self.session.set_dirty(True)

    # -- requests and runs -------------------------------------------------------------------------
    def _known_reader(self, picker: DatasetPicker) -> dict[str, Any] | None:
        """The project's reader options when ``picker`` names the project's own events file."""
        return None if self.session is None else project_reader(self.session.project, picker.data.value())

    def _pair(self, attack: str) -> dict[str, Any]:
        tz = self.tz.text().strip() or "UTC"
        return {
            "attack": attack,
            "identified": self.identified.side(tz, self._known_reader(self.identified)),
            "anonymous": self.anonymous.side(tz, self._known_reader(self.anonymous)),
            "links": self.links.value(),
            "spatial": self.spatial.text().strip() or "raw",
        }

    def matching_request(self) -> dict[str, Any]:
        return {
            **self._pair("matching"),
            "temporal": self.temporal.text().strip() or "1h",
            "c": self.c.value(),
        }

    def profiling_request(self) -> dict[str, Any]:
        extra = {"distance": self.distance.currentData(), "hour_of_week": self.hour_of_week.isChecked()}
        return {**self._pair("profiling"), **extra}

    def table_request(self, attack: str) -> dict[str, Any]:
        columns = [c.strip() for c in self.columns.text().split(",") if c.strip()] or None
        request = {
            "attack": attack,
            "original": self.original.value() or "",
            "masked": self.masked.value() or "",
        }
        request["columns"] = columns
        if attack == "transparency":
            request["window_ranks"] = self.window_ranks.value()
        return request

    def start(self, request: dict[str, Any]) -> Any:
        """Run a request in the window's task runner (a new attack replaces a running one)."""
        from privacy_studio.core.measures.attacks.requests import run_attack

        kind = request["attack"]
        self._keep_inputs()
        if self._reads_data_beyond_memory(request):
            self.status.setText(f"The {kind} attack {NEEDS_MEMORY}.")
            return None
        worker = Worker(run_attack, request, name=f"{kind} attack")
        # Bound methods of this widget, so the slots run in the GUI thread whatever thread emits.
        worker.signals.progress.connect(self._on_progress)
        worker.signals.finished.connect(self._on_finished)
        worker.signals.failed.connect(self._on_failed)
        worker.signals.done.connect(self._on_done)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.status.setText(f"running the {kind} attack…")
        self.run_requested.emit(request)
        return self.runner.start(worker, kind="attack")

    def _reads_data_beyond_memory(self, request: dict[str, Any]) -> bool:
        """Whether a side of ``request`` is the project's own events file while they exceed the memory
        (the window holds only their overview)."""
        session = self.session
        if session is None or session.dataset is not None or session.overview is None:
            return False
        sides = (request.get(k) or {} for k in ("identified", "anonymous"))
        return any(project_reader(session.project, side.get("path")) is not None for side in sides)

    def _data_changed(self, dataset: Any) -> None:
        """Say at once, for data that exceed the memory, that attacks on them cannot run."""
        if dataset is None and self.session.overview is not None:
            self.status.setText(f"An attack on this project's data {NEEDS_MEMORY}.")

    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(100 * fraction))
        self.status.setText(message)

    def _on_finished(self, result: dict[str, Any]) -> None:
        self.set_results({result["attack"]: result})

    def _on_failed(self, message: str, _details: str) -> None:
        self.status.setText(f"The attack failed: {message}")

    def _on_done(self, _worker: Any) -> None:
        self.progress.setVisible(False)

    # -- results -----------------------------------------------------------------------------------
    def set_results(self, results: dict[str, Any]) -> None:
        """Show any of the attacks' result dictionaries and keep them in the project."""
        self._show(results)
        if self.session is not None:
            self.session.project.store(AttackResults(dict(self.results)))
            self.session.set_dirty(True)
            self.session.changed.emit()

    def _restore(self) -> None:
        project = self.session.project
        if project is not self._inputs_of:  # another project: its saved inputs, or its own files
            self._inputs_of = project
            for edit in self._fields().values():
                edit.clear()
            saved = project.analysis(AttackInputs)
            self.apply_inputs(saved.content if saved else {})
        self.apply_inputs(project_inputs(project), only_empty=True)
        saved = self.session.project.analysis(AttackResults)
        stored = saved.content if saved else {}
        if stored != self.results:
            self.results = {}
            self._show(stored)

    def _show(self, results: dict[str, Any]) -> None:
        self.results.update({k: v for k, v in results.items() if k in ATTACKS})
        shows = {
            "matching": self._show_matching,
            "profiling": self._show_profiling,
            "linkage": self._show_linkage,
            "transparency": self._show_transparency,
        }
        for kind, result in results.items():
            if kind in shows:
                shows[kind](result)
        if results:
            self.status.setText("")

    def _show_matching(self, r: dict) -> None:
        self.matching_plot.clear()
        for key, colour in (("precision", BLUE), ("recall", ORANGE)):
            xs, ys = _points(r["curve"], "epsilon", key)
            self.matching_plot.plot(xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=5, name=key)
        self.matching_note.setText(describe("matching", r))

    def _show_profiling(self, r: dict) -> None:
        self.profiling_plot.clear()
        keys = ["accuracy"] + [k for k in (r["curve"][0] if r["curve"] else {}) if k.startswith("top_")]
        for key, colour in zip(keys, (BLUE, ORANGE, GREEN, GREY), strict=False):
            xs, ys = _points(r["curve"], "population", key)
            self.profiling_plot.plot(
                xs, ys, pen=pg.mkPen(colour, width=2), symbol="o", symbolSize=5, name=metric_name(key)
            )
        self.profiling_note.setText(describe("profiling", r))

    def _show_linkage(self, r: dict) -> None:
        rows = list(r["distances"].items())
        self.linkage_table.setRowCount(len(rows))
        for i, (name, row) in enumerate(rows):
            self.linkage_table.setItem(i, 0, QTableWidgetItem(name))
            self.linkage_table.setItem(i, 1, QTableWidgetItem(f"{row['percent_correct']:.2f} %"))
        self.linkage_note.setText(describe("linkage", r))

    def _show_transparency(self, r: dict) -> None:
        self.transparency_note.setText(describe("transparency", r))

    def summary_lines(self) -> list[str]:
        """One plain sentence per attack shown, for the project report."""
        return [describe(kind, self.results[kind]) for kind in ATTACKS if kind in self.results]
