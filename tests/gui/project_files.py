"""Saving and opening through the window as a user does: the worker started, then waited for."""

from __future__ import annotations

from pathlib import Path

WAIT_MS = 120_000


def save_and_wait(qtbot, window, path: Path) -> bool:
    """Save the window's project to ``path`` in its task runner once the window's other work is over (an
    edit arriving during the save leaves the project unsaved); whether the save finished."""
    settle(window)
    worker = window._save_to(path)
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)  # its signals are in
    return not window.session.dirty and window.session.path == Path(path)


def open_and_wait(qtbot, window, path, data: bool = False) -> bool:
    """Open ``path`` in the window (and with ``data``, wait for its data too); whether it was swapped in."""
    worker = window.open_project(path)
    if worker is None:
        return False
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)  # its signals are in
    opened = window.session.path is not None and Path(window.session.path) == Path(path)
    if opened and data:
        qtbot.waitUntil(lambda: window.session.dataset is not None, timeout=WAIT_MS)
    return opened


def settle(window) -> None:
    """Wait for the window's workers and deliver their signals (for actions that return no worker)."""
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # timers due now (a run's end analyses its results once the loop turns)
    while window.runner.active:
        window.runner.wait(WAIT_MS)
        QApplication.processEvents()
    QApplication.processEvents()  # what the last workers' signals queued
