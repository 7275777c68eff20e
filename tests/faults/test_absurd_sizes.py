"""Absurd sizes: numbers of known points, populations and engine folders no run can use are refused with
one sentence before any work, the previous output intact."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, prepare_outputs, run_cli
from tests.faults.world import make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d"]


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
