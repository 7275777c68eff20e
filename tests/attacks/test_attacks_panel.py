"""The attacks panel: results from their dictionaries, runs through a task runner, results kept in
the project."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privacy_studio.core.generalize import Profile, SpatialLevel
from privacy_studio.core.masking import mask
from privacy_studio.core.measures.attacks.linkage import record_linkage
from privacy_studio.core.measures.attacks.matching import run_matching
from privacy_studio.core.measures.attacks.planted import planted_pair
from privacy_studio.core.measures.attacks.profiling import run_profiling
from privacy_studio.core.measures.attacks.transparency import transparency_attack

pytestmark = pytest.mark.gui


def test_panel_shows_all_results_and_keeps_them_in_the_project(qtbot):
    from privacy_studio.gui.panels.attacks_panel import AttacksPanel
    from privacy_studio.gui.session import Session
    from privacy_studio.gui.workers import TaskRunner

    session = Session()
    panel = AttacksPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    assert panel.summary_lines() == []
    a, b = planted_pair(30, seed=1)
    x = np.random.default_rng(0).normal(size=(20, 2))
    y = mask(x, "rankswap", p=10)
    panel.set_results(
        {
            "matching": run_matching(a, b, Profile.parse("raw", "1d"), epsilons=(0.0, 1.0)).to_dict(),
            "profiling": run_profiling(a, b, SpatialLevel.parse("raw"), sizes=(10,)).to_dict(),
            "linkage": record_linkage(x, y, ("euclidean",)),
        }
    )
    panel.set_results({"transparency": transparency_attack(x, y, p_percent=10)})
    lines = panel.summary_lines()
    assert len(lines) == 4
    assert "30 true pairs" in lines[0]
    assert "whole population of 30" in lines[1]
    assert panel.linkage_table.rowCount() == 1 and panel.linkage_table.item(0, 0).text() == "euclidean"
    assert "window 2 ranks, 20 records" in lines[3]
    assert len(panel.matching_plot.listDataItems()) == 2
    assert set(session.project.analyses["attacks"]) == {"matching", "profiling", "linkage", "transparency"}
    assert session.dirty
    # A new panel on the same project shows the saved results.
    again = AttacksPanel(session, TaskRunner())
    qtbot.addWidget(again)
    assert again.summary_lines() == lines


def test_run_button_goes_through_the_task_runner(qtbot, tmp_path):
    from privacy_studio.gui.panels.attacks_panel import AttacksPanel
    from privacy_studio.gui.workers import TaskRunner

    x = np.random.default_rng(1).normal(size=(25, 2))
    pd.DataFrame(x, columns=["a", "b"]).to_csv(tmp_path / "o.csv", index=False)
    pd.DataFrame(mask(x, "rankswap", p=8), columns=["a", "b"]).to_csv(tmp_path / "m.csv", index=False)
    runner = TaskRunner()
    panel = AttacksPanel(None, runner)
    qtbot.addWidget(panel)
    panel.original.edit.setText(str(tmp_path / "o.csv"))
    panel.masked.edit.setText(str(tmp_path / "m.csv"))
    with qtbot.waitSignal(panel.run_requested):
        panel.start(panel.table_request("transparency"))
    # The worker may finish before a signal wait could begin: wait on what the panel shows instead.
    qtbot.waitUntil(lambda: "transparency" in panel.results, timeout=60_000)
    assert panel.results["transparency"]["n_records"] == 25
    panel.masked.edit.setText(str(tmp_path / "missing.csv"))
    panel.start(panel.table_request("linkage"))
    qtbot.waitUntil(lambda: "missing.csv" in panel.status.text(), timeout=60_000)
    assert "linkage" not in panel.results
    runner.wait()


def test_inputs_default_to_the_projects_files_and_are_saved(qtbot, tmp_path):
    from privacy_studio.core.project import DataSource, Project
    from privacy_studio.gui.panels.attacks_panel import INPUTS_KEY, AttacksPanel
    from privacy_studio.gui.session import Session
    from privacy_studio.gui.workers import TaskRunner

    events = tmp_path / "events.csv"
    events.write_text("user,time,location\n")
    reader = {"tz": "Europe/Paris", "antennas": str(tmp_path / "antennas.csv"), "hierarchy": ""}
    project = Project(sources=[DataSource(str(events), None, reader)])
    project.analyses["release"] = {"release_file": str(tmp_path / "release.csv")}
    session = Session()
    panel = AttacksPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    assert panel.identified.data.value() is None and panel.tz.placeholderText() == "UTC"
    assert panel.matching_request()["spatial"] == "raw" and panel.matching_request()["temporal"] == "1h"
    session.project.sources = [DataSource(str(events), None, reader)]  # imported into the same project
    session.changed.emit()
    assert panel.tz.text() == "Europe/Paris", "the project's own zone, not a default typed in before"
    session.project.sources = []
    session.replace(project)
    assert panel.identified.data.value() == str(events)
    assert panel.identified.places.value() == str(tmp_path / "antennas.csv")
    assert panel.tz.text() == "Europe/Paris"
    assert panel.anonymous.data.value() == panel.masked.value() == str(tmp_path / "release.csv")
    assert panel.original.value() == str(events)

    panel.spatial.setText("grid:2")
    panel.links.edit.setText(str(tmp_path / "truth.csv"))
    panel._keep_inputs()
    del project.analyses["release"]  # a stand-in, not a real manifest: the file check would refuse it
    saved = Project.from_dict(project.to_dict())
    assert saved.analyses[INPUTS_KEY]["spatial"] == "grid:2"
    other = Session()
    reopened = AttacksPanel(other, TaskRunner())
    qtbot.addWidget(reopened)
    other.replace(saved)
    assert reopened.inputs() == panel.inputs(), "a reopened project shows the inputs it was saved with"
