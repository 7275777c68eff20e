"""Special inputs: a FIFO, device, socket or folder given as any data or side input, a side file of
absurd size, or a project naming such files, is refused with one sentence before it is opened, and
nothing is written."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, prepare_outputs, run_cli
from tests.faults.world import ACCEPT, World, edit_project, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d", "--p", "1"]


def _special(kind: str, folder: Path) -> Path:
    """A FIFO, a device, a socket or a folder standing where a file is expected."""
    if kind == "fifo":
        os.mkfifo(folder / "special")
        return folder / "special"
    if kind == "socket":
        path = folder / "sock"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        return path
    if kind == "folder":
        (folder / "afolder").mkdir()
        return folder / "afolder"
    return Path({"dev_zero": "/dev/zero", "dev_null": "/dev/null"}[kind])


#: Commands given ``x`` as one input; "data" inputs may be folders of per-person files, side files not.
DATA_INPUTS: dict[str, Callable[[World, Path], list]] = {
    "inspect_data": lambda w, x: ["inspect", x],
    "risk_data": lambda w, x: ["risk", x, *SETTINGS, "--json", w.root / "o.json"],
    "anonymizability_data": lambda w, x: ["anonymizability", x, "--json", w.root / "o.json"],
    "project_new_data": lambda w, x: [
        "project",
        "new",
        x,
        *SETTINGS,
        "--name",
        "n",
        "--out",
        w.root / "n.psproj",
    ],
    "features_data": lambda w, x: ["attack", "features", "--data", x, "--out", w.root / "f.csv"],
    "mask_in": lambda w, x: ["mask", "--method", "noise", "--in", x, "--out", w.root / "m.csv"],
    "linkage_original": lambda w, x: ["attack", "linkage", "--original", x, "--masked", w.masked],
    "linkage_masked": lambda w, x: ["attack", "linkage", "--original", w.numeric, "--masked", x],
    "matching_identified": lambda w, x: ["attack", "matching", "--identified", x, "--anonymous", w.data],
    "matching_anonymous": lambda w, x: ["attack", "matching", "--identified", w.data, "--anonymous", x],
}
SIDE_INPUTS: dict[str, Callable[[World, Path], list]] = {
    "inspect_antennas": lambda w, x: ["inspect", w.data, "--antennas", x],
    "inspect_hierarchy": lambda w, x: ["inspect", w.data, "--hierarchy", x],
    "inspect_locations": lambda w, x: ["inspect", w.data, "--locations", x],
    "risk_hierarchy": lambda w, x: ["risk", w.data, *SETTINGS, "--hierarchy", x, "--json", w.root / "o.json"],
    "risk_knowledge": lambda w, x: [
        "risk",
        w.data,
        *SETTINGS,
        "--knowledge",
        f"explicit:{x}",
        "--json",
        w.root / "o.json",
    ],
    "project_new_attributes": lambda w, x: [
        "project",
        "new",
        w.data,
        *SETTINGS,
        "--name",
        "n",
        "--attributes",
        x,
        "--out",
        w.root / "n.psproj",
    ],
    "tradeoff_scores": lambda w, x: ["tradeoff", w.project, "--scores", x],
    "tradeoff_attributes": lambda w, x: ["tradeoff", w.project, "--attributes", x],
    "matching_links": lambda w, x: [
        "attack",
        "matching",
        "--identified",
        w.data,
        "--anonymous",
        w.data,
        "--links",
        x,
    ],
    "matching_identified_antennas": lambda w, x: [
        "attack",
        "matching",
        "--identified",
        w.data,
        "--anonymous",
        w.data,
        "--identified-antennas",
        x,
    ],
    "features_antennas": lambda w, x: [
        "attack",
        "features",
        "--data",
        w.data,
        "--antennas",
        x,
        "--out",
        w.root / "f.csv",
    ],
}
SPECIAL_KINDS = ["fifo", "socket", "dev_zero", "dev_null"]


def _refused_before_opening(argv: list, tmp_path: Path, record: Callable, said: tuple[str, ...]) -> None:
    run = run_cli(argv, seconds=20)
    outcome = judge_error(run)
    written = [p.name for p in tmp_path.iterdir() if p.name in ("o.json", "n.psproj", "f.csv", "m.csv")]
    if outcome == "clear error" and (written or not any(s in run.message for s in said)):
        outcome = "silent wrong result"
    record(outcome, run.err + (run.raised or ""))


@pytest.mark.parametrize("kind", SPECIAL_KINDS)
@pytest.mark.parametrize("where", sorted(DATA_INPUTS))
def test_special_file_as_data_is_refused(where: str, kind: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    argv = DATA_INPUTS[where](w, _special(kind, tmp_path))
    _refused_before_opening(argv, tmp_path, record, ("not a data file",))


@pytest.mark.parametrize("kind", [*SPECIAL_KINDS, "folder"])
@pytest.mark.parametrize("where", sorted(SIDE_INPUTS))
def test_special_file_as_side_file_is_refused(
    where: str, kind: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path)
    argv = SIDE_INPUTS[where](w, _special(kind, tmp_path))
    _refused_before_opening(argv, tmp_path, record, ("not a data file",))


@pytest.mark.parametrize("where", sorted(SIDE_INPUTS))
def test_side_file_of_absurd_size_is_refused_unread(where: str, tmp_path: Path, record: Callable) -> None:
    """A sparse 4 GiB side file: refused by its size, never read into memory."""
    w = make_world(tmp_path)
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as fh:
        fh.write(b"a,b\n")
        fh.truncate(4 << 30)
    _refused_before_opening(SIDE_INPUTS[where](w, huge), tmp_path, record, ("GiB",))


#: A project whose stored paths name a special file: (source index, reader key or None).
PROJECT_SPECIALS = {
    "events_fifo": (0, None),
    "hierarchy_fifo": (0, "hierarchy"),
    "attributes_fifo": (1, None),
}


@pytest.mark.parametrize("command", ["project run", "report", "release", "tradeoff"])
@pytest.mark.parametrize("where", sorted(PROJECT_SPECIALS))
def test_project_naming_a_special_file_is_refused(
    where: str, command: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path)
    fifo = _special("fifo", tmp_path)
    index, key = PROJECT_SPECIALS[where]

    def point_at_fifo(document: dict) -> None:
        source = document["sources"][index]
        if key is None:
            source["path"] = str(fifo)
        else:
            source["reader"][key] = str(fifo)

    edit_project(w.project, point_at_fifo)
    out = tmp_path / ("r.pdf" if command == "report" else "r.csv")
    prepare_outputs(out)
    extra = {
        "report": ["--pdf", out],
        "release": ["--profile", "raw:1d", *ACCEPT, "--out", out, "--overwrite"],
    }
    run = run_cli([*command.split(), w.project, *extra.get(command, [])], seconds=20)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))
