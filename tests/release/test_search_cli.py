"""Issue #29 end to end: project run searches, tradeoff --json gives the recommended candidate, and a release
without --profile writes that candidate, whose file read back gives the figures the trade-off promised."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from privacy_studio import cli
from privacy_studio.core.project import Project
from privacy_studio.core.release.search import stored_search
from tests.release.test_as_written import pandas_class_sizes

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture(scope="module")
def searched(tmp_path_factory) -> Path:
    """The sample city at {zip, district} × 1w, p = 4, run (which ends with the protection search)."""
    folder = tmp_path_factory.mktemp("search")
    for name in ("events.csv", "antennas.csv", "hierarchy.csv"):
        shutil.copy(SAMPLE / name, folder / name)
    out = folder / "s.psproj"
    args = ["project", "new", str(folder / "events.csv"), "--antennas", str(folder / "antennas.csv"),
            "--hierarchy", str(folder / "hierarchy.csv"), "--tz", "Europe/Paris", "--spatial", "zip,district",
            "--temporal", "1w", "--p", "4", "--name", "search", "--out", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    assert cli.main(["project", "run", str(out)]) == 0
    return out


def test_tradeoff_json_gives_the_recommended_candidate(searched: Path, tmp_path: Path):
    found = stored_search(Project.load(searched))
    assert found is not None and found.recommended is not None
    rec = found.recommended
    out = tmp_path / "t.json"
    assert cli.main(["tradeoff", str(searched), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["recommendation"]["suppression"] == rec.suppression.to_dict()
    assert set(doc["recommendation"]["suppression"]) == {
        "k_anonymity",
        "min_people_per_point",
        "max_points_per_person",
    }
    assert doc["recommendation"]["released_people"] == rec.released_people
    assert doc["recommendation"]["total_people"] == rec.total_people == 1992
    listed = doc["candidates"]["candidates"]
    assert doc["candidates"]["current"] and len(listed) == len(found.candidates)
    assert listed[doc["candidates"]["recommended"]]["released_share"] == rec.released_people / 1992
    # the saved ceiling given again judges alike; other criteria do not present the search as theirs
    assert cli.main(["tradeoff", str(searched), "--ceiling", "0.05", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["candidates"]["current"]
    assert cli.main(["tradeoff", str(searched), "--ceiling", "0.2", "--json", str(out)]) == 0
    assert not json.loads(out.read_text())["candidates"]["current"]


def test_release_without_profile_writes_what_the_tradeoff_promised(searched: Path, tmp_path: Path, capsys):
    stored_search_before = stored_search(Project.load(searched))
    rec = stored_search_before.recommended
    out = tmp_path / "r.csv"
    assert cli.main(["release", str(searched), "--out", str(out)]) == 0
    assert "the project's recommended candidate" in capsys.readouterr().err
    manifest = json.loads(out.with_name("r.csv.manifest.json").read_text())
    options = manifest["options"]
    assert f"{options['spatial']}:{options['temporal']}" == rec.profile
    assert {k: options[k] for k in rec.suppression.to_dict()} == rec.suppression.to_dict()
    assert manifest["released"]["people"] == rec.released_people
    assert manifest["released"]["events"] == rec.released_events
    assert manifest["release_rows"] == rec.released_rows
    promised = [(c.name, c.value, c.passed) for c in rec.checks]
    assert [(c["name"], c["value"], c["passed"]) for c in manifest["criteria"]] == promised
    # independently, with pandas: the people, the rows and k on the file as written
    table = pd.read_csv(out, dtype=str)
    sizes = pandas_class_sizes(out)
    assert table["user"].nunique() == rec.released_people and len(table) == rec.released_rows
    assert sizes.min() >= rec.suppression.k_anonymity
    # following the search does not undo it: released as recommended, it still holds and the report says so
    assert stored_search(Project.load(searched)) == stored_search_before
    text = tmp_path / "r.txt"
    assert cli.main(["report", str(searched), "--pdf", str(tmp_path / "r.pdf"), "--text", str(text)]) == 0
    report = text.read_text()
    assert "Recommended release (protection search)" in report and "made for earlier results" not in report
    # any other release changes what later candidates are judged against: the search is out of date
    other = tmp_path / "other.csv"
    assert (
        cli.main(
            ["release", str(searched), "--profile", "zip:1w", "--accept-risk", "test", "--out", str(other)]
        )
        == 0
    )
    assert stored_search(Project.load(searched)) is None


def test_search_needs_a_project(tmp_path: Path, capsys):
    results = tmp_path / "risk.json"
    results.write_text('{"profiles": []}')
    assert cli.main(["tradeoff", str(results), "--search"]) == 2
    assert "--search needs a project (.psproj)" in capsys.readouterr().err
