"""At 1280×720 every step and every dialog fits: no widget outside its window, no sideways scrolling."""

from __future__ import annotations

from privacy_studio.core.report_details import ReportDetails
from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog
from privacy_studio.gui.screen_fit import on_screen
from privacy_studio.gui.steps import IMPORT_FIRST, KEYS, RUN_FIRST, TICK_FIRST

from .fit import cut_off
from .test_flow import RUN_TIMEOUT, tick_cells

SIZE = (1280, 720)


def _settle(qtbot) -> None:
    qtbot.wait(150)


def _walk(window, qtbot, when: str) -> dict[str, list[str]]:
    """Show every step (and every tab of the Run step) and collect what is cut off in each."""
    found: dict[str, list[str]] = {}
    for key in KEYS:
        window.show_step(key)
        _settle(qtbot)
        found[f"{when}: {key}"] = cut_off(window)
    window.show_step("run")
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        _settle(qtbot)
        found[f"{when}: run › {window.tabs.tabText(i)}"] = cut_off(window)
    return {where: problems for where, problems in found.items() if problems}


def test_cut_off_finds_a_squeezed_and_a_sideways_scrolling_widget(qtbot):
    """The checker itself: a label wider than its window and a scroll area scrolling sideways are found."""
    from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

    top = QWidget()
    qtbot.addWidget(top)
    label = QLabel("a long line of text that cannot wrap " * 4, top)
    area = QScrollArea(top)
    inner = QWidget()
    inner.setMinimumWidth(2000)
    area.setWidget(inner)
    QVBoxLayout(top).addWidget(area)
    top.resize(300, 200)
    top.show()
    _settle(qtbot)
    label.move(0, 0)
    label.resize(label.sizeHint())
    problems = cut_off(top)
    assert any("reaches outside the window" in p and "QLabel" in p for p in problems)
    assert any("horizontal scroll bar" in p for p in problems)


def test_every_step_and_dialog_fits_at_1280_by_720(window, qtbot, sample_subset):
    window.resize(*SIZE)
    _settle(qtbot)
    assert (window.width(), window.height()) == SIZE
    problems = _walk(window, qtbot, "no data")
    window.show_step("grid")
    assert window.steps.pages["grid"].banner.text() == IMPORT_FIRST
    assert window.steps.bar.isVisible()

    dialog = window.show_import()
    dialog.set_source(
        str(sample_subset["events"]),
        antennas=str(sample_subset["antennas"]),
        hierarchy=str(sample_subset["hierarchy"]),
    )
    dialog.tz.setText("Europe/Paris")
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=30_000)
    _settle(qtbot)
    problems["import dialog"] = cut_off(dialog)
    with qtbot.waitSignal(dialog.imported, timeout=120_000):
        dialog.start_import()
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=30_000)
    dialog.close()
    assert window.steps.current == "grid", "imported data opens the grid"
    assert window.steps.pages["run"].banner.text() == TICK_FIRST, "the grid's cells start unticked"
    settings = tick_cells(window)
    assert window.steps.pages["run"].banner.text() == RUN_FIRST
    problems.update(_walk(window, qtbot, "data, no run"))

    worker = window.start_run(settings)
    assert worker is not None and window.steps.current == "run"
    qtbot.waitUntil(lambda: window.run_worker is None, timeout=RUN_TIMEOUT)
    assert all(not window.steps.pages[key].banner.isVisible() for key in KEYS)
    problems.update(_walk(window, qtbot, "after a run"))

    release = window.export_release()
    release.resize(*on_screen(*release.SIZE, *SIZE))  # as it opens on a 1280×720 screen
    release.start_preview()
    qtbot.waitUntil(lambda: release.preview_table.rowCount() > 0, timeout=120_000)
    _settle(qtbot)
    problems["release dialog"] = cut_off(release)
    release.close()

    details = ReportDetailsDialog(window.session.project.name, ReportDetails(), window)
    details.show()
    _settle(qtbot)
    problems["report details dialog"] = cut_off(details)
    details.close()
    assert {where: found for where, found in problems.items() if found} == {}
