"""Broken project fields (p, levels, cells, sample sizes, a source that is the project itself, its saved
size, time and hash) are refused by every command that opens the project, which stays as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, prepare_outputs, run_cli
from tests.faults.world import ACCEPT, edit_project, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]


def _setting(key: str, value: object) -> Callable[[dict], None]:
    return lambda d: d["settings"].__setitem__(key, value)


def _source(key: str, value: object) -> Callable[[dict], None]:
    return lambda d: d["sources"][0].__setitem__(key, value)


FIELD_DAMAGES: dict[str, Callable[[dict], None]] = {
    "p_billion": _setting("p_values", [10**9]),
    "p_zero": _setting("p_values", [0]),
    "p_text": _setting("p_values", "1-10"),
    "spatial_integers": _setting("spatial", [1, 2]),
    "temporal_integers": _setting("temporal", [3600]),
    "spatial_text": _setting("spatial", "raw"),
    "cells_integers": _setting("cells", [[1, 2]]),
    "samples_huge": _setting("samples", 10**20),
    "source_is_the_project": _source("path", "p.psproj"),
    "size_negative": _source("size", -1),
    "mtime_text": _source("mtime_ns", "yesterday"),
    "sha_short": _source("sha256", "abc"),
}


@pytest.mark.parametrize("command", ["project run", "report", "release", "tradeoff"])
@pytest.mark.parametrize("damage", sorted(FIELD_DAMAGES))
def test_broken_project_field_is_refused(damage: str, command: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    edit_project(w.project, FIELD_DAMAGES[damage])
    out = tmp_path / ("r.pdf" if command == "report" else "r.csv")
    prepare_outputs(out)
    extra = {
        "report": ["--pdf", out],
        "release": ["--profile", "raw:1d", *ACCEPT, "--out", out, "--overwrite"],
    }
    before = w.project.read_bytes()
    run = run_cli([*command.split(), w.project, *extra.get(command, [])], seconds=30)
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and w.project.read_bytes() != before:
        outcome = "output lost"
    record(outcome, run.err + (run.raised or ""))
