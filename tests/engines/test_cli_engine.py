"""``privacy-studio risk --engine duckdb`` writes the JSON numbers of ``--engine numba``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privacy_studio.cli import main
from privacy_studio.core.risk.results import ProfileResult
from tests.engines.helpers import assert_worst_at_least, comparable, disclosure

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def risk_json(tmp_path: Path, engine: str, *extra: str, events: Path = SAMPLE / "events.csv") -> dict:
    out = tmp_path / f"{engine}.json"
    args = [
        "risk",
        str(events),
        "--antennas",
        str(SAMPLE / "antennas.csv"),
        "--hierarchy",
        str(SAMPLE / "hierarchy.csv"),
        "--spatial",
        "raw,district",
        "--temporal",
        "1h,1d",
        "--p",
        "1-4",
        "--samples",
        "300",
        "--draws",
        "2",
        "--engine",
        engine,
        "--json",
        str(out),
        *extra,
    ]
    assert main(args) == 0
    return json.loads(out.read_text())


def test_duckdb_and_numba_write_the_same_numbers(tmp_path):
    numba = risk_json(tmp_path, "numba", "--exact-budget", "0")  # the sampled estimate, as duckdb's
    spill = str(tmp_path / "spill")
    duckdb = risk_json(
        tmp_path, "duckdb", "--exact-budget", "0", "--memory-limit", "1GB", "--temp-dir", spill
    )
    assert [comparable(p) for p in duckdb["profiles"]] == [comparable(p) for p in numba["profiles"]]
    for a, b in zip(numba["profiles"], duckdb["profiles"], strict=True):
        assert_worst_at_least(a, b)
    got = [disclosure(ProfileResult.from_dict(p)) for p in duckdb["profiles"]]
    want = [disclosure(ProfileResult.from_dict(p)) for p in numba["profiles"]]
    assert got == [pytest.approx(w, rel=1e-9, nan_ok=True) for w in want]  # EM/KL on every engine
    assert numba["settings"] == duckdb["settings"]


def test_engine_errors_are_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit):
        risk_json(tmp_path, "oracle")
    assert (
        main(
            [
                "risk",
                str(SAMPLE / "events.csv"),
                "--spatial",
                "raw",
                "--temporal",
                "1h",
                "--engine",
                "duckdb",
                "--exact",
                "--json",
                str(tmp_path / "x.json"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "numba engine only" in err and "Traceback" not in err


def test_rejected_rows_are_reported_by_every_engine(tmp_path, capsys):
    events = tmp_path / "events.csv"
    good = (SAMPLE / "events.csv").read_text()
    header = good.splitlines()[0].split(",")
    bad = [",".join("not a time" if c == "time" else ("NOPE" if c == "location" else "x") for c in header)]
    bad.append(",".join("NOPE" if c == "location" else ("" if c == "user" else "y") for c in header))
    events.write_text(good + "\n".join(bad) + "\n")
    numba = risk_json(tmp_path, "numba", events=events)
    numba_err = capsys.readouterr().err
    duckdb = risk_json(tmp_path, "duckdb", events=events)
    duckdb_err = capsys.readouterr().err
    counts = [{k: v["count"] for k, v in run["import"]["rejected"].items()} for run in (numba, duckdb)]
    assert counts[0] == counts[1] and sum(counts[0].values()) == 2
    assert [run["import"]["rows_kept"] for run in (numba, duckdb)] == [numba["import"]["rows_read"] - 2] * 2
    assert (numba["engine"], duckdb["engine"]) == ("numba", "duckdb")
    assert "2 rejected" in numba_err and "2 rejected" in duckdb_err
    assert "line numbers not tracked" in duckdb_err  # the engine counts rows; the reader also names lines
    assert duckdb_err.count("without their line numbers") == 1


def test_duckdb_json_names_the_short_traces_option_it_ran_with(tmp_path):
    numba = risk_json(tmp_path, "numba", "--exact-budget", "0", "--short-traces", "all-points")
    duckdb = risk_json(tmp_path, "duckdb", "--short-traces", "all-points")
    assert {p["short_traces"] for p in duckdb["profiles"]} == {"all-points"}
    assert [comparable(p) for p in duckdb["profiles"]] == [comparable(p) for p in numba["profiles"]]
