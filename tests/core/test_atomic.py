"""atomic_write: the old file survives every failure, the new one appears whole with the old permissions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from privacy_studio.core.atomic import (
    TEMP_PREFIX,
    WriteError,
    atomic_write,
    remove_stale_temp_files,
    write_text,
)


def _temp_files(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(TEMP_PREFIX)]


def test_new_file_is_written_whole(tmp_path: Path) -> None:
    write_text(tmp_path / "a.json", "{}\n")
    assert (tmp_path / "a.json").read_text() == "{}\n"
    assert _temp_files(tmp_path) == []


def test_permissions_of_the_old_file_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "p.psproj"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_text(target, "new")
    assert target.read_text() == "new"
    assert (target.stat().st_mode & 0o777) == 0o640


def test_failing_check_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.pdf"
    target.write_bytes(b"old")

    def refuse(_: Path) -> None:
        raise WriteError("the PDF has 0 pages")

    with pytest.raises(WriteError, match="0 pages"):
        write_text(target, "half", check=refuse)
    assert target.read_bytes() == b"old"
    assert _temp_files(tmp_path) == []


def test_interrupt_while_writing_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(KeyboardInterrupt), atomic_write(target) as fh:
        fh.write("partial")
        raise KeyboardInterrupt
    assert target.read_text() == "old"
    assert _temp_files(tmp_path) == []


def test_missing_folder_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="does not exist"):
        write_text(tmp_path / "nope" / "a.txt", "x")


def test_stale_temp_files_are_removed(tmp_path: Path) -> None:
    (tmp_path / f"{TEMP_PREFIX}a.json.xyz").write_text("stale")
    (tmp_path / "keep.json").write_text("{}")
    assert remove_stale_temp_files(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.json"]


def test_temporary_files_of_live_writers_are_kept(tmp_path: Path) -> None:
    """Only files whose writer is gone are stale: this process's own, and its parent's, stay."""
    import os
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    dead = tmp_path / f"{TEMP_PREFIX}{child.pid}-a.json.x"
    mine = tmp_path / f"{TEMP_PREFIX}{os.getpid()}-a.json.y"
    parent = tmp_path / f"{TEMP_PREFIX}{os.getppid()}-a.json.z"
    for path in (dead, mine, parent):
        path.write_text("half")
    assert remove_stale_temp_files(tmp_path) == 1
    assert sorted(_temp_files(tmp_path)) == sorted([mine.name, parent.name])


def test_a_write_cleans_the_folder_of_a_killed_writer(tmp_path: Path) -> None:
    import subprocess

    child = subprocess.Popen(["true"])
    child.wait()
    (tmp_path / f"{TEMP_PREFIX}{child.pid}-p.psproj.q").write_text("half")
    write_text(tmp_path / "other.json", "{}")
    assert _temp_files(tmp_path) == []
