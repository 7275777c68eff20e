"""Unwritable outputs (a full device, a folder, a release pointing at a device): one sentence, exit 1 or 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, run_cli
from tests.faults.world import ACCEPT, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]


UNWRITABLE_COMMANDS: dict[str, Callable[[object, Path], list]] = {
    "inspect_json": lambda w, o: ["inspect", w.data, "--json", o],
    "risk_json": lambda w, o: ["risk", w.data, *SETTINGS, "--p", "1", "--json", o],
    "theory_json": lambda w, o: ["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", o],
    "tradeoff_json": lambda w, o: ["tradeoff", w.project, "--json", o],
    "features_out": lambda w, o: ["attack", "features", "--data", w.data, "--out", o],
    "mask_out": lambda w, o: ["mask", "--method", "noise", "--in", w.numeric, "--out", o],
    "release_out": lambda w, o: [
        "release",
        w.project,
        "--profile",
        "raw:1d",
        *ACCEPT,
        "--out",
        o,
        "--overwrite",
    ],
    "report_text": lambda w, o: ["report", w.project, "--pdf", w.root / "r.pdf", "--text", o],
}


def _unwritable(kind: str, folder: Path) -> Path:
    """A full device, a release-looking name pointing at a device, or an existing folder."""
    if kind == "folder":
        (folder / "taken.csv").mkdir()
        return folder / "taken.csv"
    link = folder / "device.csv"
    link.symlink_to({"full": "/dev/full", "null": "/dev/null"}[kind])
    return link


@pytest.mark.parametrize("kind", ["full", "folder"])
@pytest.mark.parametrize("command", sorted(UNWRITABLE_COMMANDS))
def test_unwritable_output_is_one_sentence(command: str, kind: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    run = run_cli(UNWRITABLE_COMMANDS[command](w, _unwritable(kind, tmp_path)), seconds=120)
    record(judge_error(run), run.err + (run.raised or ""))


def test_release_to_a_link_to_dev_null_is_refused_before_the_work(tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    run = run_cli(
        ["release", w.project, "--profile", "raw:1d", *ACCEPT, "--out", _unwritable("null", tmp_path)]
    )
    record(judge_error(run), run.err + (run.raised or ""))
