"""The Anonymizability page: settings to a job, results to plots, one user's split, project state."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
import pytest

from privacy_studio.core.events import build_event_table
from privacy_studio.core.progress import TaskControl

pytestmark = pytest.mark.gui


def small_events():
    rng = np.random.default_rng(4)
    users = np.repeat(np.arange(15), 6)
    times = rng.integers(0, 3 * 86400, len(users))
    xs, ys = rng.normal(0, 3, (2, len(users))).round(1)
    return build_event_table(users, times, x_km=xs, y_km=ys)


@pytest.fixture
def panel(qtbot):
    from privacy_studio.gui.panels.anonymizability_panel import AnonymizabilityPanel
    from privacy_studio.gui.workers import TaskRunner

    widget = AnonymizabilityPanel(TaskRunner())
    qtbot.addWidget(widget)
    widget.set_events(small_events())
    widget.k_edit.setText("2,4")
    widget.targets.setValue(0)
    widget.levels.setText("1km/1h")
    return widget


def curve_count(plot) -> int:
    return len(plot.listDataItems())


def test_job_results_fill_every_plot_and_one_user(panel, qtbot):
    with pytest.raises(ValueError, match="whole numbers"):
        panel.k_edit.setText("2,x")
        panel.settings()
    panel.k_edit.setText("2,4")
    for result in panel.job()(control=TaskControl()):
        panel.add_result(result)
    assert [r.level for r in panel.results] == ["raw", "1km/1h"]
    assert curve_count(panel.plot_k) == 2 and curve_count(panel.plot_levels) == 2
    assert curve_count(panel.plot_gini) == 2 and curve_count(panel.plot_tail) >= 1
    panel.k_choice.setCurrentIndex(1)
    worker = panel.show_user(3)  # in a worker, then drawn
    with qtbot.waitSignal(worker.signals.done, timeout=60_000):
        pass
    parts = panel.user_parts
    np.testing.assert_allclose(parts["total"], parts["spatial"] + parts["temporal"])
    raw = panel.results[0]
    assert curve_count(panel.plot_user) == 3
    # the mean matched distance per neighbour is that neighbour's Δ_ab: their average is Δ_a^k for k = 4
    assert raw.delta[1, 3] == pytest.approx(raw.neighbour_distance[3, :3].mean())


def test_state_restores_the_same_plots(panel, qtbot):
    from privacy_studio.gui.panels.anonymizability_panel import AnonymizabilityPanel
    from privacy_studio.gui.workers import TaskRunner

    panel.set_results(list(panel.job()(control=TaskControl())))
    other = AnonymizabilityPanel(TaskRunner())
    qtbot.addWidget(other)
    other.restore(panel.state())
    np.testing.assert_array_equal(other.results[0].delta, panel.results[0].delta)
    assert curve_count(other.plot_levels) == 2


def test_start_runs_in_the_task_runner_and_reports_errors(panel, qtbot):
    from privacy_studio.gui.workers import TaskRunner

    panel.runner = TaskRunner()
    panel.start()
    qtbot.waitUntil(lambda: panel.run_button.isEnabled(), timeout=120_000)
    assert panel.status.text() == "Done." and len(panel.results) == 2
    panel.set_events(None)
    panel.start()
    assert "load a dataset" in panel.status.text()


def test_new_results_update_the_lines_in_place(panel):
    """A result whose curves have the same labels moves the existing lines (no rebuild of plot and legend,
    which paused the window); new labels rebuild them."""
    results = list(panel.job()(control=TaskControl()))
    panel.add_result(results[0])
    before = panel.plot_k.listDataItems()
    panel.set_results(results)
    after = panel.plot_k.listDataItems()
    assert [id(item) for item in after] == [id(item) for item in before]
    x, y = after[0].getData()
    assert y[-1] == pytest.approx(1.0) and np.all(np.diff(x) >= 0)
    assert [item.name() for item in panel.plot_levels.listDataItems()] == ["raw", "1km/1h"]
