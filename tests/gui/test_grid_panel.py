"""The granularity grid: levels added and removed, cells ticked, settings out and back in."""

from __future__ import annotations

import pytest

from privacy_studio.gui.panels.grid_panel import GridPanel


@pytest.fixture
def grid(qtbot):
    panel = GridPanel()
    qtbot.addWidget(panel)
    panel.set_levels(["zip", "district"], ["1h", "1w"])
    return panel


def test_levels_are_normalized_and_bad_ones_explained(grid):
    assert grid.add_spatial("grid:2.50")
    assert grid.add_temporal("90min")
    assert grid.spatial_levels() == ["zip", "district", "grid:2.5"]
    assert grid.temporal_levels() == ["1h", "1w", "90min"]
    assert not grid.add_spatial("grid:2.5"), "the same level is not added twice"
    assert not grid.add_spatial("grid:x")
    assert "not a number of km" in grid.message.text()
    assert not grid.add_temporal("3 fortnights")
    assert "not understood" in grid.message.text()


def test_removing_a_row_keeps_the_other_cells(grid):
    grid.set_checked("district", "1w")
    grid.table.selectRow(0)
    grid.remove_selected()
    assert grid.spatial_levels() == ["district"]
    assert grid.checked_cells() == [("district", "1w")]


def test_run_needs_a_ticked_cell_and_carries_the_settings(grid, qtbot):
    with qtbot.assertNotEmitted(grid.run_requested):
        grid.run_button.click()
    assert "Tick at least one cell" in grid.message.text()
    grid.set_checked("zip", "1h")
    grid.p_values.line.clear()
    qtbot.keyClicks(grid.p_values.line, "2-4")
    with qtbot.waitSignal(grid.run_requested) as blocker:
        grid.run_button.click()
    settings = blocker.args[0]
    assert settings["cells"] == [["zip", "1h"]]
    assert settings["p_values"] == [2, 3, 4]


def test_settings_round_trip_through_apply(grid, qtbot):
    grid.set_checked("district", "1h")
    grid.samples.setValue(1234)
    grid.measure_boxes["kl_disclosure"].setChecked(False)
    saved = grid.settings()
    other = GridPanel()
    qtbot.addWidget(other)
    other.apply_settings(saved)
    assert other.settings() == saved


def test_a_saved_p_list_is_shown_as_written_and_kept(grid):
    grid.apply_settings({"p_values": [1, 2, 3, 4, 6, 9, 10]})
    assert grid.p_values.line.text() == "1-4,6,9,10"
    assert grid.settings()["p_values"] == [1, 2, 3, 4, 6, 9, 10]


def test_p_is_typed_as_lists_and_ranges(grid, qtbot):
    grid.p_values.line.clear()
    emitted: list[dict] = []
    grid.settings_edited.connect(emitted.append)
    qtbot.keyClicks(grid.p_values.line, "1,2,4-6")
    assert emitted[-1]["p_values"] == [1, 2, 4, 5, 6]
    assert grid.p_values.message.isHidden()


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("1,x", "like 1-10 or 1,2,4"),
        ("0,2", "at least 1"),
        ("6-2", "like 1-10"),
        ("1-20000", "at most 10,000"),
    ],
)
def test_p_that_does_not_read_is_one_sentence_beside_the_field_and_no_run(grid, qtbot, typed, words):
    grid.set_checked("zip", "1h")
    grid.p_values.line.setText("2-3")
    grid.p_values.line.setText(typed)
    sentence = grid.p_values.message.text()
    assert words in sentence and sentence.endswith(".") and sentence.count(". ") == 0
    assert not grid.p_values.message.isHidden()
    assert grid.settings()["p_values"] == [2, 3], "the last p that read is kept while typing"
    with qtbot.assertNotEmitted(grid.run_requested):
        grid.run_button.click()
    assert grid.message.text() == sentence


def test_knowledge_model_tolerance_and_short_traces_round_trip(grid, qtbot):
    from privacy_studio.core.runner import RiskSettings

    assert not grid.tolerance.isEnabled()
    grid.apply_settings({"knowledge": "proportion:0.25", "short_traces": "all-points"})
    assert grid.tolerance.isEnabled()
    settings = grid.settings()
    assert settings["knowledge"] == "proportion:0.25"
    assert settings["short_traces"] == "all-points"
    grid.set_checked("zip", "1h")
    RiskSettings.from_dict(grid.settings())  # what the window runs is valid
    grid.apply_settings({"knowledge": "homework"})
    assert grid.settings()["short_traces"] == "exclude"
    assert not grid.short_traces.isEnabled()
