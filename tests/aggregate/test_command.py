"""``privacy-studio aggregate``: the full grid, the manifest, the project record and the refusals."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from privacy_studio import cli
from privacy_studio.core.analyses import AggregateReleases
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
    recorded = Project.load(sample_project).analysis(AggregateReleases)
    assert recorded is not None and recorded.manifests[-1].sha256 == manifest["sha256"]
    printed = capsys.readouterr().out
    assert f"{manifest['not_private']['people_cut']:,} of" in printed


def test_writing_the_same_file_again_replaces_its_record(sample_project: Path):
    out = sample_project.parent / "d.csv"
    assert _run(sample_project, out, "--epsilon", "1") == 0
    assert _run(sample_project, out, "--epsilon", "0.5", "--delta", "1e-6", "--overwrite") == 0
    assert _run(sample_project, out.with_name("e.csv"), "--epsilon", "2") == 0
    recorded = Project.load(sample_project).analysis(AggregateReleases)
    assert [(m.file, m.options.epsilon) for m in recorded.manifests] == [("d.csv", 0.5), ("e.csv", 2.0)]
    assert recorded.manifests[0].mechanism.name == "discrete Gaussian"


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
