"""Absurd sizes, broken project fields, unwritable outputs, inputs that used to be misread or misnamed,
temporary files of killed runs, and folders of per-person files: each case is one clear sentence (exit
1 or 2, nothing written) or the right result."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from privacy_studio.core.atomic import TEMP_PREFIX
from tests.faults.harness import judge_error, judge_result, prepare_outputs, run_cli
from tests.faults.world import edit_project, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]

# --- absurd sizes ----------------------------------------------------------------------------------

ABSURD_P = ["1-10000000000", "1000000000", "10001", "1-" + "9" * 5000, "9" * 5000, "1-99999"]


@pytest.mark.parametrize("command", ["risk", "project new"])
@pytest.mark.parametrize("p", ABSURD_P)
def test_absurd_p_is_refused(p: str, command: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    out = tmp_path / ("o.json" if command == "risk" else "n.psproj")
    prepare_outputs(out)
    tail = ["--json", out] if command == "risk" else ["--name", "n", "--out", out, "--force"]
    run = run_cli([*command.split(), w.data, *SETTINGS, "--p", p, *tail], seconds=30)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


@pytest.mark.parametrize("population", ["0", "-1", str(10**13), str(10**30), "9" * 5000])
def test_absurd_population_is_refused(population: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    pdf = tmp_path / "r.pdf"
    prepare_outputs(pdf)
    run = run_cli(["report", w.project, "--pdf", pdf, "--population", population], seconds=30)
    record(judge_error(run, (pdf,)), run.err + (run.raised or ""))


@pytest.mark.parametrize("temp_dir", ["file", "/proc/self/nope", "/dev/null/x"])
def test_unusable_engine_temp_dir_is_refused(temp_dir: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    folder = str(w.data / "x") if temp_dir == "file" else temp_dir
    out = tmp_path / "o.json"
    prepare_outputs(out)
    argv = ["risk", w.data, *SETTINGS, "--p", "1", "--engine", "duckdb", "--temp-dir", folder, "--json", out]
    run = run_cli(argv, seconds=60)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


# --- broken project fields -------------------------------------------------------------------------


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
    extra = {"report": ["--pdf", out], "release": ["--profile", "raw:1d", "--out", out, "--overwrite"]}
    before = w.project.read_bytes()
    run = run_cli([*command.split(), w.project, *extra.get(command, [])], seconds=30)
    outcome = judge_error(run, (out,))
    if outcome == "clear error" and w.project.read_bytes() != before:
        outcome = "output lost"
    record(outcome, run.err + (run.raised or ""))


# --- unwritable outputs ----------------------------------------------------------------------------

UNWRITABLE_COMMANDS: dict[str, Callable[[object, Path], list]] = {
    "inspect_json": lambda w, o: ["inspect", w.data, "--json", o],
    "risk_json": lambda w, o: ["risk", w.data, *SETTINGS, "--p", "1", "--json", o],
    "theory_json": lambda w, o: ["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", o],
    "tradeoff_json": lambda w, o: ["tradeoff", w.project, "--json", o],
    "features_out": lambda w, o: ["attack", "features", "--data", w.data, "--out", o],
    "mask_out": lambda w, o: ["mask", "--method", "noise", "--in", w.numeric, "--out", o],
    "release_out": lambda w, o: ["release", w.project, "--profile", "raw:1d", "--out", o, "--overwrite"],
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
    run = run_cli(["release", w.project, "--profile", "raw:1d", "--out", _unwritable("null", tmp_path)])
    record(judge_error(run), run.err + (run.raised or ""))


# --- inputs that were misread or misnamed ----------------------------------------------------------

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


# --- temporary files of killed runs ----------------------------------------------------------------


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


# --- folders of per-person files and where a project looks for its data ----------------------------

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
