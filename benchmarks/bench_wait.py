"""Where the user waits (issue #17): command start, exact mode on real files, the first report after install.

Each part runs the base revision (a temporary ``git worktree``, default ``HEAD~1``) and the current tree in
the same run, alternating, and reports median wall and CPU seconds of each child process:

* ``start``: ``--help``, ``--version`` and an argument error (``risk`` without its options);
* ``exact``: ``risk --exact --p 2`` on Gowalla NYC at (venue, day) and GeoLife at raw × 1h
  (``/work/shared/real_data`` or ``--real-data``), and the enumeration alone on one thread in subsets per
  CPU-second (``exact_rate.py``);
* ``first``: ``report`` of the sample project with an empty numba cache (what a fresh install did), after
  ``privacy-studio warmup`` (what the installer now does first; current tree only) and warm;
* ``window``: from launching ``privacy-studio gui sample.psproj`` (offscreen) to the main window shown and
  its event loop idle, on an empty numba cache and after the warm-up (CPU is the window process's own).

Scratch files (numba caches, PDFs, JSON) go to a fresh temporary folder that is removed.

    /work/main/.venv/bin/python benchmarks/bench_wait.py [--parts start,exact,first,window] [--base REV]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from baseline import (
    ROOT,
    Timing,
    Tree,
    alternate,
    median_row,
    run_timed,
    scratch,
    table,
    tree_env,
    trees,
    write_results,
)

CLI = ["-m", "privacy_studio"]
COLUMNS = ("benchmark", "tree", "runs", "wall_s", "cpu_s", "ok", "note")


def part_start(all_trees: list[Tree], repeats: int) -> list[dict]:
    rows = []
    for name, args in (("--help", ["--help"]), ("--version", ["--version"]), ("argument error", ["risk"])):
        for label, timings in alternate(all_trees, [*CLI, *args], repeats).items():
            row = median_row(f"start {name}", label, timings)
            row["ok"] = all(t.returncode in (0, 2) for t in timings)  # an argument error exits with 2
            rows.append(row)
    return rows


def part_exact(all_trees: list[Tree], real: Path, folder: Path) -> list[dict]:
    """Each case twice to compile (the first run also fills the studio's columnar cache, the second is the
    first to read it, memory-mapped and read-only: other specializations), then timed warm; or refused."""
    gowalla = [str(real / "gowalla_nyc" / "gowalla_events_nyc.tsv.gz"), "--no-header"]
    gowalla += ["--columns", "user,time,lat,lon,location"]
    geolife = [str(real / "geolife_privacy" / "geolife_privacy.csv")]
    cases = (("Gowalla venue x day", gowalla, "raw", "1d"), ("GeoLife raw x 1h", geolife, "raw", "1h"))
    rows = []
    for name, data, spatial, temporal in cases:
        for measures, what in (
            ("unicity,kdisc,worst", "no EM/KL"),
            ("unicity,kdisc,kanon,em,kl,worst", "all"),
        ):
            for tree in all_trees:
                args = [*CLI, "risk", *data, "--spatial", spatial, "--temporal", temporal, "--p", "2"]
                args += ["--exact", "--measures", measures, "--json", str(folder / "exact.json")]
                cache = str(folder / f"numba-{tree.label}")
                for _ in range(3):  # compile; compile what reading the columnar cache needs; timed
                    timing = run_timed(tree, args, NUMBA_CACHE_DIR=cache)
                    if timing.returncode != 0:
                        break
                row = median_row(f"exact p=2 {name} ({what})", tree.label, [timing])
                if timing.returncode != 0:
                    row["note"] = (timing.stderr.strip().splitlines() or [""])[-1][:70]
                rows.append(row)
    return rows


def part_exact_rate(all_trees: list[Tree], real: Path, folder: Path) -> list[dict]:
    """The enumeration alone on one thread (``exact_rate.py``): subsets per CPU-second."""
    gowalla = real / "gowalla_nyc" / "gowalla_events_nyc.tsv.gz"
    script = [str(ROOT / "benchmarks" / "exact_rate.py"), str(gowalla)]
    rows = []
    for tree in all_trees:
        done = run_timed(tree, script, NUMBA_CACHE_DIR=str(folder / f"numba-{tree.label}"))
        for line in done.stdout.splitlines():
            case = json.loads(line)
            what = "with EM/KL" if case["with_em"] else "sizes only"
            rows.append(
                {
                    "benchmark": f"exact p=2 Gowalla enumeration, 1 thread ({what})",
                    "tree": tree.label,
                    "runs": 1,
                    "wall_s": case["wall_s"],
                    "cpu_s": case["cpu_s"],
                    "ok": done.returncode == 0,
                    "note": f"{case['subsets'] / case['cpu_s'] / 1e6:.1f}M subsets per CPU-s",
                }
            )
    return rows


def part_first(all_trees: list[Tree], folder: Path) -> list[dict]:
    """The sample project's report: empty numba cache, then warm; after the warm-up (current tree)."""
    report = [*CLI, "report", str(ROOT / "sample_data" / "sample.psproj"), "--pdf", str(folder / "r.pdf")]
    rows = []
    for tree in all_trees:
        cold = str(folder / f"cold-{tree.label}")
        for name in ("first report, empty numba cache", "report again (warm)"):
            rows.append(median_row(name, tree.label, [run_timed(tree, report, NUMBA_CACHE_DIR=cold)]))
    current, warmed = all_trees[-1], str(folder / "warmed")
    warmup = run_timed(current, [*CLI, "warmup", "--quiet"], NUMBA_CACHE_DIR=warmed)
    rows.append(median_row("warmup (the install step)", current.label, [warmup]))
    after = run_timed(current, report, NUMBA_CACHE_DIR=warmed)
    rows.append(median_row("first report after warmup", current.label, [after]))
    return rows


