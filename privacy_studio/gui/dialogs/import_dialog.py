"""Import a data file or a folder of per-user CDR files: format, column roles, time zone, live preview.

The preview reads only the first rows, in a worker that a newer preview replaces and that is given up after
``PREVIEW_TIMEOUT_S`` (a slow share or a blocked device never freezes the window); the import itself runs in
a worker with progress, and its report (rows kept, rows rejected per reason with line numbers) is shown
and kept with the project.
"""

from __future__ import annotations

import re
import zoneinfo
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.io import FORMATS, ROLES, ReaderOptions, load_dataset, preview
from privacy_studio.core.io.previewing import Preview
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import sha256_of
from privacy_studio.gui.screen_fit import fit_to_screen
from privacy_studio.gui.workers import TaskRunner, Worker, readable_error

AUTO = "(detect)"
DELIMITERS = (("detect", None), ("comma ,", ","), ("semicolon ;", ";"), ("tab", "\t"), ("pipe |", "|"))
DATE_ORDERS = (
    ("refuse ambiguous dates", (False, False)),
    ("day first (31/12)", (True, False)),
    ("month first (12/31)", (False, True)),
)
PREVIEW_DELAY_MS = 300
HEADER_TEXT = "first row holds column names"
DATA_FILTER = "Data files (*.csv *.gz *.zip *.parquet *.txt);;All files (*)"


#: The reader's hints name command-line flags; in the dialog they become the widget to use instead.
DIALOG_TERMS = (
    (
        re.compile(r"pass --no-header --columns user,time,\.\.\. naming each column's role"),
        'untick "first row holds column names" and choose each column\'s role under Columns',
    ),
    (
        re.compile(r"--no-header needs --columns naming each column's role, e\.g\. [\w,]+"),
        "the file has no header row: choose under Columns which column is the user, the time, "
        "the location or lat/lon (columns left on (detect) are skipped)",
    ),
    (re.compile(r"--columns names (\d+) columns"), r"the Columns boxes name \1 columns"),
    (re.compile(r"--map (\w+)=COLUMN"), r"choose the \1 column under Columns"),
    (
        re.compile(r"pass --dayfirst \(dd/mm/yyyy\) or --monthfirst \(mm/dd/yyyy\)"),
        "choose the order under Dates",
    ),
    (re.compile(r"drop --delimiter or pass the right one"), "set Delimiter to detect or to the right one"),
)


def in_dialog_terms(text: str) -> str:
    """A reader message with its command-line hints replaced by the dialog's own controls."""
    for pattern, replacement in DIALOG_TERMS:
        text = pattern.sub(replacement, text)
    return text


def headerless_roles(mapping: dict[str, str], names: list[str]) -> list[str] | None:
    """The reader's ``columns`` for a file without a header: a role or ``_`` (skip) per column, in order.

    ``mapping`` is role -> column name as the role boxes show it (``column 3``); ``None`` if nothing chosen.
    """
    chosen = {column: role for role, column in mapping.items() if column in names}
    return [chosen.get(name, "_") for name in names] if chosen else None


def load_and_hash(path: str, options: ReaderOptions, control: TaskControl | None = None) -> tuple[Any, str]:
    """Read the input and hash its bytes for the project (both slow on big inputs: run in a worker)."""
    dataset = load_dataset(path, options, control)
    return dataset, sha256_of(path)


#: Seconds the preview may take before the dialog gives up on it and says so.
PREVIEW_TIMEOUT_S = 10.0

#: What the problems line says while the first rows are being read.
READING = "reading…"


def read_preview(path: str, options: ReaderOptions, control: TaskControl | None = None) -> Preview:
    """The preview worker's task: the head of ``path`` (twenty rows are read at once, never cancelled)."""
    return preview(path, options)


def fill_table(table: QTableWidget, columns: list[str], rows: list[Any]) -> None:
    """Show rows (lists of values, or dicts keyed by column) in ``table``."""
    table.clear()
    table.setColumnCount(len(columns))
    table.setRowCount(len(rows))
    table.setHorizontalHeaderLabels([str(c) for c in columns])
    for i, row in enumerate(rows):
        values = [row.get(c) for c in columns] if isinstance(row, dict) else list(row)
        for j, value in enumerate(values[: len(columns)]):
            table.setItem(i, j, QTableWidgetItem("" if value is None else str(value)))
    table.resizeColumnsToContents()


