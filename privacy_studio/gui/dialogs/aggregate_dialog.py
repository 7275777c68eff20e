"""File › Export aggregate: choose the profile, the table, ε, δ and the bound, preview, then write.

The preview prepares the aggregate in a worker (nothing written): the noise OpenDP will add with its expected
error, what the bound cuts, the utility against the true counts and the first rows as they will be written.
Writing the previewed cells and the manifest runs in another worker.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.aggregate import (
    AggregateError,
    AggregateManifest,
    AggregateOptions,
    PreparedAggregate,
    prepare_aggregate,
    write_aggregate,
)
from privacy_studio.core.aggregate.export import grid_profiles
from privacy_studio.core.aggregate.figures import SCORE_WORDS
from privacy_studio.core.aggregate.manifest import privacy_spent
from privacy_studio.core.aggregate.options import plain
from privacy_studio.core.analyses import AnalysisError
from privacy_studio.core.numbers import count
from privacy_studio.core.project import Project
from privacy_studio.core.release import ReleaseError, parse_profile
from privacy_studio.core.release_advice import candidates
from privacy_studio.gui.dialogs.worker_dialog import WorkerDialog
from privacy_studio.gui.screen_fit import fit_to_screen
from privacy_studio.gui.workers import TaskRunner, Worker

KIND_CHOICES = (
    ("people per place and time bin (density)", "density"),
    ("people moving between consecutive places, per time bin (origin–destination)", "od"),
)
PREVIEW_ROWS = 20


def effect_text(prepared: PreparedAggregate) -> str:
    """The guarantee, the noise's expected error and what the bound and the noise cost, in words."""
    m, f, o = prepared.mechanism, prepared.figures, prepared.options
    return (
        f"{count(f.cells)} cells, every one written (empty ones too). {m.describe()}. Expected error "
        f"{plain(m.expected_abs_error, 3)} people per cell ({plain(m.expected_abs_error_empty, 3)} in an "
        f"empty cell); 95 % of cells within ±{m.error_bound_95}. The bound ({o.max_points_per_person} cells "
        f"per person) cuts {count(f.people_cut)} of {count(f.people)} people. Against the true counts (not "
        f"private, for your decision only): mean error {plain(f.mean_abs_error_true, 3)} per cell; utility "
        f"{f.utility:.2f} of 10 ({SCORE_WORDS[f.score]}), {f.utility_bound_only:.2f} with the bound alone."
    )


def spent_text(project: Project) -> str:
    """What the project's earlier releases spend, in a sentence (losses add up over every aggregate)."""
    try:
        loss = privacy_spent(project.analyses)
    except AnalysisError as exc:
        return f"the project's release records could not be read ({exc})"
    return loss.describe() + ("; this file adds its ε to the sum" if loss.aggregates else "")


