"""Data changed since a project measured it: found by size, then by SHA-256 (a new modification time alone is
no change), refused by ``load_dataset`` and recorded anew by ``rehash_changed``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from privacy_studio.core import project as project_module
from privacy_studio.core.project import Project, ProjectError, file_signature, sha256_of


def _project(tmp_path: Path) -> tuple[Project, Path]:
    data = tmp_path / "events.csv"
    data.write_text(
        "user,time,location\n" + "".join(f"u{i},2024-03-0{1 + i % 9} 10:00:00,L{i % 3}\n" for i in range(30))
    )
    project = Project(name="t", settings={"spatial": ["raw"], "temporal": ["1d"], "p_values": [1]})
    project.add_source(data, {})
    project.save(tmp_path / "p.psproj")
    return Project.load(tmp_path / "p.psproj"), data


def test_saved_hash_size_and_time_describe_the_file(tmp_path: Path) -> None:
    project, data = _project(tmp_path)
    source = project.sources[0]
    assert (source.sha256, (source.size, source.mtime_ns)) == (sha256_of(data), file_signature(data))
    assert project.changed_sources() == []


def test_a_new_size_is_a_change_without_hashing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, data = _project(tmp_path)
    with data.open("a") as fh:
        fh.write("u99,2024-03-02 10:00:00,L1\n")
    monkeypatch.setattr(
        project_module, "sha256_of", lambda path: pytest.fail("hashed although the size differs")
    )
    assert project.changed_sources() == project.sources[:1]


def test_same_size_and_time_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, _ = _project(tmp_path)
    monkeypatch.setattr(project_module, "sha256_of", lambda path: pytest.fail("hashed an unchanged file"))
    assert project.changed_sources() == []


def test_same_size_edit_is_found_by_the_hash_and_a_touch_is_not_a_change(tmp_path: Path) -> None:
    project, data = _project(tmp_path)
    os.utime(data, (1_000_000_000, 1_000_000_000))
    assert project.changed_sources() == []
    data.write_text(data.read_text().replace("L1\n", "L2\n", 1))
    assert project.changed_sources() == project.sources[:1]


def test_changed_data_is_refused_until_measured_anew(tmp_path: Path) -> None:
    project, data = _project(tmp_path)
    data.write_text(data.read_text() + "u99,2024-03-02 10:00:00,L1\n")
    with pytest.raises(ProjectError, match="changed since the project measured it"):
        project.load_dataset()
    assert project.rehash_changed() == project.sources[:1]
    assert project.sources[0].sha256 == sha256_of(data)
    assert project.load_dataset().events.n_users == 31


def test_paths_are_stored_relative_to_the_project_wherever_it_is_saved(tmp_path: Path) -> None:
    project, data = _project(tmp_path)
    (tmp_path / "deeper" / "still").mkdir(parents=True)
    project.save(tmp_path / "deeper" / "still" / "q.psproj")
    assert Project.load(tmp_path / "deeper" / "still" / "q.psproj").sources[0].path == str(data)
