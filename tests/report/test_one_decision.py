"""Issue #31: one ``report`` command derives the decision once (run, population extrapolation, PDF and text
share it), the report reads the decision's Pareto front and Kendall's tau instead of recomputing them,
``--population`` extrapolates the chosen measure as the window does, and a re-run drops stale analyses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import privacy_studio.core.report.results as report_results
import privacy_studio.core.tradeoff.decision as decision
from privacy_studio.cli import main
from privacy_studio.core.analyses import PopulationExtrapolation, RiskByGroup, SeedSpread
from privacy_studio.core.project import Project
from privacy_studio.core.project_run import run_analysis
from privacy_studio.core.report import Table, build_report
from privacy_studio.core.report.inputs import resolve_inputs
from privacy_studio.core.tradeoff.groups import GroupReport

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
EVENTS = SAMPLE / "events.csv"
READER = ["--antennas", str(SAMPLE / "antennas.csv"), "--hierarchy", str(SAMPLE / "hierarchy.csv")]
NOBODY = GroupReport(rows=[], n_matched=7, n_without_attributes=0, n_without_risk=0)


@pytest.fixture(scope="module")
def project_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("one") / "p.psproj"
    argv = ["project", "new", str(EVENTS), *READER, "--tz", "Europe/Paris", "--spatial", "district"]
    argv += ["--temporal", "1d,1w", "--p", "1-4"]
    assert main([*argv, "--name", "one decision", "--out", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    doc["tradeoff"]["risk_measure"] = "k_disclosure"  # not unicity: --population must follow it
    out.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["project", "run", str(out)]) == 0
    return out


@pytest.fixture
def decisions(monkeypatch) -> list[object]:
    """Every call of ``decide`` (the report imports it by name; the run looks it up in its module)."""
    calls: list[object] = []
    real = decision.decide

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(decision, "decide", counted)
    monkeypatch.setattr("privacy_studio.core.report.inputs.decide", counted)
    return calls


def test_one_report_command_decides_once(project_file, tmp_path, decisions):
    argv = ["report", str(project_file), "--pdf", str(tmp_path / "r.pdf"), "--text", str(tmp_path / "r.txt")]
    assert main([*argv, "--rerun", "--population", "100000", "--save"]) == 0
    assert len(decisions) == 1, "run, extrapolation, PDF and text share one decision"
    project = Project.load(project_file)
    saved = project.analysis(PopulationExtrapolation)
    assert saved is not None and saved.measure == "k_disclosure" and saved.p == 4
    assert "k-disclosure at p = 4" in (tmp_path / "r.txt").read_text(encoding="utf-8")
    decisions.clear()
    assert main(["report", str(project_file), "--pdf", str(tmp_path / "again.pdf")]) == 0
    assert len(decisions) == 1  # results saved: no run, one decision for the report


def test_the_report_reads_the_decisions_pareto_and_tau(project_file, monkeypatch):
    project = Project.load(project_file)
    inputs = resolve_inputs(project)
    assert inputs.analysis is not None

    def recomputed(*_args):
        raise AssertionError("the report recomputed what the decision holds")

    monkeypatch.setattr(report_results, "ordinal_equivalence", recomputed)
    content = build_report(project, inputs=inputs)
    results = next(r for r in content.sections if r.title == "Results")
    pareto = next(s for s in results.subsections if s.title == "Pareto analysis")
    table = pareto.blocks[1]
    on_front = {row[0] for row in table.rows if row[3] == "yes"}
    from privacy_studio.core.naming import label_words

    assert on_front == {label_words(label) for label in inputs.analysis.pareto.front}


def test_the_report_shows_the_stored_risk_by_group(project_file):
    project = Project.load(project_file)
    label = resolve_inputs(project).analysis.recommendation.label or project.results[0].label
    project.store(RiskByGroup(label, NOBODY))
    content = build_report(project)
    results = next(r for r in content.sections if r.title == "Results")
    section = next(s for s in results.subsections if s.title == "Risk by group")
    assert section.available, "read, not measured: the project has no attributes file to measure it from"
    (table,) = [b for b in section.blocks if isinstance(b, Table)]
    assert table.note.startswith("7 sampled users matched to the attributes file"), section.blocks


def test_a_rerun_drops_the_analyses_of_the_earlier_results(project_file):
    project = Project.load(project_file)
    label = project.results[0].label
    project.store(RiskByGroup(label, NOBODY))
    project.store(PopulationExtrapolation("unicity", 4, label, [1.0, 2.0], [0.5, 0.6], 10))
    project.analyses["attacks"] = {"matching": {}}  # about the data, not the results: kept
    run_analysis(project, project.load_dataset())
    assert project.analysis(RiskByGroup) is None and project.analysis(PopulationExtrapolation) is None
    assert project.analyses["attacks"] == {"matching": {}}
    spread = project.analysis(SeedSpread)
    assert spread is None or spread.measure == "k_disclosure"
