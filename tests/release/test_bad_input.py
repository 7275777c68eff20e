"""Every refused release is one sentence, exit code 2, and leaves the folder as it was."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from privacy_studio import cli
from privacy_studio.core.atomic import TEMP_PREFIX
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.project import Project
from privacy_studio.core.release import ReleaseOptions, prepare_release, write_release
from privacy_studio.core.release.measure import MeasureSettings


def _refused(capsys, *args: str) -> str:
    assert cli.main(["release", *args]) == 2
    err = capsys.readouterr().err  # after the progress bar's lines, if the data was read
    messages = [line for line in re.split(r"[\r\n]", err) if line.startswith("privacy-studio release:")]
    assert len(messages) == 1 and "Traceback" not in err
    return messages[0]


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def test_an_unknown_profile_is_named(sample_project: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.csv"
    err = _refused(capsys, str(sample_project), "--profile", "borough:1w", "--out", str(out))
    assert "borough" in err and "district" in err
    assert "expected SPATIAL:TEMPORAL" in _refused(
        capsys, str(sample_project), "--profile", "1w", "--out", str(out)
    )
    assert "not understood" in _refused(capsys, str(sample_project), "--profile", "zip:1y", "--out", str(out))
    assert list(tmp_path.iterdir()) == []


def test_a_project_without_results_recommends_nothing(sample_project: Path, tmp_path: Path, capsys):
    err = _refused(capsys, str(sample_project), "--out", str(tmp_path / "r.csv"))
    assert "recommends no profile" in err and "run its risk analysis first" in err
    assert "district:1w" not in err  # never a fixed example that may not even exist in the grid


def test_missing_folder_read_only_folder_and_bad_names(
    sample_project: Path, tmp_path: Path, capsys, monkeypatch
):
    base = [str(sample_project), "--profile", "district:1w", "--out"]
    assert "does not exist" in _refused(capsys, *base, str(tmp_path / "nowhere" / "r.csv"))
    assert ".csv or .parquet" in _refused(capsys, *base, str(tmp_path / "r.txt"))
    assert "per event" in _refused(capsys, *base, str(tmp_path / "r.csv"), "--columns", "amount")
    assert "at least 1" in _refused(capsys, *base, str(tmp_path / "r.csv"), "--k-anonymity", "0")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if os.geteuid() == 0:  # root may write anywhere: let the folder look read-only as it would to a user
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, m: False if Path(p) == locked else real_access(p, m))
    try:
        assert "no permission" in _refused(capsys, *base, str(locked / "r.csv"))
    finally:
        locked.chmod(stat.S_IRWXU)


def test_an_existing_release_is_kept_without_overwrite(sample_project: Path, tmp_path: Path, capsys):
    out = tmp_path / "r.csv"
    out.write_text("keep me\n")
    before = _listing(tmp_path)
    err = _refused(capsys, str(sample_project), "--profile", "district:1w", "--out", str(out))
    assert "already exists" in err and "--overwrite" in err
    assert _listing(tmp_path) == before


def test_a_cancelled_export_leaves_nothing(sample_project: Path, tmp_path: Path):
    dataset = Project.load(sample_project).load_dataset()
    prepared = prepare_release(dataset, ReleaseOptions("district", "1w"), MeasureSettings(4, 200, 0))
    control = TaskControl(lambda f, m: control.cancel() if "reading back" in m else None)
    with pytest.raises(Cancelled):
        write_release(
            prepared, tmp_path / "r.csv", mapping_out=tmp_path / "m.csv", control=control, accept_risk="test"
        )
    assert list(tmp_path.iterdir()) == []
    assert not any(p.name.startswith(TEMP_PREFIX) for p in tmp_path.iterdir())


def test_everybody_suppressed_is_refused(sample_project: Path, tmp_path: Path, capsys):
    args = [str(sample_project), "--profile", "antenna:1h", "--out", str(tmp_path / "r.csv")]
    assert "nothing to release" in _refused(capsys, *args, "--k-anonymity", "2")
    assert list(tmp_path.iterdir()) == []
