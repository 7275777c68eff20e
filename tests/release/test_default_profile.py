"""Without --profile the release is made at the profile the project recommends."""

from __future__ import annotations

import json
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.project import Project
from privacy_studio.core.report import build_report
from privacy_studio.core.report.inputs import resolve_inputs
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid


def test_the_recommended_profile_is_the_default(sample_project: Path, capsys):
    project = Project.load(sample_project)
    settings = RiskSettings(
        spatial=["antenna", "district"],
        temporal=["1w"],
        p_values=[4],
        measures=["unicity", "kanon", "worst_case"],
        samples=300,
        seed=3,
    )
    project.results = list(run_grid(project.load_dataset(), settings))
    project.tradeoff["ceiling"] = 0.99  # the most useful profile that qualifies (ceilings must be < 1) wins
    project.save()
    recommended = resolve_inputs(project).recommendation.label
    # issue #25: unique whole traces are a default criterion; every antenna × 1w trace is unique (100 % >
    # 99 %), so district × 1w (79 % unique) is the one profile left, though transport planning scores it 2
    assert recommended == "district × 1w"
    out = sample_project.parent / "default.csv"
    assert cli.main(["release", str(sample_project), "--out", str(out)]) == 0
    assert "district × 1w, the project's recommendation" in capsys.readouterr().err
    manifest = json.loads(out.with_name("default.csv.manifest.json").read_text())
    assert (manifest["options"]["spatial"], manifest["options"]["temporal"]) == ("district", "1w")
    # No suppression: the file's full-fingerprint figures are those the project's own run found.
    project_kanon, on_file = manifest["project_kanon"], manifest["measured_on_release"]
    assert project_kanon["k"] == on_file["k"]
    assert project_kanon["share_below"]["2"] == on_file["share_unique"]
    report = build_report(Project.load(sample_project)).text()
    assert f"the project's own risk run at district × 1w found k = {project_kanon['k']}" in report