class AggregateDialog(WorkerDialog):
    """Prepare, preview and write a differentially private aggregate of the session's dataset."""

    written = Signal(object)  # the AggregateManifest
    prepared_changed = Signal(object)  # the PreparedAggregate, or None when the choices changed

    def __init__(
        self, runner: TaskRunner, project: Project, dataset: Any, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export aggregate (differential privacy)")
        self.runner, self.project, self.dataset = runner, project, dataset
        self.prepared: PreparedAggregate | None = None
        self.worker: Worker | None = None
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.preview_table = QTableWidget(0, 0)
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #a33;")
        layout = QVBoxLayout(self)
        layout.addLayout(self._choice_form(project))
        layout.addWidget(self.figures)
        layout.addWidget(QLabel(f"The first {PREVIEW_ROWS} rows as they will be written (with the noise):"))
        layout.addWidget(self.preview_table, 1)
        layout.addWidget(self.problems)
        layout.addLayout(self._button_row("Write aggregate"))
        for signal in (
            self.profile.currentTextChanged,
            self.kind.currentIndexChanged,
            self.epsilon.valueChanged,
            self.delta.textChanged,
            self.bound.valueChanged,
        ):
            signal.connect(self._invalidate)
        fit_to_screen(self, 860, 620)

    def _choice_boxes(self, project: Project) -> None:
        """The profile (the project's recommendation first, no amount), the table, ε, δ and the bound."""
        offered = candidates(project)
        choices = [p for p in offered.profiles if ":price/" not in p]  # an aggregate publishes no amount
        start = offered.default if offered.default in choices else next(iter(choices), "")
        self.profile = QComboBox()
        self.profile.setEditable(True)
        self.profile.addItems(choices)
        self.profile.setCurrentText(start)
        self.kind = QComboBox()
        for text, value in KIND_CHOICES:
            self.kind.addItem(text, value)
        self.epsilon = QDoubleSpinBox()
        self.epsilon.setDecimals(3)
        self.epsilon.setRange(0.001, 100.0)
        self.epsilon.setValue(1.0)
        self.epsilon.setToolTip("privacy loss for the whole file: smaller is more private and noisier")
        self.delta = QLineEdit("0")
        self.delta.setToolTip("0: discrete Laplace noise; above 0 (e.g. 1e-6): discrete Gaussian noise")
        self.bound = QSpinBox()
        self.bound.setRange(1, 1_000_000)
        self.bound.setValue(10)
        self.bound.setToolTip("each person counts in at most this many cells (their most frequent ones)")

    def _choice_form(self, project: Project) -> QFormLayout:
        """The choices, the file to write and what the project's earlier releases spent, one row each."""
        self._choice_boxes(project)
        self.out = QLineEdit()
        self.out.setPlaceholderText("aggregate.csv")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        out_row = QHBoxLayout()
        out_row.addWidget(self.out, 1)
        out_row.addWidget(browse)
        self.overwrite = QCheckBox("replace an existing file")
        self.spent = QLabel(spent_text(project))
        self.spent.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Profile", self.profile)
        form.addRow("Table", self.kind)
        form.addRow("ε (whole file)", self.epsilon)
        form.addRow("δ", self.delta)
        form.addRow("Cells per person at most", self.bound)
        form.addRow("Aggregate file", out_row)
        form.addRow("", self.overwrite)
        form.addRow("Spent so far", self.spent)
        return form

    def _invalidate(self, *_: Any) -> None:
        """A changed choice makes the preview stale: it must be prepared again before writing."""
        if self.prepared is not None:
            self.prepared = None
            self.prepared_changed.emit(None)
        self.write_button.setEnabled(False)

    def options(self) -> AggregateOptions:
        """The choices as options; ``AggregateError`` (``ReleaseError`` for the profile) if impossible."""
        profile = parse_profile(self.profile.currentText())
        try:
            delta = float(self.delta.text().strip() or "0")
        except ValueError:
            raise AggregateError(
                f"δ must be a number at least 0 and below 1, got {self.delta.text()!r}"
            ) from None
        options = AggregateOptions(
            profile.spatial.label,
            profile.temporal.label,
            self.kind.currentData(),
            float(self.epsilon.value()),
            delta,
            int(self.bound.value()),
        )
        options.validate()
        return options

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Aggregate file", self.out.text(), "CSV (*.csv)")
        if path:
            self.out.setText(path)

    def _write_allowed(self) -> bool:
        return self.prepared is not None

    def start_preview(self) -> Worker | None:
        """Prepare the aggregate in a worker; the figures and first rows are shown when it is done."""
        if self.dataset is None:
            self.problems.setText("The project's data is not loaded: import it or open the project again.")
            return None
        try:
            options = self.options()
        except (AggregateError, ReleaseError) as exc:
            self.problems.setText(str(exc))
            return None
        self._invalidate()
        profiles = grid_profiles(self.project)
        worker = Worker(prepare_aggregate, self.dataset, options, profiles=profiles, name="aggregate preview")
        return self._start(worker, self._show_prepared)

    def start_write(self) -> Worker | None:
        """Write the previewed cells and the manifest in a worker."""
        out = self.out.text().strip()
        if self.prepared is None:
            self.problems.setText("Preview the aggregate first: the file is written exactly as previewed.")
            return None
        if not out:
            self.problems.setText("Choose the aggregate file (.csv).")
            return None
        worker = Worker(
            write_aggregate,
            self.prepared,
            out,
            project=self.project,
            overwrite=self.overwrite.isChecked(),
            name="aggregate",
        )
        return self._start(worker, self._written)

    def _show_prepared(self, prepared: PreparedAggregate) -> None:
        self.prepared = prepared
        self._stop()
        self.prepared_changed.emit(prepared)
        self.figures.setText(effect_text(prepared))
        columns, values = prepared.preview(PREVIEW_ROWS)
        self.preview_table.setColumnCount(len(columns))
        self.preview_table.setHorizontalHeaderLabels(columns)
        self.preview_table.setRowCount(len(values))
        for i, row in enumerate(values):
            for j, text in enumerate(row):
                self.preview_table.setItem(i, j, QTableWidgetItem(text))
        self.preview_table.resizeColumnsToContents()

    def _written(self, manifest: AggregateManifest) -> None:
        self._stop()
        self.problems.setStyleSheet("")
        self.problems.setText(f"Written: {manifest.file} ({count(manifest.rows)} cells) and its manifest.")
        self.written.emit(manifest)
