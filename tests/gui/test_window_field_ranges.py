"""Range checks where parameters enter the window: the Grid and Trade-off panels use the core's validators
(the same as the command line) for typed levels, and their boxes cannot reach a value the core refuses."""

from __future__ import annotations

import pytest

from privacy_studio.core.analyses import TradeoffChoice
from privacy_studio.core.generalize import SpatialLevel, TemporalLevel
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.gui.panels.grid_panel import GridPanel
from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
from privacy_studio.gui.workers import TaskRunner


@pytest.fixture
def grid(qtbot):
    panel = GridPanel()
    qtbot.addWidget(panel)
    panel.set_levels(["zip"], ["1h"])
    return panel


@pytest.fixture
def tradeoff(qtbot):
    panel = TradeoffPanel(None, TaskRunner())
    qtbot.addWidget(panel)
    return panel


@pytest.mark.parametrize("text", ["grid:1e-300", "grid:inf", "grid:nan", "grid:0", "grid:-2", "grid:0.0001"])
def test_out_of_range_grid_sizes_are_refused_next_to_the_field(grid, text):
    with pytest.raises(ValueError) as core:
        SpatialLevel.parse(text)
    assert not grid.add_spatial(text)
    assert grid.message.text() == str(core.value)  # the core's sentence, as the command line prints it
    assert grid.spatial_levels() == ["zip"]


@pytest.mark.parametrize("text", ["0min", "99999999999999999999h", "999999999999w", "1e30w", "-1h"])
def test_out_of_range_time_widths_are_refused_next_to_the_field(grid, text):
    with pytest.raises(ValueError) as core:
        TemporalLevel.parse(text)
    assert not grid.add_temporal(text)
    assert grid.message.text() == str(core.value)
    assert grid.temporal_levels() == ["1h"]


@pytest.mark.parametrize("end", ["minimum", "maximum"])
def test_every_value_the_grid_boxes_allow_passes_the_core_validator(grid, end):
    grid.p_values.line.setText("1-10000" if end == "maximum" else "1")
    boxes = [grid.samples, grid.draws, grid.seed, grid.reference_p, grid.risk_k]
    for box in boxes:
        box.setValue(getattr(box, end)())
    RiskSettings.from_dict(grid.settings(), empty_grid_ok=True).validate(empty_grid_ok=True)


def test_grid_boxes_cannot_go_below_what_the_core_accepts(grid):
    grid.p_values.line.setText("-5")
    assert grid.settings()["p_values"] == list(range(1, 11)), "a p below 1 is refused, the last one kept"
    for box, lowest in ((grid.samples, 10), (grid.draws, 1), (grid.seed, 0)):
        box.setValue(-5)
        assert box.value() == lowest


@pytest.mark.parametrize("typed", [0.0, -3.0, 100.0, 250.0])
def test_the_ceiling_stays_strictly_between_0_and_1(tradeoff, typed):
    tradeoff.ceiling.setValue(typed)
    ceiling = tradeoff.choices()["ceiling"]
    assert 0.0 < ceiling < 1.0
    assert TradeoffChoice.from_dict(tradeoff.choices()).to_dict()["ceiling"] == pytest.approx(ceiling)


def test_optional_limits_at_their_largest_are_accepted_and_100_percent_is_unreachable(tradeoff):
    tradeoff.limit_reason.setText("stated by the data owner")  # changed limits need a reason (issue #25)
    for box in tradeoff.criteria_boxes.values():
        box.setValue(100.0)
        assert box.value() < 100.0
    TradeoffChoice.from_dict(tradeoff.choices())
    assert all(0.0 < tradeoff.choices()[key] < 1.0 for key in tradeoff.criteria_boxes)
