"""The window's status bar: the shown task's name, progress, time left and Cancel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from privacy_studio.gui.workers import Worker, format_duration

if TYPE_CHECKING:
    pass


class StatusBar:
    """Mixin of ``MainWindow``: follows the task runner's tasks in the status bar."""

    def _build_status_bar(self) -> None:
        """The shown task's text, progress, time left and Cancel (hidden while nothing runs)."""
        self.status_label = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.eta_label = QLabel("")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running computation at its next step (Esc)")
        self.cancel_button.clicked.connect(self.cancel_shown)
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        for widget in (self.progress, self.eta_label, self.cancel_button):
            bar.addPermanentWidget(widget)

    def cancel_shown(self) -> None:
        """Cancel the task the status bar shows (a run, a data read, an analysis); the button says so
        until the task stops at its next step."""
        if self.status_worker is not None and not self.status_worker.is_cancelled:
            self.status_worker.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.cancel_action.setEnabled(False)
            self.cancel_action.setText("Cancelling…")
            self.status_label.setText(f"{self.status_worker.name}: cancelling at the next step…")

    @Slot(object)
    def _track_status(self, worker: Worker) -> None:
        if worker.background:
            return
        self.status_worker = worker
        worker.signals.progress.connect(lambda f, m, w=worker: self._on_progress(w, f, m))
        worker.signals.done.connect(self._status_done)
        self.status_label.setText(f"{worker.name}…")
        self.progress.setValue(0)
        self.eta_label.setText("")
        self._show_busy(True)

    def _on_progress(self, worker: Worker, fraction: float, message: str) -> None:
        if worker is not self.status_worker:
            return
        self.progress.setValue(round(fraction * 1000))
        self.status_label.setText(f"{worker.name}: {message}" if message else worker.name)
        remaining = worker.eta.remaining(fraction)
        self.eta_label.setText("" if remaining is None else f"{format_duration(remaining)} left")

    @Slot(object)
    def _status_done(self, worker: Worker) -> None:
        if worker is self.status_worker:
            self.status_worker = None
            self._show_busy(False)

    def _show_busy(self, busy: bool) -> None:
        for widget in (self.progress, self.eta_label, self.cancel_button):
            widget.setVisible(busy)
        self.cancel_button.setEnabled(busy)
        self.cancel_button.setText("Cancel")
        self.cancel_action.setEnabled(busy)
        self.cancel_action.setText("&Cancel")
