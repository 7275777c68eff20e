"""Once every profile of a run is in, only the seed spread is left (five more one-profile runs): Run is
available again, and a new run stops that spread instead of waiting for it. The stopped run's late steps
never reach the new run's project."""

from __future__ import annotations

import time

import privacy_studio.core.project_run as project_run
from privacy_studio.core.analyses import SeedSpread

from .test_flow import RUN_TIMEOUT, tick_cells


def test_run_starts_anew_while_the_seed_spread_is_measured(imported_window, qtbot, monkeypatch):
    win = imported_window
    calls: list[int] = []

    def spread(plan, dataset, row, n_seeds=5, control=None):
        """The first run's spread lasts until it is stopped; the next one's is quick."""
        calls.append(len(calls))
        if len(calls) == 1:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                control.check()  # raises once the new run stops it
                time.sleep(0.01)
        return SeedSpread(row.label, plan.choice.risk_measure, plan.choice.risk_p, [len(calls)], [0.5])

    monkeypatch.setattr(project_run, "seed_spread", spread)
    settings = tick_cells(win, cells=(("district", "1w"),))
    win.session.project.tradeoff["risk_p"] = settings["p_values"][-1]  # decided at a p the run computes
    first = win.start_run(settings)
    qtbot.waitUntil(lambda: first.spread_only and bool(calls), timeout=RUN_TIMEOUT)
    assert win.grid.run_button.isEnabled() and win.run_action.isEnabled()

    ended: list[object] = []
    first.signals.done.connect(ended.append)  # before it can end: a queued signal finds its receivers then
    second = win.start_run(settings)
    assert second is not None and second is not first and first.is_cancelled
    qtbot.waitUntil(lambda: bool(ended), timeout=RUN_TIMEOUT)
    assert win.run_worker in (second, None), "the stopped run's end does not end the new one"
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    project = win.session.project
    assert len(project.results) == 1 and project.analysis(SeedSpread).seeds == [2]  # the new run's
    lines = [text for _, text in win.log_panel.lines]
    assert any("seed spread of the previous run is stopped" in text for text in lines)
    assert not any(text.startswith("Run cancelled") for text in lines)
    assert not [text for level, text in win.log_panel.lines if level == "error"]


def _held_spread(win, qtbot, monkeypatch) -> dict:
    """Start a run whose seed spread waits for ``go``; returns the switch once only the spread is left."""
    release = {"go": False}

    def spread(plan, dataset, row, n_seeds=5, control=None):
        deadline = time.monotonic() + 60
        while not release["go"] and time.monotonic() < deadline:
            time.sleep(0.01)
        return SeedSpread(row.label, plan.choice.risk_measure, plan.choice.risk_p, [7], [0.5])

    monkeypatch.setattr(project_run, "seed_spread", spread)
    settings = tick_cells(win, cells=(("district", "1w"),))
    win.session.project.tradeoff["risk_p"] = settings["p_values"][-1]
    run = win.start_run(settings)
    qtbot.waitUntil(lambda: run.spread_only, timeout=RUN_TIMEOUT)
    return release


def test_a_spread_kept_after_a_save_is_an_unsaved_change(imported_window, qtbot, monkeypatch):
    win = imported_window
    release = _held_spread(win, qtbot, monkeypatch)
    win.session.set_dirty(False)  # as a save made during the spread leaves it
    release["go"] = True
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    assert win.session.project.analysis(SeedSpread).seeds == [7] and win.session.dirty


def test_a_spread_of_the_previous_project_is_not_kept_in_the_next(imported_window, qtbot, monkeypatch):
    from privacy_studio.core.project import Project

    win = imported_window
    release = _held_spread(win, qtbot, monkeypatch)
    other = Project(name="another")
    win.session.replace(other)  # as opening a project does
    release["go"] = True
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    assert other.analysis(SeedSpread) is None and not win.session.dirty
