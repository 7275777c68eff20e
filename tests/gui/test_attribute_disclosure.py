"""The window's attribute-disclosure flow: choose the user-attributes file in the Grid tab, tick a
sensitive column, run, and find the core's figures in the project; the choice survives save and reopen."""

from __future__ import annotations

import shutil

from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.gui.results import records_of
from tests.gui.conftest import SAMPLE
from tests.gui.project_files import open_and_wait, save_and_wait
from tests.gui.test_flow import run_and_wait, tick_cells, without_timings


def tick(box, column: str) -> None:
    from PySide6.QtCore import Qt

    item = next(
        box.columns.item(i) for i in range(box.columns.count()) if box.columns.item(i).text() == column
    )
    item.setCheckState(Qt.CheckState.Checked)


def test_sensitive_attribute_chosen_in_the_grid_tab_is_measured_and_kept(
    imported_window, qtbot, tmp_path, qsettings, warnings_shown
):
    from privacy_studio.gui.main_window import MainWindow

    win = imported_window
    box = win.grid.attribute_box
    attributes = tmp_path / "attributes.csv"
    shutil.copy(SAMPLE / "attributes.csv", attributes)
    assert win.session.project.attributes_source() is None
    with qtbot.waitSignal(box.file_chosen):
        box.file_chosen.emit(
            str(attributes)
        )  # what the "User attributes…" button emits once a file is picked
    assert [box.columns.item(i).text() for i in range(box.columns.count())] == [
        "gender", "age_band", "income_band", "customer_type",
    ]  # fmt: skip
    assert win.session.project.attributes_source().path == str(attributes)
    tick(box, "income_band")
    box.l_div.setValue(2)
    settings = tick_cells(win)
    assert settings["sensitive"] == ["income_band"] and settings["l_diversity"] == 2
    run_and_wait(qtbot, win, settings)
    stored = records_of(win.session.project.results)
    assert stored and all(r["attributes"] for r in stored)
    expected = [
        r.to_dict()
        for r in run_grid(
            win.session.dataset, RiskSettings.from_dict({**settings, "attributes": str(attributes)})
        )
    ]
    assert without_timings(stored) == without_timings(expected)
    win.runner.wait(60_000)
    assert not win.choose_attributes(str(tmp_path / "missing.csv"))  # one clear message, nothing changed
    assert "cannot read the user-attributes file" in warnings_shown[-1]
    assert win.session.project.attributes_source().path == str(attributes)

    path = tmp_path / "p.psproj"
    assert save_and_wait(qtbot, win, path)
    other = MainWindow(qsettings)
    qtbot.addWidget(other)
    assert open_and_wait(qtbot, other, path)
    assert other.grid.attribute_box.sensitive() == ["income_band"]
    assert other.grid.attribute_box.l_div.value() == 2
    assert other.grid.attribute_box.columns.count() == 4
    qtbot.waitUntil(lambda: other.session.dataset is not None, timeout=120_000)
    other.session.set_dirty(False)
    other.runner.cancel_all()
    other.runner.wait(60_000)
