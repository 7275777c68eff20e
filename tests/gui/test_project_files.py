"""Saving and opening run in the task runner (issue #27 point 2): progress and cancel, the old file intact
after a cancelled save, the window unchanged until an opened project is whole."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QMessageBox

from privacy_studio.core.project import Project
from tests.gui.project_files import WAIT_MS, open_and_wait, save_and_wait, settle


def held(monkeypatch, cls, name: str) -> threading.Event:
    """Make ``cls.name`` wait in its worker until the returned event is set (a slow save or open)."""
    original = getattr(cls, name)
    go = threading.Event()

    def waiting(*args, **kwargs):
        go.wait(30)
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, waiting)
    return go


def rename(window, name: str) -> None:
    """An edit as Project › Report details makes it."""
    from privacy_studio.core.report_details import ReportDetails

    window.session.set_report_details(name, ReportDetails.of(window.session.project.analyses))


def test_save_runs_in_the_task_runner_and_a_cancelled_save_keeps_the_old_file(
    window, qtbot, tmp_path, monkeypatch
):
    path = tmp_path / "kept.psproj"
    assert save_and_wait(qtbot, window, path)
    before = path.read_bytes()
    rename(window, "second")
    go = held(monkeypatch, Project, "to_dict")
    worker = window.save()
    assert worker is not None and worker in window.runner.active and worker.name == "save project"
    assert window.cancel_button.isVisible(), "a save shows in the status bar with Cancel"
    window.cancel_shown()
    go.set()
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)
    assert not worker.succeeded
    assert path.read_bytes() == before, "a cancelled save leaves the earlier file as it was"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ps-tmp-")]
    assert window.session.dirty
    assert any("Save cancelled" in text for _level, text in window.log_panel.lines), window.log_panel.lines


def test_an_edit_made_while_saving_keeps_the_project_unsaved(window, qtbot, tmp_path, monkeypatch):
    go = held(monkeypatch, Project, "to_dict")
    worker = window._save_to(tmp_path / "p.psproj")
    rename(window, "typed while the file is written")
    go.set()
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)
    assert worker.succeeded and (tmp_path / "p.psproj").exists()
    assert window.session.dirty, "the edit is not in the file"


def test_closing_with_save_waits_for_the_save_and_keeps_the_loop_turning(
    window, qtbot, tmp_path, monkeypatch
):
    path = tmp_path / "closing.psproj"
    assert save_and_wait(qtbot, window, path)
    rename(window, "renamed before closing")
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Save)
    assert window.maybe_save()
    assert not window.session.dirty
    assert Project.load(path).name == "renamed before closing"


def test_open_changes_nothing_until_the_project_is_read_and_checked(window, qtbot, tmp_path, monkeypatch):
    settings = {"spatial": ["district"], "temporal": ["1w"], "samples": 77}
    path = Project(name="Opened later", settings=settings).save(tmp_path / "later.psproj")
    go = held(monkeypatch, Project, "load")
    worker = window.open_project(path)
    assert worker is not None and worker.name == "open project"
    assert window.session.project.name == "Untitled", "nothing is swapped in before the file is checked"
    go.set()
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)
    assert window.session.project.name == "Opened later"
    assert window.grid.samples.value() == 77
    assert not window.session.dirty


def test_a_cancelled_open_leaves_the_open_project(window, qtbot, tmp_path, monkeypatch):
    path = Project(name="Never shown").save(tmp_path / "never.psproj")
    go = held(monkeypatch, Project, "load")
    assert window.open_project(path) is not None
    window.cancel_shown()
    go.set()
    settle(window)
    assert window.session.project.name == "Untitled"
    assert any("cancelled" in text for _level, text in window.log_panel.lines)
    assert open_and_wait(qtbot, window, path), "and it opens when asked again"
