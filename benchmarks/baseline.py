"""What every benchmark shares: the previous commit as a baseline measured in the same run, scratch folders
that are removed, CPU time beside wall time, a printed table and a JSON file.

The baseline is a ``git worktree`` of a revision (default ``HEAD~1``) in a fresh temporary folder; a command
runs against a tree with that tree first on ``PYTHONPATH``, so the same interpreter and libraries serve both.
On a shared machine wall time depends on the neighbours: runs alternate between the trees, and the CPU time
of each child and its peak resident memory (``os.wait4``) are reported too.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


@dataclass(frozen=True)
class Tree:
    """A source tree under test: its label in tables ("current", "base 1a2b3c4") and its folder."""

    label: str
    path: Path


@dataclass(frozen=True)
class Timing:
    """One command's wall and CPU seconds (the child's user + system time), exit code, output and peak RSS."""

    wall: float
    cpu: float
    returncode: int
    stderr: str
    stdout: str = ""
    peak_mb: float = 0.0


def short_rev(rev: str) -> str:
    done = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or rev


@contextmanager
def scratch(prefix: str = "bench_") -> Iterator[Path]:
    """A fresh temporary folder, removed afterwards whatever happens."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def trees(base: str | None = "HEAD~1") -> Iterator[list[Tree]]:
    """[base worktree, current tree] (just the current one when ``base`` is None); the worktree and its
    temporary folder are removed on exit."""
    if base is None:
        yield [Tree("current", ROOT)]
        return
    with scratch("bench_base_") as folder:
        path = folder / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(path), base], cwd=ROOT, check=True, capture_output=True
        )
        try:
            yield [Tree(f"base {short_rev(base)}", path), Tree("current", ROOT)]
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True)


def tree_env(tree: Tree, **extra: str) -> dict[str, str]:
    """The environment of a child that must import the studio from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree.path), "PRIVACY_STUDIO_SKIP_FROZEN": "1"}
    env.update(extra)
    return env


def run_timed(tree: Tree, args: Sequence[str], timeout: float = 3600, **env: str) -> Timing:
    """Run ``python ARGS`` (e.g. ``-m privacy_studio --help``) against ``tree``: wall and CPU seconds and the
    peak resident memory of that child alone (``os.wait4``), its exit code and output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, *args], cwd=tree.path, env=tree_env(tree, **env), stdout=out, stderr=err
        )
        killer = threading.Timer(timeout, child.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            killer.cancel()
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        if wall >= timeout:
            raise subprocess.TimeoutExpired(child.args, timeout)
        out.seek(0)
        err.seek(0)
        return Timing(
            wall,
            usage.ru_utime + usage.ru_stime,
            child.returncode,
            err.read().decode(errors="replace"),
            out.read().decode(errors="replace"),
            usage.ru_maxrss / 1024,
        )


def alternate(
    all_trees: list[Tree], args: Sequence[str], repeats: int, **env: str
) -> dict[str, list[Timing]]:
    """``repeats`` runs per tree, taking turns (base, current, base, …) so load changes hit both alike."""
    out: dict[str, list[Timing]] = {tree.label: [] for tree in all_trees}
    for _ in range(repeats):
        for tree in all_trees:
            out[tree.label].append(run_timed(tree, args, **env))
    return out


def median_row(name: str, tree: str, timings: list[Timing]) -> dict:
    """A table row: medians of wall and CPU seconds over the runs, and whether all runs succeeded."""
    return {
        "benchmark": name,
        "tree": tree,
        "runs": len(timings),
        "wall_s": statistics.median(t.wall for t in timings),
        "cpu_s": statistics.median(t.cpu for t in timings),
        "ok": all(t.returncode == 0 for t in timings),
    }


def table(rows: list[dict], columns: Sequence[str]) -> str:
    """A plain-text table of ``rows`` (floats with 3 significant digits)."""

    def cell(value: object) -> str:
        return f"{value:.3g}" if isinstance(value, float) else str(value)

    widths = [max(len(c), *(len(cell(r.get(c, ""))) for r in rows)) for c in columns]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += [
        "  ".join(cell(r.get(c, "")).ljust(w) for c, w in zip(columns, widths, strict=True)) for r in rows
    ]
    return "\n".join(lines)


def write_results(name: str, payload: dict, path: Path | None = None) -> Path:
    """Write ``payload`` (plus the machine's load and the current commit) as JSON, atomically."""
    path = path or RESULTS / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"head": short_rev("HEAD"), "load_average": list(os.getloadavg()), **payload}
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path
