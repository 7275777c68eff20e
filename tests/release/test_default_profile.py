"""Without --profile the release is made at the profile the project recommends."""

from __future__ import annotations

import json
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.report.inputs import resolve_inputs
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid


def test_the_recommended_profile_is_the_default(sample_project: Path, capsys):
    project = Project.load(sample_project)
    settings = RiskSettings(
        spatial=["antenna", "district"],
        temporal=["1w"],
        p_values=[4],
        measures=["unicity"],
        samples=300,
        seed=3,
    )
    project.results = [jsonable(r.to_dict()) for r in run_grid(project.load_dataset(), settings)]
    project.tradeoff["ceiling"] = 0.99  # every profile qualifies (ceilings must be < 1): the most useful wins
    project.save()
    recommended = resolve_inputs(project).recommendation.label
    assert recommended == "antenna × 1w"  # transport planning scores it 3, district × 1w 2
    out = sample_project.parent / "default.csv"
    assert cli.main(["release", str(sample_project), "--out", str(out)]) == 0
    assert "antenna × 1w, the project's recommendation" in capsys.readouterr().err
    manifest = json.loads(out.with_name("default.csv.manifest.json").read_text())
    assert (manifest["options"]["spatial"], manifest["options"]["temporal"]) == ("antenna", "1w")
