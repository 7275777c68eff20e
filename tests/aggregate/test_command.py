"""``privacy-studio aggregate``: the full grid, the manifest, the project record and the refusals."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from privacy_studio import cli
from privacy_studio.core.aggregate.manifest import aggregate_releases
from privacy_studio.core.project import Project

BASE = ["--profile", "district:1w", "--max-points-per-person", "10"]


def _run(project: Path, out: Path, *extra: str) -> int:
    return cli.main(["aggregate", str(project), *BASE, "--out", str(out), *extra])


@pytest.mark.parametrize("kind", ["density", "od"])
def test_full_grid_manifest_and_record(sample_project: Path, kind: str, capsys):
    out = sample_project.parent / f"{kind}.csv"
    assert _run(sample_project, out, "--kind", kind, "--epsilon", "1") == 0
    rows = list(csv.DictReader(out.open()))
    manifest = json.loads(out.with_name(f"{kind}.csv.manifest.json").read_text())
    cells = manifest["cells"]
    places = {r["location"] for r in rows} if kind == "density" else {r["origin"] for r in rows}
    times = {r["time"] for r in rows}
    assert len(places) == cells["n_units"] and len(times) == cells["n_bins"]
    # every cell once, empty ones included
    keys = [tuple(v for k, v in r.items() if k != "people") for r in rows]
    per_time = len(places) if kind == "density" else len(places) ** 2
    assert len(keys) == len(set(keys)) == per_time * len(times) == cells["n_cells"] == manifest["rows"]
    assert all(int(r["people"]) >= 0 for r in rows)
    assert manifest["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert manifest["options"]["epsilon"] == 1.0 and manifest["options"]["delta"] == 0.0
    assert manifest["mechanism"]["library"] == "opendp" and manifest["mechanism"]["scale"] == 10.0
    assert manifest["inputs"] and all(len(i["sha256"]) == 64 for i in manifest["inputs"])
    assert manifest["studio_version"]
    recorded = aggregate_releases(Project.load(sample_project).analyses)
    assert recorded[-1].sha256 == manifest["sha256"]
    assert manifest["before"] == {"epsilon": 0.0, "delta": 0.0, "aggregates": 0, "microdata": []}
    printed = capsys.readouterr().out
    assert f"{manifest['not_private']['people_cut']:,} of" in printed


def test_every_file_written_counts_in_the_privacy_loss(sample_project: Path, capsys):
    """Writing a file again does not take back the first one (it may have been shared): both count."""
    out = sample_project.parent / "d.csv"
    assert _run(sample_project, out, "--epsilon", "1") == 0
    assert _run(sample_project, out, "--epsilon", "0.5", "--delta", "1e-6", "--overwrite") == 0
    assert _run(sample_project, out.with_name("e.csv"), "--epsilon", "2") == 0
    recorded = aggregate_releases(Project.load(sample_project).analyses)
    assert [(m.file, m.options.epsilon) for m in recorded] == [("d.csv", 1.0), ("d.csv", 0.5), ("e.csv", 2.0)]
    assert recorded[1].mechanism.name == "discrete Gaussian"
    assert [(m.before.epsilon, m.before.delta, m.before.aggregates) for m in recorded] == [
        (0.0, 0.0, 0),
        (1.0, 0.0, 1),
        (1.5, 1e-6, 2),
    ]
    assert "3 aggregates of these people spend ε = 3.5, δ = 0.000001 together" in capsys.readouterr().out


def test_a_file_over_the_budget_is_refused_before_reading_and_changes_nothing(sample_project: Path, capsys):
    assert _run(sample_project, sample_project.parent / "a.csv", "--epsilon", "0.6", "--budget", "1") == 0
    capsys.readouterr()
    before = sample_project.read_bytes()
    out = sample_project.parent / "b.csv"
    assert _run(sample_project, out, "--epsilon", "0.5", "--budget", "1") == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "ε = 1.1, over the budget of 1" in err and "lower --epsilon to at most 0.4" in err
    assert not out.exists() and sample_project.read_bytes() == before
    assert _run(sample_project, out, "--epsilon", "0.4", "--budget", "1") == 0
    manifest = json.loads(out.with_name("b.csv.manifest.json").read_text())
    assert manifest["budget"] == 1.0 and manifest["before"]["epsilon"] == 0.6


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--epsilon", "0"], "ε (--epsilon) must be a positive number"),
        (["--epsilon", "-1"], "ε (--epsilon) must be a positive number"),
        (["--epsilon", "nan"], "ε (--epsilon) must be a positive number"),
        (["--epsilon", "inf"], "ε (--epsilon) must be a positive number"),
        (["--epsilon", "1", "--delta", "1"], "δ (--delta) must be at least 0 and below 1"),
        (["--epsilon", "1", "--delta", "-0.1"], "δ (--delta) must be at least 0 and below 1"),
        (["--epsilon", "1", "--delta", "2"], "δ (--delta) must be at least 0 and below 1"),
        (["--epsilon", "1", "--max-points-per-person", "0"], "must be a whole number of at least 1"),
        (["--epsilon", "1", "--max-points-per-person", "-3"], "must be a whole number of at least 1"),
        (["--epsilon", "1", "--profile", "nowhere:1w"], "unknown spatial level"),
        (["--epsilon", "1", "--profile", "district"], "expected SPATIAL:TEMPORAL"),
    ],
)
def test_bad_input_is_one_sentence_exit_2_and_nothing_written(sample_project: Path, capsys, flags, message):
    before = sample_project.read_bytes()
    out = sample_project.parent / "bad.csv"
    assert _run(sample_project, out, *flags) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err.strip().splitlines()[-1]  # after the progress bar
    assert not out.exists() and not out.with_name("bad.csv.manifest.json").exists()
    assert sample_project.read_bytes() == before


def test_an_existing_file_is_refused_without_overwrite(sample_project: Path, capsys):
    out = sample_project.parent / "taken.csv"
    out.write_text("keep me\n")
    assert _run(sample_project, out, "--epsilon", "1") == 2
    assert "already exists" in capsys.readouterr().err and out.read_text() == "keep me\n"


def test_a_grid_too_large_to_write_is_refused_before_any_noise(sample_project: Path, capsys):
    out = sample_project.parent / "huge.csv"
    flags = ["--kind", "od", "--epsilon", "1", "--profile", "antenna:1h"]
    assert _run(sample_project, out, *flags) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "more than the 20,000,000 a file may hold: choose coarser places or time bins" in last
    assert not out.exists()
