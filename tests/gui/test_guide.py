"""A newcomer is guided and never loses work: start page, toolbar, 'Import data first', new project."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from privacy_studio.gui.results import records_of
from privacy_studio.gui.start_page import SAMPLE_PROJECT
from tests.gui.project_files import open_and_wait, save_and_wait

from .test_flow import RUN_TIMEOUT, tick_cells


def test_start_page_until_there_is_data(window, qtbot, tmp_path):
    assert window.steps.current == "data" and window.data_page.currentWidget() is window.start_page
    assert window.start_page.sample_button.isEnabled() == SAMPLE_PROJECT.exists()
    assert not window.start_page.recent.isVisibleTo(window.start_page), "no recent projects yet"
    window._remember(tmp_path / "earlier.psproj")
    window._show_start_or_tabs()
    assert window.start_page.recent.count() == 1
    if SAMPLE_PROJECT.exists():
        window.start_page.sample_button.click()
        qtbot.waitUntil(lambda: window.steps.current == "grid", timeout=30_000)  # read in a worker
        assert window.windowTitle().startswith("sample.psproj"), "the title names the opened project"
        qtbot.waitUntil(lambda: window.session.dataset is not None, timeout=120_000)


def test_run_and_cancel_are_always_in_the_toolbar(window):
    actions = window.toolbar.actions()
    assert window.run_action in actions and window.cancel_action in actions
    assert window.toolbar.isVisible() and not window.toolbar.isMovable()
    assert window.run_action.isEnabled() and not window.cancel_action.isEnabled()


def test_run_without_data_says_import_data_first(window):
    window.run_action.trigger()
    assert window.grid.message.text().startswith("Import data first")
    assert window.run_worker is None


def test_importing_with_a_project_open_starts_a_new_one(imported_window, qtbot, sample_subset, tmp_path):
    win = imported_window
    win.start_run(tick_cells(win, (("district", "1w"),)))
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    saved = tmp_path / "first.psproj"
    assert save_and_wait(qtbot, win, saved)
    first_results = list(win.session.project.results)
    dialog = win.show_import()
    dialog.set_source(str(sample_subset["events"]), antennas=str(sample_subset["antennas"]))
    dialog.tz.setText("Europe/Paris")
    with qtbot.waitSignal(dialog.imported, timeout=120_000):
        dialog.start_import()
    project = win.session.project
    assert project.path is None and project.name == "events", "a new project named after the data"
    assert project.results == [] and win.windowTitle().startswith("events")
    assert any("new project" in text for _, text in win.log_panel.lines)
    from privacy_studio.core.project import Project
    from privacy_studio.core.user_keys import keyed_results

    earlier = Project.load(saved)  # saved per-user results name users by salted keys (issue #24)
    expected = keyed_results(records_of(first_results), earlier.analyses["user_keys"]["salt"])
    assert records_of(earlier.results) == expected, "the earlier project is untouched"


def test_import_is_not_started_when_the_user_keeps_unsaved_work(imported_window, monkeypatch):
    win = imported_window
    assert win.session.dirty
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Cancel)
    before = win.session.project
    assert win.show_import() is None
    assert win.session.project is before


def test_everything_fits_at_1280_by_720(window, qtbot):
    window.resize(1280, 720)
    qtbot.wait(50)
    assert window.width() <= 1280 and window.height() <= 720
    bar = window.tabs.tabBar()
    assert window.tabs.usesScrollButtons(), "tabs beyond the width stay reachable"
    assert bar.count() == window.tabs.count()
    dialog = window.show_import()
    screen = dialog.screen().availableGeometry()
    assert dialog.height() < screen.height() and dialog.width() <= screen.width()
    assert dialog.minimumSizeHint().height() <= 0.92 * 720, "the import dialog fits a 720-pixel screen"
    dialog.close()


def test_project_title_right_after_opening(window, tmp_path, qtbot):
    from privacy_studio.core.project import Project

    path = Project(name="Bank cards 2024").save(tmp_path / "cards.psproj")
    assert open_and_wait(qtbot, window, path)
    assert window.windowTitle().startswith(Path(path).name)
