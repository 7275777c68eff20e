"""What the release and aggregate dialogs share: a preview and a write that each run in the window's task
runner, with progress, cancel, and the buttons and message that follow them."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QProgressBar, QPushButton

from privacy_studio.gui.workers import TaskRunner, Worker


class WorkerDialog(QDialog):
    """A dialog whose preview and write are workers; subclasses build ``problems``, ``progress`` and the
    preview, write and cancel buttons, and say when writing is allowed (:meth:`_write_allowed`)."""

    runner: TaskRunner
    worker: Worker | None
    problems: QLabel
    progress: QProgressBar
    preview_button: QPushButton
    write_button: QPushButton
    cancel_button: QPushButton

    def _button_row(self, write_text: str) -> QHBoxLayout:
        """The progress bar, then Preview, the write button (``write_text``), Cancel and Close."""
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setVisible(False)
        self.preview_button = QPushButton("Preview")
        self.preview_button.clicked.connect(self.start_preview)
        self.write_button = QPushButton(write_text)
        self.write_button.setEnabled(False)
        self.write_button.clicked.connect(self.start_write)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        close = QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress, 1)
        for button in (self.preview_button, self.write_button, self.cancel_button, close):
            buttons.addWidget(button)
        return buttons

    def start_preview(self) -> Worker | None:
        """Prepare what would be written, in a worker."""
        raise NotImplementedError

    def start_write(self) -> Worker | None:
        """Write what was previewed, in a worker."""
        raise NotImplementedError

    def cancel(self) -> None:
        """Cancel the running preview or write."""
        if self.worker is not None:
            self.worker.cancel()

    def _write_allowed(self) -> bool:
        """Whether Write may be pressed once no worker runs."""
        raise NotImplementedError

    def _start(self, worker: Worker, on_finished: Any) -> Worker:
        """Run ``worker`` with progress in the dialog; preview and write wait until it ends."""
        self.problems.setText("")
        self.progress.setValue(0)
        self.progress.setVisible(True)
        for button in (self.preview_button, self.write_button):
            button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        worker.signals.progress.connect(
            lambda f, m: (self.progress.setValue(round(f * 1000)), self.progress.setFormat(f"{m} %p%"))
        )
        worker.signals.finished.connect(on_finished)
        worker.signals.failed.connect(lambda message, _trace: self._stop(message))
        worker.signals.cancelled.connect(lambda _items: self._stop("Cancelled: nothing was written."))
        self.worker = worker
        return self.runner.start(worker)

    def _stop(self, problem: str = "") -> None:
        """The worker ended (``problem`` says why when it did not finish): buttons back, the reason shown."""
        self.worker = None
        self.progress.setVisible(False)
        self.cancel_button.setEnabled(False)
        self.preview_button.setEnabled(True)
        self.write_button.setEnabled(self._write_allowed())
        self.problems.setText(problem)
