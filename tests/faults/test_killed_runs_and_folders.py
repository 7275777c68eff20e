"""Temporary files of killed runs are cleaned by the next write into their folder (a running writer's are
kept); a folder of per-person files uses each file's own user column; a project written away from its data
finds it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from privacy_studio.core.atomic import TEMP_PREFIX
from tests.faults.harness import judge_result, run_cli
from tests.faults.world import make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


WRITERS: dict[str, Callable[[object, Path], list]] = {
    "inspect_json": lambda w, o: ["inspect", w.data, "--json", o],
    "theory_json": lambda w, o: ["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", o],
    "project_new": lambda w, o: [
        "project",
        "new",
        w.data,
        *SETTINGS,
        "--name",
        "n",
        "--out",
        o.with_suffix(".psproj"),
    ],
}


@pytest.mark.parametrize("stale", ["dead_writer", "no_writer_id"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_a_later_write_cleans_what_a_killed_run_left(
    command: str, stale: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path)
    tag = f"{_dead_pid()}-" if stale == "dead_writer" else ""
    left = tmp_path / f"{TEMP_PREFIX}{tag}p.psproj.x1y2"
    left.write_text("half a project")
    run = run_cli(WRITERS[command](w, tmp_path / "out.json"))
    record(judge_result(run, lambda r: not left.exists()), run.err + (run.raised or ""))


def test_a_running_writers_temporary_file_is_kept(tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    live = tmp_path / f"{TEMP_PREFIX}{os.getppid()}-p.psproj.x1y2"
    live.write_text("being written")
    run = run_cli(["inspect", w.data, "--json", tmp_path / "out.json"])
    record(judge_result(run, lambda r: live.exists()), run.err + (run.raised or ""))


FOLDERS: dict[str, tuple[dict[str, str], int, str]] = {
    "one_file_of_many_people": (
        {
            "all.csv": "user,time,location\n"
            + "".join(f"p{u},2024-03-0{1 + u % 9} 10:00:00,L1\n" for u in range(90))
        },
        90,
        "own user column",
    ),
    "files_without_user_column": (
        {f"p{u}.csv": "time,location\n2024-03-01 10:00:00,L1\n" for u in range(5)},
        5,
        "user id = file name",
    ),
    "mixed_files": (
        {
            "a.csv": "user,time,location\nx1,2024-03-01 10:00:00,L1\nx2,2024-03-01 11:00:00,L1\n",
            "solo.csv": "time,location\n2024-03-01 10:00:00,L1\n",
        },
        3,
        "the file name in 1 files",
    ),
}


@pytest.mark.parametrize("case", sorted(FOLDERS))
def test_folder_uses_the_files_own_user_column(case: str, tmp_path: Path, record: Callable) -> None:
    files, people, rule = FOLDERS[case]
    folder = tmp_path / "people"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    out = tmp_path / "o.json"
    run = run_cli(["inspect", folder, "--json", out, "--no-cache"])

    def right(r) -> bool:
        document = json.loads(out.read_text())
        return document["summary"]["users"] == people and any(rule in n for n in document["report"]["notes"])

    record(judge_result(run, right), run.err + (run.raised or ""))


@pytest.mark.parametrize("where", ["sub", "sub/deeper", "parent"])
def test_project_written_elsewhere_finds_its_data(where: str, tmp_path: Path, record: Callable) -> None:
    """``project new DATA --out FOLDER/p.psproj`` stores DATA relative to FOLDER, so the project opens."""
    work = tmp_path / "work"
    work.mkdir()
    make_world(work)
    target = tmp_path / "p.psproj" if where == "parent" else work / where / "p.psproj"
    target.parent.mkdir(parents=True, exist_ok=True)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        made = run_cli(
            [
                "project",
                "new",
                "events.csv",
                *SETTINGS,
                "--hierarchy",
                "hierarchy.csv",
                "--name",
                "n",
                "--out",
                os.path.relpath(target),
            ]
        )
    finally:
        os.chdir(cwd)
    pdf = tmp_path / "r.pdf"
    run = (
        run_cli(["report", target, "--pdf", pdf, "--p-rationale", "x"], seconds=300)
        if made.code == 0
        else made
    )
    record(
        judge_result(run, lambda r: pdf.is_file() and "not found" not in r.err), run.err + (run.raised or "")
    )
