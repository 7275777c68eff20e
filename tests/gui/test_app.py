"""Starting the studio as the command line does: the window opens on the project given, then closes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from privacy_studio.gui.app import READY_FILE, run_app
from privacy_studio.gui.main_window import MainWindow

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"


def test_run_app_opens_the_project_given_and_returns_on_close(qtbot, tmp_path, monkeypatch, warnings_shown):
    if not SAMPLE.exists():
        pytest.skip("sample_data/sample.psproj is missing")
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", os.environ.get("NUMBA_CACHE_DIR", str(tmp_path / "numba")))
    ready = tmp_path / "ready"
    monkeypatch.setenv(READY_FILE, str(ready))  # what benchmarks/bench_wait.py times the start with
    seen: dict[str, object] = {}

    def close_when_loaded() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        window = windows[-1] if windows else None
        if window is None or window.session.dataset is None or window.runner.active:
            QTimer.singleShot(100, close_when_loaded)
            return
        seen["path"] = window.session.path
        seen["ready while shown"] = ready.exists()
        seen["log"] = list(window.log_panel.lines)
        window.close()

    QTimer.singleShot(100, close_when_loaded)
    assert run_app([str(SAMPLE)]) == 0
    assert Path(seen["path"]) == SAMPLE
    assert seen["ready while shown"]
    assert ("info", "Risk engine ready") in seen["log"]
    assert warnings_shown == []
