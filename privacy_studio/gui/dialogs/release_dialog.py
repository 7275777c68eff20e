"""File › Export release: choose the profile, the rows and the suppression, preview, then write.

The preview prepares the release in a worker (nothing written): the first rows exactly as they will be
written, the people, events and points each suppression choice removes, and the figures before and after.
Writing runs in another worker, which reads the file back and measures it before giving it its name.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.generalize import price_label
from privacy_studio.core.numbers import count, interval, share
from privacy_studio.core.project import Project
from privacy_studio.core.records import AnalysisError
from privacy_studio.core.release import (
    PreparedRelease,
    ReleaseError,
    ReleaseManifest,
    ReleaseOptions,
    parse_profile,
    prepare_release,
    write_release,
)
from privacy_studio.core.release.defaults import measure_settings, policy
from privacy_studio.core.release.export import refusal
from privacy_studio.core.release.manifest import Counts, rows_releases
from privacy_studio.core.release.measure import ReleaseFigures
from privacy_studio.core.release.options import EXTRA_COLUMNS
from privacy_studio.core.release.suppression import Removal
from privacy_studio.core.release_advice import Candidates, candidates
from privacy_studio.core.tradeoff.candidates import Candidate
from privacy_studio.gui.column_fit import fit_columns
from privacy_studio.gui.dialogs.worker_dialog import WorkerDialog
from privacy_studio.gui.screen_fit import fit_to_screen
from privacy_studio.gui.workers import TaskRunner, Worker

ROW_CHOICES = (
    ("one row per person, place and time bin", "points"),
    ("one row per event", "events"),
)
#: The colour of what must not be missed (a release that fails the criteria).
RED = "color: #a33;"
#: Suppression choices: option name, label, smallest value, default value.
SUPPRESSION = (
    ("min_people_per_point", "Drop place-time points of fewer than M people", 2, 5),
    ("k_anonymity", "Keep only people whose whole trace is shared by at least K people", 2, 2),
    ("max_points_per_person", "Keep each person's N most visited points", 1, 20),
)
PREVIEW_ROWS = 20
#: Rows each table shows at least, whatever the screen.
MIN_ROWS = 3


def start_text(c: Candidates) -> str:
    """Why the dialog opens on its profile: the recommendation, or the least risky one with a warning."""
    if c.recommended:
        return f"The project recommends {c.recommended}."
    if c.least_risky:
        return (
            f"No profile meets the project's release criteria ({c.why_none}). The dialog starts on the least "
            f"risky one, {c.least_risky}: add suppression and preview; a file that fails the criteria is "
            "written only with a reason for accepting the risk."
        )
    return f"The project recommends no profile ({c.why_none})."


EFFECT_COLUMNS = ["", "people", "events", "points", "unique whole traces", "unicity (95% interval)"]


def effect_rows(prepared: PreparedRelease) -> list[list[str]]:
    """The data at the profile, each chosen step (what it removed, the risk after it), and the release."""
    options = prepared.options.to_dict()

    def risk(f: ReleaseFigures) -> list[str]:
        return [share(f.share_unique), f"{share(f.unicity)} {interval(f.unicity_ci)}".strip()]

    def counts(c: Counts | Removal) -> list[str]:
        return [count(c.people), count(c.events), count(c.points)]

    rows = [["data at the profile", *counts(prepared.before), *risk(prepared.measured_before)]]
    for removal, after in zip(prepared.removed, prepared.measured_after_step, strict=True):
        rows.append([f"removed: {removal.describe(options[removal.step])}", *counts(removal), *risk(after)])
    rows.append(["released", *counts(prepared.released), *risk(prepared.measured)])
    return rows


def effect_text(prepared: PreparedRelease) -> str:
    """What the release does to the risk: unicity (an estimate, with who it leaves out) and unique traces."""
    before, after = prepared.measured_before, prepared.measured
    return (
        f"Unicity at p = {after.p} (estimates): {share(before.unicity)} {interval(before.unicity_ci)} "
        f"before suppression on {count(before.people)} people; {share(after.unicity)} "
        f"{interval(after.unicity_ci)} on the {count(after.people)} people released "
        f"({count(after.n_excluded)} of {count(after.n_sampled)} sampled have fewer than {after.p} points "
        f"and are left out). Unique whole traces: {share(before.share_unique)} before, "
        f"{share(after.share_unique)} released; smallest class k = {after.k}."
    )


class ReleaseDialog(WorkerDialog):
    """Prepare, preview and write a release of the session's dataset."""

    #: The size it opens at, shrunk to the screen (1280×720: 1177×662).
    SIZE = (1240, 820)

    released = Signal(object)  # the ReleaseManifest
    prepared_changed = Signal(object)  # the PreparedRelease, or None when the choices changed

    def __init__(
        self, runner: TaskRunner, project: Project, dataset: Any, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export release")
        self.runner, self.project, self.dataset = runner, project, dataset
        self.prepared: PreparedRelease | None = None
        self.worker: Worker | None = None
        self.candidates = candidates(project)
        self.removed_table = QTableWidget(0, len(EFFECT_COLUMNS))
        self.removed_table.setHorizontalHeaderLabels(EFFECT_COLUMNS)
        self.figures = QLabel("")
        self.figures.setWordWrap(True)
        self.preview_table = QTableWidget(0, 0)
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(RED)
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        choices = QVBoxLayout()  # the choices on the left, what they do on the right: each table gets the
        choices.addLayout(self._choice_form())  # dialog's height (stacked, they had two rows at 1280×720)
        choices.addWidget(self._suppression_group())
        choices.addStretch(1)
        columns = QHBoxLayout()
        columns.addLayout(choices)
        columns.addWidget(self._outcome_panes(), 1)
        layout = QVBoxLayout(self)
        layout.addLayout(columns, 1)
        layout.addWidget(self.problems)
        layout.addLayout(self._button_row("Write release"))
        self._watch_choices()
        self._rows_changed()
        fit_to_screen(self, *self.SIZE)

    def _outcome_panes(self) -> QSplitter:
        """What each choice removes, then (the figures, verdict and reason above) the first rows as written,
        in a splitter the officer can move; each table keeps a few rows whatever the screen."""
        rows = self.removed_table.verticalHeader()
        rows.setVisible(False)  # its first column names the row
        rows.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # a narrowed name wraps, whole
        self.outcome = splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setChildrenCollapsible(False)
        reason = QWidget()
        reason.setLayout(self._reason_row())
        reason.layout().setContentsMargins(0, 0, 0, 0)
        panes = (
            ([QLabel("What each choice removes (before writing):")], self.removed_table),
            (
                [self.figures, self.verdict, reason, QLabel(f"The first {PREVIEW_ROWS} rows as written:")],
                self.preview_table,
            ),
        )
        for above, table in panes:  # the effect table alone in its pane: its height is the pane's
            row_px = table.fontMetrics().height() + 8  # compact rows: more of them in sight
            table.verticalHeader().setDefaultSectionSize(row_px)
            table.setMinimumHeight(table.horizontalHeader().sizeHint().height() + MIN_ROWS * row_px)
            pane = QWidget()
            column = QVBoxLayout(pane)
            column.setContentsMargins(0, 0, 0, 0)
            for widget in above:
                column.addWidget(widget)
            column.addWidget(table, 1)
            splitter.addWidget(pane)
        splitter.setStretchFactor(0, 1)  # halves, then the effect table grows to show all its rows
        splitter.setStretchFactor(1, 1)
        return splitter

    def _profile_box(self) -> None:
        """The profile, starting at the project's recommendation, and the note saying where it starts."""
        self.profile = QComboBox()
        self.profile.setEditable(True)
        self.profile.addItems(self.candidates.profiles)
        self.profile.setCurrentText(self.candidates.default or next(iter(self.candidates.profiles), ""))
        self.profile.setToolTip("spatial level : time width (default: the recommendation)")
        self.start_note = QLabel(start_text(self.candidates))
        self.start_note.setWordWrap(True)
        if not self.candidates.recommended:
            self.start_note.setStyleSheet(RED)

    def _choice_form(self) -> QFormLayout:
        """Profile, rows, event columns, centres and counts, the release file and the mapping file."""
        self._profile_box()
        self.rows = QComboBox()
        for text, value in ROW_CHOICES:
            self.rows.addItem(text, value)
        self.columns = {name: QCheckBox(name) for name in EXTRA_COLUMNS}
        self.centres = QCheckBox("add each unit's centre (lat, lon)")
        self.counts = QCheckBox("add each point's event count (k-anonymity then compares counts too)")
        column_row = QGridLayout()  # three a line, so the choices' column stays narrow
        for i, box in enumerate(self.columns.values()):
            column_row.addWidget(box, i // 3, i % 3)
        self.out = QLineEdit()
        self.out.setPlaceholderText("release.csv or release.parquet")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        out_row = QHBoxLayout()
        out_row.addWidget(self.out, 1)
        out_row.addWidget(browse)
        self.overwrite = QCheckBox("replace an existing release")
        self.mapping = QLineEdit()
        self.mapping.setPlaceholderText("optional: a separate file for original id → pseudonym")
        form = QFormLayout()
        for label, item in (
            ("Profile", self.profile),
            ("", self.start_note),
            ("Rows", self.rows),
            ("Event columns", column_row),
            ("", self.centres),
            ("", self.counts),
            ("Release file", out_row),
            ("", self.overwrite),
            ("Pseudonym mapping", self.mapping),
        ):
            form.addRow(label, item)
        return form

    def _suppression_group(self) -> QGroupBox:
        """One tick and one number per suppression threshold (fewest people per point, k, most points)."""
        self.thresholds: dict[str, tuple[QCheckBox, QSpinBox]] = {}
        suppression = QGroupBox("Suppression (optional)")
        sup_form = QFormLayout(suppression)
        for name, label, smallest, default in SUPPRESSION:
            tick, value = QCheckBox(label), QSpinBox()
            value.setRange(smallest, 1_000_000)
            value.setValue(default)
            self.thresholds[name] = (tick, value)
            sup_form.addRow(tick, value)
        return suppression

    def _reason_row(self) -> QHBoxLayout:
        """The reason an officer gives for writing a release that fails the criteria."""
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("required to write a release that fails the release criteria")
        self.reason.textChanged.connect(self._update_write)
        row = QHBoxLayout()
        row.addWidget(QLabel("Reason for accepting the risk"))
        row.addWidget(self.reason, 1)
        return row

    # -- choices -----------------------------------------------------------------------------------
    def _watch_choices(self) -> None:
        self.profile.currentTextChanged.connect(self._invalidate)
        self.rows.currentIndexChanged.connect(self._rows_changed)
        self.centres.toggled.connect(self._invalidate)
        self.counts.toggled.connect(self._invalidate)
        for box in self.columns.values():
            box.toggled.connect(self._invalidate)
        for tick, value in self.thresholds.values():
            tick.toggled.connect(self._invalidate)
            value.valueChanged.connect(self._invalidate)

    def _rows_changed(self) -> None:
        per_event = self.rows.currentData() == "events"
        self.counts.setEnabled(not per_event)
        if per_event:
            self.counts.setChecked(False)
        for name, box in self.columns.items():
            present = self.dataset is not None and getattr(self.dataset.events, name, None) is not None
            box.setEnabled(per_event and present)
            if not box.isEnabled():
                box.setChecked(False)
        self._invalidate()

    def _invalidate(self, *_: Any) -> None:
        """A changed choice makes the preview stale: it must be prepared again before writing."""
        if self.prepared is not None:
            self.prepared = None
            self.prepared_changed.emit(None)
        self.verdict.setText("")
        self.write_button.setEnabled(False)

    def _needs_reason(self) -> bool:
        return self.prepared is not None and not self.prepared.passes

    def _write_allowed(self) -> bool:
        """Writing needs a preview, and a typed reason when the preview fails the release criteria."""
        return self.prepared is not None and (not self._needs_reason() or bool(self.reason.text().strip()))

    def _update_write(self, *_: Any) -> None:
        self.write_button.setEnabled(self.worker is None and self._write_allowed())

    def options(self) -> ReleaseOptions:
        """The choices as release options; :class:`ReleaseError` for an impossible one."""
        profile = parse_profile(self.profile.currentText())
        chosen = {
            name: value.value() if tick.isChecked() else None
            for name, (tick, value) in self.thresholds.items()
        }
        options = ReleaseOptions(
            profile.spatial.label,
            profile.temporal.label,
            rows=self.rows.currentData(),
            columns=[name for name, box in self.columns.items() if box.isChecked()],
            centres=self.centres.isChecked(),
            price=price_label(profile.price),
            counts=self.counts.isChecked(),
            **chosen,
        )
        options.validate()
        return options

    def use_candidate(self, candidate: Candidate) -> None:
        """Start from a release candidate chosen in the Decide step: its profile and suppression, one row
        per point without counts, as the protection search measured it."""
        self.profile.setCurrentText(candidate.profile)
        self.rows.setCurrentIndex(self.rows.findData("points"))
        self.counts.setChecked(False)
        self.centres.setChecked(False)
        for name, (tick, value) in self.thresholds.items():
            threshold = getattr(candidate.suppression, name)
            tick.setChecked(threshold is not None)
            if threshold is not None:
                value.setValue(threshold)
        self.start_note.setText(f"Release candidate from the Decide step: {candidate.name()}.")
        self.start_note.setStyleSheet("" if candidate.passes else RED)

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Release file", self.out.text(), "CSV (*.csv);;Parquet (*.parquet)"
        )
        if path:
            self.out.setText(path)

    # -- work --------------------------------------------------------------------------------------
    def start_preview(self) -> Worker | None:
        """Prepare the release in a worker; the counts, figures and first rows are shown when it is done."""
        if self.dataset is None:
            self.problems.setText("The project's data is not loaded: import it or open the project again.")
            return None
        try:
            options, earlier = self.options(), rows_releases(self.project.analyses)
        except (ReleaseError, AnalysisError) as exc:
            self.problems.setText(str(exc))
            return None
        self._invalidate()
        worker = Worker(
            prepare_release,
            self.dataset,
            options,
            measure_settings(self.project),
            policy=policy(self.project),
            earlier=earlier,
            name="release preview",
        )
        return self._start(worker, self._show_prepared)

    def start_write(self) -> Worker | None:
        """Write the previewed release (and the mapping if a file is named) in a worker."""
        out = self.out.text().strip()
        if self.prepared is None:
            self.problems.setText("Preview the release first: the file is written exactly as previewed.")
            return None
        if not out:
            self.problems.setText("Choose the release file (.csv or .parquet).")
            return None
        mapping = self.mapping.text().strip() or None
        reason = self.reason.text().strip() or None
        if self._needs_reason() and reason is None:
            self.problems.setText(refusal(self.prepared, "type a reason for accepting the risk") + ".")
            return None
        worker = Worker(
            write_release,
            self.prepared,
            out,
            project=self.project,
            mapping_out=mapping,
            overwrite=self.overwrite.isChecked(),
            accept_risk=reason,
            name="release",
        )
        return self._start(worker, self._written)

    def _show_prepared(self, prepared: PreparedRelease) -> None:
        self.prepared = prepared
        self._stop()
        self.prepared_changed.emit(prepared)
        rows = effect_rows(prepared)
        self.removed_table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)  # the whole text where a narrowed column cuts it
                self.removed_table.setItem(i, j, item)
        fit_columns(self.removed_table)  # suppression adds rows with long labels: no sideways scrolling
        self.figures.setText(effect_text(prepared))
        if prepared.passes:
            self.verdict.setStyleSheet("")
            self.verdict.setText("The release as written meets every release criterion of the project.")
        else:
            self.verdict.setStyleSheet(RED)
            self.verdict.setText(
                refusal(prepared, "type a reason for accepting the risk below").capitalize() + "."
            )
        self._update_write()
        columns, values = prepared.preview(PREVIEW_ROWS)
        self.preview_table.setColumnCount(len(columns))
        self.preview_table.setHorizontalHeaderLabels(columns)
        self.preview_table.setRowCount(len(values))
        for i, row in enumerate(values):
            for j, text in enumerate(row):
                self.preview_table.setItem(i, j, QTableWidgetItem(text))
        self.preview_table.resizeColumnsToContents()
        self.layout().activate()  # the figures' and verdict's new lines take their height from the tables
        self._fit_effect_rows()

    def _fit_effect_rows(self) -> None:
        """Move the splitter so the effect table shows all its rows and one spare (a scroll bar would narrow
        its columns and wrap them taller) within both panes' minimums; the preview gets the rest."""
        table = self.removed_table
        table.resizeRowsToContents()  # heights now, at the columns' present widths (else set lazily)
        rows = sum(table.rowHeight(i) for i in range(table.rowCount()))
        spare = table.verticalHeader().defaultSectionSize()
        wanted = table.horizontalHeader().height() + rows + 2 * table.frameWidth() + spare
        top, bottom = self.outcome.sizes()
        least = [self.outcome.widget(i).minimumSizeHint().height() for i in (0, 1)]
        moved = max(least[0] - top, min(wanted - table.height(), bottom - least[1]))
        if top and bottom and moved:
            self.outcome.setSizes([top + moved, bottom - moved])

    def _written(self, manifest: ReleaseManifest) -> None:
        self._stop()
        self.problems.setStyleSheet("")
        self.problems.setText(
            f"Written: {manifest.release_file} ({count(manifest.release_rows)} rows) and its manifest, "
            f"measured again as written (k = {manifest.measured_on_release.k})."
        )
        self.released.emit(manifest)
