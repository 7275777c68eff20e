"""``tradeoff`` on a project without results runs the analysis and the protection search, as ``project run``
does, so it recommends the same release (it ran the analysis alone and named no release)."""

from __future__ import annotations

import json

from privacy_studio.cli import main
from privacy_studio.core.project import Project
from privacy_studio.core.tradeoff.candidates import SearchResult
from tests.report.test_report_searches import _copy


def test_tradeoff_recommends_what_project_run_recommends(tmp_path, capsys):
    ran = _copy(tmp_path / "ran")
    assert main(["project", "run", str(ran)]) == 0
    found = Project.load(ran).analysis(SearchResult)
    assert found is not None and found.recommended is not None
    capsys.readouterr()

    fresh = _copy(tmp_path / "fresh")
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(fresh), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"Recommended candidate: {found.recommended.name()}," in printed
    doc = json.loads(out.read_text())
    assert doc["candidates"]["current"] is True
    assert doc["recommendation"]["candidate"]["suppression"] == found.recommended.suppression.to_dict()
    assert not Project.load(fresh).results, "without --save the project file is unchanged"

    assert main(["tradeoff", str(fresh), "--search"]) == 0  # --search keeps what it ran, as it always did
    saved = Project.load(fresh)
    assert saved.results and saved.analysis(SearchResult) is not None
