"""Stale data: a project's data changed after it was measured is refused by every command that uses it
(release publishes no one the project did not measure); `project run` measures it anew, says so and records
the new SHA-256; a new modification time alone is no change."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.conftest import write_events
from tests.faults.harness import judge_error, judge_result, prepare_outputs, run_cli
from tests.faults.world import ACCEPT, World, digest, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d", "--p", "1"]


def _append(w: World) -> None:
    with w.data.open("a") as fh:
        fh.write("u99,2024-03-02 10:00:00,L1\n")


def _edit_same_size(w: World) -> None:
    text = w.data.read_text()
    w.data.write_text(text.replace(",L1\n", ",L2\n", 1))


def _replace(w: World) -> None:
    write_events(w.data, seed=99)


def _truncate(w: World) -> None:
    w.data.write_text("".join(w.data.read_text().splitlines(keepends=True)[:60]))


def _attributes(w: World) -> None:
    with w.attributes.open("a") as fh:
        fh.write("u99,70\n")


#: How the data changed after the project measured it.
CHANGES: dict[str, Callable[[World], None]] = {
    "appended_row": _append,
    "edited_same_size": _edit_same_size,
    "replaced": _replace,
    "truncated": _truncate,
    "attributes_appended": _attributes,
}


@pytest.mark.parametrize("command", ["release", "report"])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_data_changed_since_measured_is_refused(
    change: str, command: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path)
    CHANGES[change](w)
    out = tmp_path / ("release.csv" if command == "release" else "report.pdf")
    prepare_outputs(out)
    flag = (
        ["--profile", "raw:1d", *ACCEPT, "--out", out, "--overwrite"]
        if command == "release"
        else ["--pdf", out]
    )
    before = digest(w.project)
    run = run_cli([command, w.project, *flag], seconds=120)
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and ("changed since" not in run.message or digest(w.project) != before):
        outcome = "silent wrong result"
    record(outcome, run.err + (run.raised or ""))


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_project_run_measures_changed_data_and_records_its_hash(
    change: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path, results=False)
    CHANGES[change](w)
    run = run_cli(["project", "run", w.project], seconds=300)

    def measured_anew(r) -> bool:
        saved = {Path(s["path"]).name: s["sha256"] for s in json.loads(w.project.read_text())["sources"]}
        return (
            "changed since the project last measured it" in r.message
            and saved["events.csv"] == digest(w.data)
            and saved["attributes.csv"] == digest(w.attributes)
        )

    record(judge_result(run, measured_anew), run.err + (run.raised or ""))


def test_touched_data_with_the_same_content_is_not_refused(tmp_path: Path, record: Callable) -> None:
    """A new modification time alone is not a change: the SHA-256 decides."""
    w = make_world(tmp_path)
    os.utime(w.data, (1_000_000_000, 1_000_000_000))
    out = tmp_path / "release.csv"
    run = run_cli(["release", w.project, "--profile", "raw:1d", *ACCEPT, "--out", out], seconds=300)
    record(judge_result(run, lambda r: out.is_file() and "people released: 12 of 12" in r.out), run.err)


def test_release_publishes_only_the_people_the_project_measured(tmp_path: Path, record: Callable) -> None:
    """A 13th person appended after the run: the release is refused rather than publish them."""
    w = make_world(tmp_path)
    with w.data.open("a") as fh:
        fh.writelines(f"newcomer,2024-03-0{d} 10:00:00,L{d}\n" for d in range(1, 6))
    out = tmp_path / "release.csv"
    run = run_cli(["release", w.project, "--profile", "raw:1d", *ACCEPT, "--out", out], seconds=300)
    outcome = judge_error(run)
    if outcome == "clear error" and out.exists():
        outcome = "silent wrong result"
    record(outcome, run.err + (run.raised or ""))
