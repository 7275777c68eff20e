"""Opening a broken project in the window: one message box, and the window stays exactly as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.faults.test_bad_projects import DOCUMENT_CHANGES, RAW_DOCUMENTS, SAMPLE
from tests.gui.project_files import settle

#: Damages the window handles without refusing: it asks where a missing input went and opens the rest.
RELOCATABLE = {"source_missing", "source_folder_missing"}


def _write_damaged(name: str, folder: Path) -> Path:
    """The sample project with damage ``name`` (from the fault suite's table), beside links to its data."""
    project = folder / "broken.psproj"
    if name in RAW_DOCUMENTS:
        project.write_bytes(RAW_DOCUMENTS[name])
        return project
    for side in ("events.csv", "attributes.csv", "antennas.csv", "hierarchy.csv"):
        os.symlink(SAMPLE.parent / side, folder / side)
    document = DOCUMENT_CHANGES[name](json.loads(SAMPLE.read_text()))
    project.write_text(json.dumps(document))
    return project


def _state(window) -> tuple:
    """What a failed open must not change: title, project object and its content, grid and engine choice."""
    project = window.session.project
    return (
        window.windowTitle(),
        id(project),
        json.dumps(project.to_dict(), sort_keys=True, default=str),
        json.dumps(window.grid.settings(), sort_keys=True, default=str),
        window.session.path,
        window.session.dirty,
    )


def _assert_refused(window, warnings_shown, path: Path) -> None:
    before = _state(window)
    window.open_project(path)
    settle(window)
    assert len(warnings_shown) == 1, warnings_shown
    assert "\n" not in warnings_shown[0].strip() and "Traceback" not in warnings_shown[0]
    assert _state(window) == before
    assert not window.runner.active


def test_a_fifo_as_the_projects_source_is_refused_without_waiting(window, warnings_shown, tmp_path):
    fifo = tmp_path / "events.csv"
    os.mkfifo(fifo)
    document = json.loads(SAMPLE.read_text())
    document["sources"][0]["path"] = str(fifo)
    project = tmp_path / "fifo.psproj"
    project.write_text(json.dumps(document))
    _assert_refused(window, warnings_shown, project)
    assert "fifo" in warnings_shown[0].lower() or "pipe" in warnings_shown[0].lower()


@pytest.mark.parametrize("name", sorted((set(DOCUMENT_CHANGES) | set(RAW_DOCUMENTS)) - RELOCATABLE))
def test_every_damage_of_the_fault_table_is_refused_by_the_window(window, warnings_shown, tmp_path, name):
    _assert_refused(window, warnings_shown, _write_damaged(name, tmp_path))


@pytest.mark.parametrize("error", [OSError(5, "Input/output error"), ValueError("p_max must be >= 1")])
def test_an_unexpected_read_error_is_a_message_too(window, warnings_shown, tmp_path, monkeypatch, error):
    from privacy_studio.core.project import Project

    def fail(_path):
        raise error

    monkeypatch.setattr(Project, "load", fail)
    _assert_refused(window, warnings_shown, tmp_path / "any.psproj")


def test_the_recent_files_menu_goes_through_the_same_checks(window, warnings_shown, tmp_path):
    broken = _write_damaged("settings_list", tmp_path)
    window._remember(broken)
    before = _state(window)
    window.recent_menu.actions()[0].trigger()
    settle(window)
    assert len(warnings_shown) == 1 and _state(window) == before


def test_the_command_line_path_goes_through_the_same_checks(window, warnings_shown, tmp_path):
    broken = _write_damaged("huge_integer", tmp_path)
    before = _state(window)
    window.open_path(broken)
    settle(window)
    assert len(warnings_shown) == 1 and _state(window) == before
