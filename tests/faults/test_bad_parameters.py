"""Parameters out of range on the command line: each is one clear sentence before any work, the previous
output intact; a few odd but valid ones (duplicate profiles) must give the right result."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import Run, judge_error, judge_result, prepare_outputs, run_cli

RISK = ["--spatial", "raw", "--temporal", "1h", "--p", "1", "--samples", "50"]

#: (flag, value) pairs ``risk`` must refuse.
BAD_RISK_PARAMETERS = [
    ("--spatial", "grid:0"),
    ("--spatial", "grid:-1"),
    ("--spatial", "grid:1e-300"),
    ("--spatial", "grid:inf"),
    ("--spatial", "grid:nan"),
    ("--spatial", "grid:abc"),
    ("--spatial", "grid:"),
    ("--spatial", "grid:1e400"),
    ("--spatial", "grid:0.0001"),
    ("--spatial", "grid:99999"),
    ("--spatial", ""),
    ("--spatial", ",,"),
    ("--spatial", "nosuchlevel"),
    ("--temporal", "0h"),
    ("--temporal", "-1h"),
    ("--temporal", "1e30w"),
    ("--temporal", "99999999999999999999h"),
    ("--temporal", "abc"),
    ("--temporal", ""),
    ("--temporal", "0.1s"),
    ("--temporal", "2000000w"),
    ("--temporal", "1 fortnight"),
    ("--p", "0"),
    ("--p", "-1"),
    ("--p", "a"),
    ("--p", "10-1"),
    ("--p", "99999999999999999999"),
    ("--p", ""),
    ("--p", "1.5"),
    ("--p", "3000000000"),
    ("--seed", "-1"),
    ("--seed", "18446744073709551616"),
    ("--seed", "99999999999999999999999"),
    ("--seed", "abc"),
    ("--samples", "0"),
    ("--samples", "-5"),
    ("--samples", "99999999999"),
    ("--draws", "0"),
    ("--draws", "4294967296"),
    ("--reference-p", "0"),
    ("--em-samples", "0"),
    ("--measures", "bogus"),
    ("--measures", ""),
    ("--knowledge", "bogus"),
    ("--knowledge", "explicit:/nonexistent.csv"),
    ("--tz", "Mars/Olympus_Mons"),
    ("--tz", ""),
    ("--memory-limit", "lots"),
    ("--memory-limit", "-4GB"),
    ("--engine", "quantum"),
    ("--format", "xml"),
    ("--map", "nonsense"),
    ("--map", "user=nosuchcolumn"),
    ("--delimiter", "abc"),
    ("--columns", "user,time"),
    ("--antennas", "/nonexistent/antennas.csv"),
]


@pytest.mark.parametrize(("flag", "value"), BAD_RISK_PARAMETERS)
def test_risk_parameter_out_of_range(
    flag: str, value: str, events_csv: Path, tmp_path: Path, record: Callable
) -> None:
    out = tmp_path / "out.json"
    prepare_outputs(out)
    run = run_cli(["risk", events_csv, *RISK, "--json", out, f"{flag}={value}"])
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


BAD_OTHER = [
    ["theory", "--n", "-1", "--q", "5", "--d", "10", "--json", "{tmp}/out.json"],
    ["theory", "--n", "100", "--q", "nan", "--d", "10", "--json", "{tmp}/out.json"],
    ["anonymizability", "{data}", "--seed", "-3"],
    ["anonymizability", "{data}", "--k", "0"],
    ["generate", "--out", "{tmp}/no/such/deep/folder", "--users", "-5"],
    ["tradeoff", "{tmp}/missing.psproj"],
    ["report", "{tmp}/missing.psproj", "--pdf", "{tmp}/r.pdf"],
    ["report", "{data}", "--pdf", "{tmp}/r.txt"],
    ["inspect", "{data}", "--json", "{tmp}/no/such/folder/out.json"],
    ["risk", "{data}", "--spatial", "raw", "--temporal", "1h", "--json", "{tmp}/missing_folder/o.json"],
    ["mask", "{tmp}/missing.csv", "--out", "{tmp}/m.csv", "--method", "noise"],
    ["attack", "features", "{tmp}/missing.csv", "--out", "{tmp}/f.csv"],
]


@pytest.mark.parametrize("argv", BAD_OTHER, ids=lambda a: "-".join(a[:1] + a[2:4]))
def test_other_command_refuses_bad_input(
    argv: list[str], events_csv: Path, tmp_path: Path, record: Callable
) -> None:
    out = tmp_path / "out.json"
    prepare_outputs(out)
    filled = [a.format(data=events_csv, tmp=tmp_path) for a in argv]
    run = run_cli(filled)
    record(judge_error(run, (out,)), run.err + (run.raised or ""))


def _profiles(path: Path) -> list[str]:
    return [f"{p['spatial']} x {p['temporal']}" for p in json.loads(path.read_text())["profiles"]]


@pytest.mark.parametrize(
    ("spatial", "temporal", "expected"),
    [
        ("raw,raw", "1h", ["raw x 1h"]),
        ("raw", "1h,60min,3600s", ["raw x 1h"]),
        ("raw, raw ,raw", "all,all", ["raw x all"]),
    ],
)
def test_duplicate_profiles_are_merged(
    spatial: str, temporal: str, expected: list[str], events_csv: Path, tmp_path: Path, record: Callable
) -> None:
    out = tmp_path / "out.json"
    run = run_cli(
        ["risk", events_csv, "--spatial", spatial, "--temporal", temporal, "--p", "1", "--json", out]
    )

    def correct(r: Run) -> bool:
        return _profiles(out) == expected

    record(judge_result(run, correct), run.err + (run.raised or ""))
