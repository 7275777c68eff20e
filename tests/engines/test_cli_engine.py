"""``privacy-studio risk --engine duckdb`` writes the JSON numbers of ``--engine numba``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from privacy_studio.cli import main
from privacy_studio.core.runner import ProfileResult
from tests.engines.helpers import comparable
from tests.engines.test_equivalence import disclosure

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def risk_json(tmp_path: Path, engine: str, *extra: str) -> dict:
    out = tmp_path / f"{engine}.json"
    args = [
        "risk",
        str(SAMPLE / "events.csv"),
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
    numba = risk_json(tmp_path, "numba")
    duckdb = risk_json(tmp_path, "duckdb", "--memory-limit", "1GB", "--temp-dir", str(tmp_path / "spill"))
    assert [comparable(p) for p in duckdb["profiles"]] == [comparable(p) for p in numba["profiles"]]
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
