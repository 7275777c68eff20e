"""GUI tests run on Qt's offscreen platform: set before anything imports Qt."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest


@pytest.fixture
def qsettings(tmp_path):
    """QSettings in a temporary INI file, so tests never touch the user's settings."""
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
SUBSET_USERS = 200


@pytest.fixture(scope="session")
def sample_subset(tmp_path_factory) -> dict[str, Path]:
    """The first 200 people of the sample city's events, with its antennas and hierarchy files."""
    if not (SAMPLE / "events.csv").exists():
        pytest.skip("sample_data/events.csv is missing")
    folder = tmp_path_factory.mktemp("sample")
    users: set[str] = set()
    with (SAMPLE / "events.csv").open(encoding="utf-8") as src, (folder / "events.csv").open("w") as out:
        out.write(src.readline())
        for line in src:
            user = line.split(",", 1)[0]
            if user not in users and len(users) >= SUBSET_USERS:
                continue
            users.add(user)
            out.write(line)
    for name in ("antennas.csv", "hierarchy.csv"):
        shutil.copy(SAMPLE / name, folder / name)
    return {name: folder / f"{name}.csv" for name in ("events", "antennas", "hierarchy")}


@pytest.fixture
def warnings_shown(monkeypatch) -> list[str]:
    """Texts of the warning boxes the window would show (recorded instead of blocking the test).

    Questions are answered "Discard" unless a test says otherwise, so closing never waits for a click.
    """
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *a: shown.append(text))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    return shown


@pytest.fixture
def window(qtbot, qsettings, warnings_shown):
    """A shown main window with temporary settings; its workers are stopped at the end."""
    from privacy_studio.gui.main_window import MainWindow

    win = MainWindow(qsettings)
    qtbot.addWidget(win)
    win.show()
    yield win
    win.session.set_dirty(False)
    win.runner.cancel_all()
    win.runner.wait(60_000)


@pytest.fixture
def imported_window(window, qtbot, sample_subset):
    """The main window after importing the sample subset through the import dialog."""
    dialog = window.show_import()
    dialog.set_source(
        str(sample_subset["events"]),
        antennas=str(sample_subset["antennas"]),
        hierarchy=str(sample_subset["hierarchy"]),
    )
    dialog.tz.setText("Europe/Paris")
    with qtbot.waitSignal(dialog.imported, timeout=120_000):
        dialog.start_import()
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=30_000)
    return window
