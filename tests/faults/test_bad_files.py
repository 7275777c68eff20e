"""Malformed inputs of every format, read by ``privacy-studio inspect``: each file is either refused with one
clear sentence (the previous JSON output intact) or read with its bad rows rejected at the right lines."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import os
import socket
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.faults.conftest import write_events
from tests.faults.harness import Run, judge_error, judge_result, prepare_outputs, run_cli

HEADER = "user,time,location"
GOOD = [f"u{i % 4},2024-03-0{1 + i % 9} 10:00:00,L{i % 3}" for i in range(12)]

#: Bad values of one field; the row holding it must be rejected with its line number.
BAD_TIMES = [
    "",
    "not a time",
    "2024-13-01 10:00:00",
    "2024-02-30 10:00:00",
    "2024-03-01 25:00:00",
    "0001-01-01 00:00:00",
    "1600-06-01 00:00:00",
    "1677-01-01 00:00:00",
    "2263-01-01 00:00:00",
    "2300-01-01 00:00:00",
    "9999-12-31 23:59:59",
    "2024-03-01T10:00:00+25:00",
    "2024-03-01 10:61:00",
    "abc-03-01",
    "31/31/2024",
    "2024-03-01 10:00:00 XYZ",
    "NaT",
    "null",
    "2024-00-10 10:00:00",
    "2024-03-00 10:00:00",
]
BAD_USERS = ["", "   "]
BAD_LOCATIONS = ["", "  "]
#: Rows with the wrong number of fields (also rejected with their line).
BAD_SHAPES = ["u1,2024-03-01 10:00:00", "u1,2024-03-01 10:00:00,L1,extra", "u1", ",,,,,,"]


def _with_bad_row(row: str, at: int = 5) -> str:
    rows = [HEADER, *GOOD[: at - 2], row, *GOOD[at - 2 :]]
    return "\n".join(rows) + "\n"


def _rejected_at(run: Run, json_path: Path, line: int) -> bool:
    """The bad row is rejected with its line and every good row is kept."""
    report = json.loads(json_path.read_text())["report"]
    lines = [n for entry in report["rejected"].values() for n in entry["first_lines"]]
    return lines == [line] and report["rows_kept"] == len(GOOD)


def _case_rejected_row(tmp_path: Path, row: str, record: Callable) -> None:
    data = tmp_path / "data.csv"
    data.write_text(_with_bad_row(row))
    out = tmp_path / "out.json"
    run = run_cli(["inspect", data, "--json", out, "--no-cache"])
    record(judge_result(run, lambda r: _rejected_at(r, out, 5)), run.err + (run.raised or ""))


@pytest.mark.parametrize("value", BAD_TIMES)
def test_bad_time_is_rejected_at_its_line(value: str, tmp_path: Path, record: Callable) -> None:
    _case_rejected_row(tmp_path, f"u1,{value},L1", record)


@pytest.mark.parametrize("value", BAD_USERS)
def test_blank_user_is_rejected_at_its_line(value: str, tmp_path: Path, record: Callable) -> None:
    _case_rejected_row(tmp_path, f"{value},2024-03-01 10:00:00,L1", record)


@pytest.mark.parametrize("value", BAD_LOCATIONS)
def test_blank_location_is_rejected_at_its_line(value: str, tmp_path: Path, record: Callable) -> None:
    _case_rejected_row(tmp_path, f"u1,2024-03-01 10:00:00,{value}", record)


@pytest.mark.parametrize("row", BAD_SHAPES)
def test_row_of_wrong_shape_is_rejected_at_its_line(row: str, tmp_path: Path, record: Callable) -> None:
    _case_rejected_row(tmp_path, row, record)


def _gzip(text: str) -> bytes:
    return gzip.compress(text.encode())


def _zip(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in members.items():
            z.writestr(name, text)
    return buffer.getvalue()


def _parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


_VALID = _with_bad_row(GOOD[0])
_TIMES = pa.array([dt.datetime(2024, 3, 1), dt.datetime(2024, 3, 2)], pa.timestamp("us"))

#: Whole files that cannot be read: name -> content. Each must be one clear sentence.
UNREADABLE_FILES: dict[str, bytes] = {
    "empty.csv": b"",
    "only_newlines.csv": b"\n\n\n",
    "header_only.csv": (HEADER + "\n").encode(),
    "binary.csv": bytes(range(256)) * 8,
    "nul_bytes.csv": b"user,time,location\n\0\0\0\0\n",
    "no_time_column.csv": b"user,place\nu1,L1\nu2,L2\n",
    "no_user_column.csv": b"time,location\n2024-03-01,L1\n",
    "duplicate_header.csv": b"user,user,time\nu1,u2,2024-03-01\n",
    "all_rows_bad.csv": (HEADER + "\n" + "u1,never,L1\n" * 5).encode(),
    "all_times_ancient.csv": (HEADER + "\n" + "u1,0001-01-01 00:00:00,L1\n" * 5).encode(),
    "words.csv": b"lorem ipsum dolor sit amet\nconsectetur adipiscing elit\n",
    "semicolon_header_only.csv": b"user;time;location\n",
    "not_times.csv": (HEADER + "\n" + "u1,hello,L1\n" * 20).encode(),
    "ambiguous_dates.csv": (HEADER + "\n" + "u1,01/02/2024,L1\nu2,03/04/2024,L2\n").encode(),
    "truncated.gz": _gzip(_VALID)[:40],
    "empty_member.gz": _gzip(""),
    "garbage_after_magic.gz": b"\x1f\x8b" + b"\xff" * 200,
    "corrupt.zip": b"PK\x03\x04" + b"\x00" * 200,
    "empty.zip": _zip({}),
    "two_members.zip": _zip({"a.csv": _VALID, "b.csv": _VALID}),
    "truncated.zip": _zip({"a.csv": _VALID})[:60],
    "truncated.parquet": _parquet(pa.table({"user": ["a", "b"], "time": _TIMES, "location": ["x", "y"]}))[
        :80
    ],
    "magic_only.parquet": b"PAR1" + b"\x00" * 50,
    "list_column.parquet": _parquet(
        pa.table({"user": ["a", "b"], "time": _TIMES, "location": pa.array([[1], [2]])})
    ),
    "struct_column.parquet": _parquet(
        pa.table({"user": [{"id": 1}, {"id": 2}], "time": _TIMES, "location": ["x", "y"]})
    ),
    "map_column.parquet": _parquet(
        pa.table(
            {
                "user": ["a", "b"],
                "time": _TIMES,
                "location": pa.array([[("k", 1)], [("k", 2)]], pa.map_(pa.string(), pa.int64())),
            }
        )
    ),
    "no_rows.parquet": _parquet(
        pa.table(
            {
                "user": pa.array([], pa.string()),
                "time": pa.array([], pa.timestamp("us")),
                "location": pa.array([], pa.string()),
            }
        )
    ),
    "no_time.parquet": _parquet(pa.table({"user": ["a"], "location": ["x"]})),
    "bool_times.parquet": _parquet(
        pa.table({"user": ["a", "b"], "time": [True, False], "location": ["x", "y"]})
    ),
    "ancient.parquet": _parquet(
        pa.table(
            {
                "user": ["a", "b"],
                "time": pa.array([dt.datetime(1, 1, 1)] * 2, pa.timestamp("us")),
                "location": ["x", "y"],
            }
        )
    ),
    "long_line.csv": (HEADER + "\n" + "u1,2024-03-01 10:00:00," + "x" * (3 << 20) + "\n").encode(),
}


@pytest.mark.parametrize("name", sorted(UNREADABLE_FILES))
def test_unreadable_file_is_one_clear_sentence(name: str, tmp_path: Path, record: Callable) -> None:
    data = tmp_path / name
    data.write_bytes(UNREADABLE_FILES[name])
    out = tmp_path / "out.json"
    prepare_outputs(out)
    run = run_cli(["inspect", data, "--json", out, "--no-cache"], seconds=60)
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and name not in run.message:
        outcome = "crash"  # the message must say which file
    record(outcome, run.err + (run.raised or ""))


def test_long_line_names_its_line_and_the_limit(tmp_path: Path, record: Callable) -> None:
    data = tmp_path / "long.csv"
    data.write_bytes(UNREADABLE_FILES["long_line.csv"])
    run = run_cli(["inspect", data, "--no-cache"])
    outcome = judge_error(run)
    if outcome == "clear error" and not ("line 2" in run.message and "1,048,576" in run.message):
        outcome = "crash"
    record(outcome, run.err)


def test_ancient_parquet_times_are_rejected_row_by_row(tmp_path: Path, record: Callable) -> None:
    data = tmp_path / "mixed.parquet"
    times = pa.array(
        [dt.datetime(1, 1, 1), dt.datetime(2024, 3, 1), dt.datetime(2024, 3, 2)], pa.timestamp("us")
    )
    data.write_bytes(
        _parquet(pa.table({"user": ["a", "b", "c"], "time": times, "location": ["x", "y", "z"]}))
    )
    out = tmp_path / "out.json"
    run = run_cli(["inspect", data, "--json", out, "--no-cache"])

    def correct(r: Run) -> bool:
        report = json.loads(out.read_text())["report"]
        return report["rows_kept"] == 2 and [e["first_lines"] for e in report["rejected"].values()] == [[1]]

    record(judge_result(run, correct), run.err)


def _special(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        path = tmp_path / "pipe.csv"
        os.mkfifo(path)
        return str(path)
    if kind == "socket":
        path = tmp_path / "s.csv"
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        return str(path)
    if kind == "missing":
        return str(tmp_path / "missing.csv")
    if kind == "empty_folder":
        (tmp_path / "empty").mkdir()
        return str(tmp_path / "empty")
    return kind  # a device path


SPECIAL = ["fifo", "socket", "missing", "empty_folder", "/dev/zero", "/dev/null", "/dev/urandom"]


@pytest.mark.parametrize("command", ["inspect", "risk", "anonymizability"])
@pytest.mark.parametrize("kind", SPECIAL)
def test_special_file_is_refused_up_front(kind: str, command: str, tmp_path: Path, record: Callable) -> None:
    path = _special(kind, tmp_path)
    out = tmp_path / "out.json"
    prepare_outputs(out)
    extra = {"inspect": [], "risk": ["--spatial", "raw", "--temporal", "1h"], "anonymizability": []}[command]
    run = run_cli([command, path, *extra, "--json", out], seconds=30)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


@pytest.mark.parametrize("side", ["--antennas", "--hierarchy", "--locations"])
@pytest.mark.parametrize("kind", ["fifo", "missing", "/dev/zero"])
def test_special_side_file_is_refused(side: str, kind: str, tmp_path: Path, record: Callable) -> None:
    data = write_events(tmp_path / "events.csv")
    out = tmp_path / "out.json"
    prepare_outputs(out)
    run = run_cli(["inspect", data, side, _special(kind, tmp_path), "--json", out], seconds=30)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


@pytest.mark.parametrize("word", ["measure", "riks", "report.pdf", "--nope", "missing.psproj", "/dev/zero"])
def test_unknown_command_or_path_is_one_line(word: str, tmp_path: Path, record: Callable) -> None:
    run = run_cli([word, "x"] if not word.startswith(("/", "-")) else [word])
    outcome = judge_error(run)
    if outcome == "clear error" and len(run.message.splitlines()) != 1 and not word.startswith("-"):
        outcome = "crash"
    record(outcome, run.err)


HIERARCHIES = {
    "blank_parent": "antenna,zip\nL0,z1\nL1,\nL2,z2\n",
    "spaces_parent": "antenna,zip\nL0,z1\nL1,   \nL2,z2\n",
    "blank_second_level": "antenna,zip,district\nL0,z1,d1\nL1,z1,\nL2,z2,d2\n",
    "one_column": "antenna\nL0\nL1\n",
    "no_rows": "antenna,zip\n",
    "blank_location": "antenna,zip\n,z1\nL1,z1\n",
}


@pytest.mark.parametrize("name", sorted(HIERARCHIES))
def test_bad_hierarchy_is_reported_not_pooled(name: str, tmp_path: Path, record: Callable) -> None:
    data = tmp_path / "events.csv"
    data.write_text(
        "user,time,location\n" + "".join(f"u{i},2024-03-01 10:00:00,L{i % 3}\n" for i in range(9))
    )
    hierarchy = tmp_path / "hierarchy.csv"
    hierarchy.write_text(HIERARCHIES[name])
    out = tmp_path / "out.json"
    prepare_outputs(out)
    run = run_cli(["inspect", data, "--hierarchy", hierarchy, "--json", out, "--no-cache"])
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and "hierarchy.csv" not in run.message:
        outcome = "crash"
    record(outcome, run.err + (run.raised or ""))
