"""The engine choice in the run settings: stored in the project, used by the run, same numbers on DuckDB."""

from __future__ import annotations

import pytest

from privacy_studio.core.project import Project
from privacy_studio.gui.main_window import MainWindow
from privacy_studio.gui.results import records_of
from tests.engines.helpers import assert_worst_at_least
from tests.gui.project_files import open_and_wait

from .test_flow import expected_records, run_and_wait, tick_cells

#: What every engine reports identically for the same seed (EM/KL may be absent on relational engines).
#: The numba engine's worst case comes from a targeted search, never below the others' (tests/engines).
SAME_ON_EVERY_ENGINE = ("p", "unicity", "unicity_ci", "k_disclosure", "class_sizes", "n_draws")


def choose_engine(window: MainWindow, name: str) -> None:
    box = window.grid.engine_box
    box.engine.setCurrentIndex(box.engine.findData(name))


def test_engine_box_enables_only_the_options_an_engine_uses(window) -> None:
    box = window.grid.engine_box
    assert box.choice()["name"] == "numba" and not box.memory_limit.isEnabled()
    choose_engine(window, "spark")
    assert box.spark_master.isEnabled() and box.memory_limit.isEnabled()
    choose_engine(window, "duckdb")
    assert not box.spark_master.isEnabled() and box.temp_dir.isEnabled()
    box.memory_limit.setText(" 2GB ")
    box.memory_limit.editingFinished.emit()
    assert window.session.project.engine == {
        "name": "duckdb",
        "memory_limit": "2GB",
        "temp_dir": None,
        "spark_master": None,
    }
    assert window.session.dirty


def test_memory_limit_field_takes_only_sizes(window, qtbot) -> None:
    box = window.grid.engine_box
    choose_engine(window, "duckdb")
    box.memory_limit.clear()
    qtbot.keyClicks(box.memory_limit, "banana")
    assert box.memory_limit.text() == ""  # letters that cannot lead to a size are not taken
    box.memory_limit.clear()
    qtbot.keyClicks(box.memory_limit, "1.5GiB")
    assert box.memory_limit.text() == "1.5GiB" and box.memory_limit.hasAcceptableInput()


@pytest.mark.slow
def test_duckdb_run_from_the_window_matches_the_in_memory_engine(imported_window, qtbot, tmp_path) -> None:
    win = imported_window
    settings = tick_cells(win, cells=(("district", "1w"), ("antenna", "1h")))
    choose_engine(win, "duckdb")
    run_and_wait(qtbot, win, settings)
    assert any("on the duckdb engine" in text for _, text in win.log_panel.lines)
    records = records_of(win.session.project.results)
    expected = expected_records(win, settings)  # DuckDB ends in the same run_profile: exact where cheap too
    assert [r["label"] for r in records] == [r["label"] for r in expected]
    for got, want in zip(records, expected, strict=True):
        for g, w in zip(got["by_p"], want["by_p"], strict=True):
            assert {k: g[k] for k in SAME_ON_EVERY_ENGINE} == {k: w[k] for k in SAME_ON_EVERY_ENGINE}
        assert_worst_at_least(want, got)

    path = win.session.save(tmp_path / "engine.psproj")
    assert Project.load(path).engine_choice().name == "duckdb"
    win.session.set_dirty(False)
    choose_engine(win, "numba")
    win.session.set_dirty(False)
    assert open_and_wait(qtbot, win, path)
    assert win.grid.engine_box.choice()["name"] == "duckdb"