class FilePicker(QWidget):
    """A path field with a browse button (file or folder)."""

    changed = Signal(str)

    def __init__(self, caption: str, folder: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption, self.folder = caption, folder
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("optional" if not folder else "")
        self.edit.textChanged.connect(self.changed)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)

    def _browse(self) -> None:
        start = str(Path(self.edit.text()).parent) if self.edit.text() else ""
        if self.folder:
            path = QFileDialog.getExistingDirectory(self, self.caption, start)
        else:
            path, _ = QFileDialog.getOpenFileName(self, self.caption, start, DATA_FILTER)
        if path:
            self.edit.setText(path)

    def path(self) -> str | None:
        return self.edit.text().strip() or None


class ImportDialog(QDialog):
    """Choose how to read a file, see how it will be read, import it in the background."""

    imported = Signal(object, str, dict, str)  # Dataset, path, reader options dict, SHA-256 of the input

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None, path: str | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import data")
        self.runner = runner
        self.worker: Worker | None = None
        self.dataset: Any = None
        self._timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self.update_preview)
        self.preview_worker: Worker | None = None
        self._preview_deadline = QTimer(self, singleShot=True, interval=round(PREVIEW_TIMEOUT_S * 1000))
        self._preview_deadline.timeout.connect(self._preview_timed_out)

        self.raw_table, self.parsed_table = QTableWidget(), QTableWidget()
        self.preview_tabs = QTabWidget()
        self.preview_tabs.addTab(self.raw_table, "Raw rows")
        self.preview_tabs.addTab(self.parsed_table, "As it will be read")
        self.problems = QLabel("")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #b00020")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setPlaceholderText(
            "The import report appears here: rows kept and rows rejected, per reason."
        )
        self.report.setMaximumHeight(140)
        top = QWidget()
        top_layout = QHBoxLayout(top)
        top_layout.addWidget(self._read_group())
        top_layout.addWidget(self._mapping_group(), 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(self.preview_tabs)
        layout = QVBoxLayout(self)
        layout.addLayout(self._source_row())
        layout.addWidget(split, 1)
        layout.addWidget(self.problems)
        layout.addWidget(self.progress)
        layout.addWidget(self.report)
        layout.addWidget(self._button_box())
        self._watch_reading()
        fit_to_screen(self, 1000, 720)
        if path:
            self.set_source(path)

    def _source_row(self) -> QHBoxLayout:
        """The file or folder to read, with a file and a folder picker."""
        self.source = QLineEdit()
        self.source.setPlaceholderText("a CSV / Parquet file, or a folder with one CDR file per person")
        pick_file, pick_folder = QPushButton("File…"), QPushButton("CDR folder…")
        pick_file.clicked.connect(self._pick_file)
        pick_folder.clicked.connect(self._pick_folder)
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(pick_file)
        row.addWidget(pick_folder)
        return row

    def _format_boxes(self) -> None:
        """Format, delimiter, header row, time zone (with completion) and date order."""
        self.format = QComboBox()
        self.format.addItems(FORMATS)
        self.delimiter = QComboBox()
        for text, value in DELIMITERS:
            self.delimiter.addItem(text, value)
        self.header = QCheckBox(HEADER_TEXT)
        self.header.setChecked(True)
        self.tz = QLineEdit("UTC")
        self.tz.setToolTip(
            "Time zone of the times in the file; day and week bins start at its local midnight."
        )
        completer = QCompleter(sorted(zoneinfo.available_timezones()), self.tz)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.tz.setCompleter(completer)
        self.date_order = QComboBox()
        for text, value in DATE_ORDERS:
            self.date_order.addItem(text, value)

    def _read_group(self) -> QGroupBox:
        """How to read: the format boxes, the side files and the same-place tolerance."""
        self._format_boxes()
        self.antennas = FilePicker("Antennas / locations with coordinates")
        self.hierarchy = FilePicker("Hierarchy (location, zip, district, …)")
        self.locations = FilePicker("List of all spatial units")
        self.place_tolerance = QDoubleSpinBox()
        self.place_tolerance.setRange(0.0, 10_000.0)
        self.place_tolerance.setDecimals(2)
        self.place_tolerance.setSuffix(" m")
        self.place_tolerance.setToolTip(
            "Places given by coordinates only: points closer than this (also in chains) count as one place. "
            "0 = only identical coordinates."
        )
        read = QFormLayout()
        for label, widget in (
            ("Format", self.format),
            ("Delimiter", self.delimiter),
            ("", self.header),
            ("Time zone", self.tz),
            ("Dates", self.date_order),
            ("Antennas file", self.antennas),
            ("Hierarchy file", self.hierarchy),
            ("Locations file", self.locations),
            ("Same place within", self.place_tolerance),
        ):
            read.addRow(label, widget)
        box = QGroupBox("How to read")
        box.setLayout(read)
        return box

    def _mapping_group(self) -> QGroupBox:
        """One box per column role, on (detect) until the officer chooses a column."""
        mapping_box = QGroupBox("Columns (detected unless chosen)")
        grid = QGridLayout(mapping_box)
        self.role_boxes: dict[str, QComboBox] = {}
        for k, role in enumerate(ROLES):
            box = QComboBox()
            box.addItem(AUTO)
            grid.addWidget(QLabel(role), k // 2, (k % 2) * 2)
            grid.addWidget(box, k // 2, (k % 2) * 2 + 1)
            self.role_boxes[role] = box
            box.currentIndexChanged.connect(self._schedule_preview)
        return mapping_box

    def _button_box(self) -> QDialogButtonBox:
        """Import, Cancel import and Close."""
        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton("Import", QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button = self.buttons.addButton("Cancel import", QDialogButtonBox.ButtonRole.ActionRole)
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_import)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self._close)
        return self.buttons

    def _watch_reading(self) -> None:
        """A changed source clears the column choices; every reading choice schedules a new preview."""
        self.source.textChanged.connect(self._source_changed)
        for signal in (
            self.format.currentIndexChanged,
            self.delimiter.currentIndexChanged,
            self.header.toggled,
            self.tz.editingFinished,
            self.date_order.currentIndexChanged,
            self.antennas.changed,
            self.hierarchy.changed,
            self.locations.changed,
        ):
            signal.connect(self._schedule_preview)

    # -- inputs ------------------------------------------------------------------------------------
    def set_source(self, path: str, antennas: str | None = None, hierarchy: str | None = None) -> None:
        """Point the dialog at a file or folder (and optional side files); the preview follows."""
        self.antennas.edit.setText(antennas or "")
        self.hierarchy.edit.setText(hierarchy or "")
        self.source.setText(path)
        self.update_preview()

    def _pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Data file", "", DATA_FILTER)
        if path:
            self.set_source(path)

    def _pick_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder of per-user CDR files")
        if path:
            self.set_source(path)

    def _source_changed(self) -> None:
        for box in self.role_boxes.values():
            box.blockSignals(True)
            box.clear()
            box.addItem(AUTO)
            box.blockSignals(False)
        self._schedule_preview()

    def options(self) -> ReaderOptions:
        """The reader options the dialog shows (``ValueError`` with a readable text if inconsistent)."""
        dayfirst, monthfirst = self.date_order.currentData()
        mapping = {role: box.currentText() for role, box in self.role_boxes.items() if box.currentIndex() > 0}
        columns = None
        if not self.header.isChecked():  # no names in the file: the boxes' choices give each column's role
            box = self.role_boxes["user"]
            columns = headerless_roles(mapping, [box.itemText(i) for i in range(1, box.count())])
            mapping = {}
        tz = self.tz.text().strip() or "UTC"
        try:
            zoneinfo.ZoneInfo(tz)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown time zone {tz!r} (use an IANA name such as Europe/Paris or UTC)"
            ) from None
        return ReaderOptions(
            format=self.format.currentText(),
            delimiter=self.delimiter.currentData(),
            header=self.header.isChecked(),
            columns=columns,
            mapping=mapping,
            tz=tz,
            dayfirst=dayfirst,
            monthfirst=monthfirst,
            antennas=self.antennas.path(),
            hierarchy=self.hierarchy.path(),
            locations=self.locations.path(),
            place_tolerance_m=self.place_tolerance.value(),
        )

    # -- preview -----------------------------------------------------------------------------------
    def _schedule_preview(self, *_: Any) -> None:
        self._timer.start()

    @property
    def preview_running(self) -> bool:
        return self.preview_worker is not None

    def update_preview(self) -> Worker | None:
        """Start reading the first rows with the current options (replacing a preview still running)."""
        self._timer.stop()
        self._forget_preview()
        path = self.source.text().strip()
        if not path:
            return None
        try:
            options = self.options()
        except ValueError as exc:
            self._clear_preview(in_dialog_terms(readable_error(exc)))
            return None
        worker = Worker(read_preview, path, options, name="preview")
        worker.background = True  # the dialog shows its own "reading…"; a status-bar entry would only flicker
        # bound slots, not lambdas: Qt drops them when the dialog is deleted before a slow read returns
        worker.signals.finished.connect(self._show_preview)
        worker.signals.failed.connect(self._preview_failed)
        self.preview_worker = worker
        self.problems.setText(READING)
        self._preview_deadline.start()
        return self.runner.start(worker, kind="preview")

    def _forget_preview(self) -> None:
        """Stop waiting for the running preview: whatever it returns later is ignored."""
        self._preview_deadline.stop()
        if self.preview_worker is not None:
            self.preview_worker.cancel()
            self.preview_worker = None

    def _preview_timed_out(self) -> None:
        if self.preview_worker is None:
            return
        self._forget_preview()
        self._clear_preview(
            f"Gave up reading the first rows after {PREVIEW_TIMEOUT_S:g} s: the file is on a slow or blocked "
            "device, or is not a plain file; copy it to a local disk and choose it again."
        )

    def _is_current_preview(self) -> bool:
        """Whether the signal being handled comes from the newest preview (older ones are ignored)."""
        return self.preview_worker is not None and self.sender() is self.preview_worker.signals

    @Slot(str, str)
    def _preview_failed(self, message: str, _details: str) -> None:
        if self._is_current_preview():
            self._forget_preview()
            self._clear_preview(in_dialog_terms(message))

    def _clear_preview(self, message: str) -> None:
        self.problems.setText(message)
        fill_table(self.raw_table, [], [])
        fill_table(self.parsed_table, [], [])

    @Slot(object)
    def _show_preview(self, result: Preview) -> None:
        """Show the rows raw and as read, the detected columns and the problems (only the newest preview)."""
        if not self._is_current_preview():
            return
        self._forget_preview()
        columns = [str(c) for c in result.columns]
        fill_table(self.raw_table, columns, list(result.raw_rows))
        parsed = list(result.parsed_rows)
        fill_table(self.parsed_table, list(parsed[0]) if parsed else [], parsed)
        self._offer_columns(columns, dict(result.mapping or {}))
        if self.format.currentText() == "auto":
            self.format.setToolTip(f"detected: {result.detected_format}")
        problems = [in_dialog_terms(str(p)) for p in result.problems or []]
        if self.header.isChecked() and any("no user column" in p for p in problems):
            problems.append(f'If the first row is data ({", ".join(columns[:3])} …), untick "{HEADER_TEXT}".')
        self.problems.setText("\n".join(problems))

    def _offer_columns(self, columns: list[str], detected: dict[str, str]) -> None:
        """List the file's columns in every role box, keeping choices; show the detection as a hint."""
        for role, box in self.role_boxes.items():
            if [box.itemText(i) for i in range(1, box.count())] != columns:
                chosen = box.currentText()
                box.blockSignals(True)
                box.clear()
                box.addItem(AUTO)
                box.addItems(columns)
                box.setCurrentText(chosen if chosen in columns else AUTO)
                box.blockSignals(False)
            box.setItemText(0, f"{AUTO} → {detected[role]}" if role in detected else AUTO)

    # -- import ------------------------------------------------------------------------------------
    def start_import(self) -> Worker | None:
        """Read the whole input in a worker; ``imported`` is emitted when it is done."""
        path = self.source.text().strip()
        if not path:
            self.problems.setText("Choose a file or a folder to import.")
            return None
        try:
            options = self.options()
        except ValueError as exc:
            self.problems.setText(str(exc))
            return None
        self.problems.setText("")
        self.report.setPlainText("Importing…")
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.import_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        worker = Worker(load_and_hash, path, options, name="import")
        worker.signals.progress.connect(self._on_progress)
        worker.signals.finished.connect(lambda result: self._on_imported(*result, path, options))
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)
        self.worker = worker
        self.runner.start(worker)
        return worker

    def cancel_import(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _on_progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(fraction * 1000))
        self.progress.setFormat(f"{message} %p%" if message else "%p%")

    def _finish(self) -> None:
        self.worker = None
        self.import_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)

    def _on_imported(self, dataset: Any, sha256: str, path: str, options: ReaderOptions) -> None:
        self._finish()
        self.dataset = dataset
        self.report.setPlainText(dataset.report.summary_text())
        self.imported.emit(dataset, path, options.to_dict(), sha256)

    def _on_failed(self, message: str, _details: str) -> None:
        self._finish()
        self.report.setPlainText(f"Import failed: {in_dialog_terms(message)}")

    def _on_cancelled(self, _items: Any) -> None:
        self._finish()
        self.report.setPlainText("Import cancelled; nothing was changed.")

    def _close(self) -> None:
        self.cancel_import()
        self._forget_preview()
        self.accept() if self.dataset is not None else self.reject()
