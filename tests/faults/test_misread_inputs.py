"""Inputs that used to be misread or misnamed: each is named for what it is (epoch milliseconds, UTF-16,
empty or nested archives), a plain file named .gz is read, and far-out times are rejected row by row by
every reader path (mixed zone styles, the out-of-core engine, knowledge files), never wrapped."""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.faults.harness import judge_error, judge_result, prepare_outputs, run_cli
from tests.faults.world import make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]


ROWS = "user,time,location\n" + "".join(
    f"u{i % 4},2024-03-0{1 + i % 9} 10:00:00,L{i % 3}\n" for i in range(12)
)


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _parquet() -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.table({"user": ["u1"], "time": ["2024-03-01 10:00:00"], "location": ["L1"]}), buffer)
    return buffer.getvalue()


#: name -> (file name, bytes, a phrase the one-sentence refusal must hold).
MISREAD: dict[str, tuple[str, bytes, str]] = {
    "epoch_milliseconds": (
        "ms.csv",
        (
            "user,time,location\n" + "".join(f"u{i},{1709290000000 + i * 3600000},L1\n" for i in range(20))
        ).encode(),
        "milliseconds",
    ),
    "epoch_microseconds": (
        "us.csv",
        ("user,time,location\n" + "".join(f"u{i},{1709290000000000 + i},L1\n" for i in range(20))).encode(),
        "microseconds",
    ),
    "utf16_bom": ("u16.csv", ROWS.encode("utf-16"), "UTF-16"),
    "utf16_le_no_bom": ("u16le.csv", ROWS.encode("utf-16-le"), "UTF-16"),
    "utf16_be_no_bom": ("u16be.csv", ROWS.encode("utf-16-be"), "UTF-16"),
    "utf32": ("u32.csv", ROWS.encode("utf-32"), "UTF-16"),
    "empty_zip": ("empty.zip", _zip({}), "empty"),
    "zip_in_zip": ("nested.zip", _zip({"inner.zip": _zip({"a.csv": ROWS.encode()})}), "itself an archive"),
    "gzip_in_zip": ("gz.zip", _zip({"a.csv.gz": gzip.compress(ROWS.encode())}), "itself an archive"),
    "parquet_in_zip": ("pq.zip", _zip({"a.parquet": _parquet()}), "itself an archive"),
    "gzip_in_gzip": ("twice.csv.gz", gzip.compress(gzip.compress(ROWS.encode())), "itself an archive"),
    "zip_of_two_files": ("two.zip", _zip({"a.csv": ROWS.encode(), "b.csv": ROWS.encode()}), "exactly one"),
}


MISREAD_CASES = [(name, "data") for name in sorted(MISREAD)] + [
    (name, "hierarchy") for name in sorted(MISREAD) if not name.startswith("epoch")
]


@pytest.mark.parametrize(("name", "where"), MISREAD_CASES)
def test_misread_input_is_named_for_what_it_is(
    name: str, where: str, tmp_path: Path, record: Callable
) -> None:
    """Data or a side table that is not UTF-8 CSV is refused saying what it is."""
    w = make_world(tmp_path)
    file_name, data, said = MISREAD[name]
    path = tmp_path / file_name
    path.write_bytes(data)
    argv = ["inspect", path] if where == "data" else ["inspect", w.data, "--hierarchy", path]
    run = run_cli(argv)
    outcome = judge_error(run)
    if outcome == "clear error" and (said not in run.message or len(run.message.splitlines()) > 1):
        outcome = "crash"  # refused, but not in one sentence naming what the file is
    record(outcome, run.err + (run.raised or ""))


def test_plain_file_named_gz_is_read(tmp_path: Path, record: Callable) -> None:
    """The first bytes decide: a plain CSV called .csv.gz is read as plain text, not inflated."""
    path = tmp_path / "plain.csv.gz"
    path.write_text(ROWS)
    out = tmp_path / "o.json"
    run = run_cli(["inspect", path, "--json", out, "--no-cache"])
    record(judge_result(run, lambda r: json.loads(out.read_text())["summary"]["events"] == 12), run.err)


FAR_TIMES = [
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "1500-06-01T00:00:00Z",
    "2300-01-01T00:00:00+01:00",
]


@pytest.mark.parametrize("style", ["offsets_and_z", "offsets_and_naive", "z_and_bad_row"])
@pytest.mark.parametrize("far", FAR_TIMES)
def test_far_out_time_is_rejected_row_by_row_in_mixed_columns(
    far: str, style: str, tmp_path: Path, record: Callable
) -> None:
    """Mixed zone styles take the row-by-row path; a far-out time there is rejected at its line, never
    wrapped to another date."""
    good = {"offsets_and_z": "2024-03-01T10:00:00+00:00", "offsets_and_naive": "2024-03-01T10:00:00+00:00"}
    first = good.get(style, "2024-03-01T10:00:00Z")
    rows = [f"u{i},{first},L1" for i in range(10)]
    rows += ["u20,2024-03-02 10:00:00,L1"] if style == "offsets_and_naive" else []
    rows += ["u21,not a time,L1"] if style == "z_and_bad_row" else []
    rows += ["u22,2024-03-03T10:00:00Z,L1", f"u30,{far},L2"]
    path = tmp_path / "mixed.csv"
    path.write_text("user,time,location\n" + "\n".join(rows) + "\n")
    out = tmp_path / "o.json"
    run = run_cli(["inspect", path, "--json", out, "--no-cache"])

    def rejected_at_its_line(r) -> bool:
        document = json.loads(out.read_text())
        rejected = document["report"]["rejected"].get("time outside the supported years 1679-2261", {})
        return (
            rejected.get("first_lines") == [len(rows) + 1]
            and document["summary"]["period_end"] < "2024-03-04"
        )

    record(judge_result(run, rejected_at_its_line), run.err + (run.raised or ""))


@pytest.mark.parametrize("engine", ["numba", "duckdb"])
@pytest.mark.parametrize("far", FAR_TIMES)
def test_far_out_time_is_rejected_by_every_engine(
    far: str, engine: str, tmp_path: Path, record: Callable
) -> None:
    """The out-of-core engine parses times in SQL: a far-out time is rejected there too, not kept."""
    rows = [f"u{i % 5},2024-03-0{1 + i % 9}T10:00:00Z,L{i % 3}" for i in range(40)] + [f"u9,{far},L1"]
    path = tmp_path / "far.csv"
    path.write_text("user,time,location\n" + "\n".join(rows) + "\n")
    out = tmp_path / "o.json"
    argv = ["risk", path, *SETTINGS, "--p", "1", "--engine", engine, "--json", out, "--no-cache"]
    run = run_cli(argv, seconds=300)

    def rejected(r) -> bool:
        document = json.loads(out.read_text())
        counts = document["import"]["rejected"].get("time outside the supported years 1679-2261", {})
        return counts.get("count") == 1 and document["profiles"][0]["n_users"] == 5

    record(judge_result(run, rejected), run.err + (run.raised or ""))


@pytest.mark.parametrize("far", FAR_TIMES)
def test_far_out_time_in_a_knowledge_file_is_refused(far: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    known = tmp_path / "known.csv"
    known.write_text(f"user,time,location\nu1,{far},L1\n")
    out = tmp_path / "o.json"
    prepare_outputs(out)
    argv = [
        "risk",
        w.data,
        "--spatial",
        "raw",
        "--temporal",
        "all",
        "--knowledge",
        f"explicit:{known}",
        "--json",
        out,
    ]
    run = run_cli(argv, seconds=120)
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and "line 2" not in run.message:
        outcome = "crash"
    record(outcome, run.err + (run.raised or ""))
