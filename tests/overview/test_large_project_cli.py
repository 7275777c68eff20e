"""``report`` and ``tradeoff`` on a project whose data exceed memory (forced on the sample subset): the
grid runs out of core, the report states the data from DuckDB's counts, and the events are never loaded."""

from __future__ import annotations

import json

import pytest

from privacy_studio.cli import main
from privacy_studio.core.analyses import ComputedUtility, ProfileSizes
from privacy_studio.core.project import Project
from tests.overview.helpers import forced_large as large


@pytest.fixture
def forced_large(sample_subset, tmp_path, monkeypatch) -> tuple:
    """The project path, the list of files the in-memory reader was asked to read, and the events file."""
    path, loaded = large(sample_subset, tmp_path, monkeypatch)
    return path, loaded, str(sample_subset["events"])


def test_report_runs_out_of_core_and_states_the_data(forced_large, tmp_path) -> None:
    path, loaded, events = forced_large
    text = tmp_path / "r.txt"
    assert main(["report", str(path), "--pdf", str(tmp_path / "r.pdf"), "--text", str(text), "--save"]) == 0
    assert (tmp_path / "r.pdf").stat().st_size > 0
    report = text.read_text()
    assert "200 pseudonymous people" in report and "counted by the out-of-core engine" in report
    assert "Information loss measured on" in report  # the sample is named where the import report is shown
    project = Project.load(path)
    assert [r.n_users for r in project.results] == [200]
    assert project.analysis(ComputedUtility) is not None and project.analysis(ProfileSizes) is not None
    assert events not in loaded


def test_population_needs_the_events_and_says_so(forced_large, tmp_path, capsys) -> None:
    path, _loaded, _events = forced_large
    code = main(["report", str(path), "--pdf", str(tmp_path / "r.pdf"), "--population", "1000"])
    assert code == 2 and "needs the events in memory" in capsys.readouterr().err


def test_tradeoff_runs_the_analysis_out_of_core(forced_large, tmp_path, capsys) -> None:
    path, loaded, events = forced_large
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(path), "--p", "2", "--json", str(out), "--save"]) == 0
    decision = json.loads(out.read_text())
    (profile,) = decision["profiles"]
    assert profile["label"] == "district × 1w" and profile["utility"] == 10.0  # the sampled information loss
    assert profile["coarseness_km2_h"] > 0  # unit areas of the places, over the overview's period
    assert "no results yet, running the analysis first" in capsys.readouterr().err
    assert events not in loaded