#: The environment variable by which the window says it is ready (``privacy_studio.gui.app.READY_FILE``).
READY_SIGNAL = "PRIVACY_STUDIO_READY_FILE"
#: Seconds to wait for a window to say it is ready (a tree older than the ready signal never says it).
WINDOW_TIMEOUT = 120


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process, all its threads (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def launch_window(tree: Tree, cache: Path, folder: Path) -> Timing:
    """Open the sample project's window offscreen; wall and CPU seconds until it is shown and idle."""
    ready = folder / "window-ready"
    ready.unlink(missing_ok=True)
    env = tree_env(
        tree,
        NUMBA_CACHE_DIR=str(cache),
        **{READY_SIGNAL: str(ready)},
        QT_QPA_PLATFORM="offscreen",
        XDG_CONFIG_HOME=str(folder / "config"),  # recent files and window geometry stay in the scratch
    )
    args = [sys.executable, *CLI, "gui", str(ROOT / "sample_data" / "sample.psproj")]
    t0 = time.perf_counter()
    child = subprocess.Popen(args, cwd=tree.path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while not ready.exists() and child.poll() is None and time.perf_counter() - t0 < WINDOW_TIMEOUT:
        time.sleep(0.01)
    wall, cpu, shown = time.perf_counter() - t0, _cpu_seconds(child.pid), ready.exists()
    child.terminate()
    _, stderr = child.communicate(timeout=60)
    return Timing(wall, cpu, 0 if shown else 1, "" if shown else "no ready signal: " + stderr.decode()[-200:])


def part_window(all_trees: list[Tree], folder: Path) -> list[dict]:
    """Window ready on an empty numba cache (its warm-up then runs in the background), then after the
    install's warm-up."""
    rows = []
    for tree in all_trees:
        if READY_SIGNAL not in (tree.path / "privacy_studio" / "gui" / "app.py").read_text(encoding="utf-8"):
            rows.append({"benchmark": "window ready", "tree": tree.label, "note": "no ready signal yet"})
            continue
        cache = folder / f"window-{tree.label}"
        for name in ("window ready, empty numba cache", "window ready, after warmup"):
            if name.endswith("after warmup"):
                run_timed(tree, [*CLI, "warmup", "--quiet"], NUMBA_CACHE_DIR=str(cache))
            timing = launch_window(tree, cache, folder)
            row = median_row(name, tree.label, [timing])
            row["note"] = timing.stderr.strip().replace("\n", " ")[:70]
            rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts", default="start,exact,first,window", help="comma list of start, exact, first, window"
    )
    parser.add_argument("--base", default="HEAD~1", help="revision measured as the baseline (default HEAD~1)")
    parser.add_argument("--no-baseline", action="store_true", help="measure the current tree only")
    parser.add_argument("--repeats", type=int, default=5, help="runs per tree of each start command")
    parser.add_argument("--real-data", type=Path, default=Path("/work/shared/real_data"))
    parser.add_argument("--json", type=Path, default=None, help="default benchmarks/results/bench_wait.json")
    args = parser.parse_args()
    parts = [p for p in args.parts.split(",") if p]
    rows: list[dict] = []
    with trees(None if args.no_baseline else args.base) as all_trees, scratch("bench_wait_") as folder:
        if "start" in parts:
            rows += part_start(all_trees, args.repeats)
        if "exact" in parts:
            rows += part_exact(all_trees, args.real_data, folder)
            rows += part_exact_rate(all_trees, args.real_data, folder)
        if "first" in parts:
            rows += part_first(all_trees, folder)
        if "window" in parts:
            rows += part_window(all_trees, folder)
    print(table(rows, COLUMNS))
    path = write_results("bench_wait", {"base": args.base, "parts": parts, "rows": rows}, args.json)
    print(f"\nwritten {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
