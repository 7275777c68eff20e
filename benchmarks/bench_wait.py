"""Where the user waits (issue #17): command start, exact mode on real files, the first report after install.

Each part runs the base revision (a temporary ``git worktree``, default ``HEAD~1``) and the current tree in
the same run, alternating, and reports median wall and CPU seconds of each child process:

* ``start``: ``--help``, ``--version`` and an argument error (``risk`` without its options);
* ``exact``: ``risk --exact --p 2`` on Gowalla NYC at (venue, day) and GeoLife at raw × 1h
  (``/work/shared/real_data`` or ``--real-data``);
* ``first``: ``report`` of the sample project with an empty numba cache (what a fresh install did), after
  ``privacy-studio warmup`` (what the installer now does first; current tree only) and warm.

Scratch files (numba caches, PDFs, JSON) go to a fresh temporary folder that is removed.

    /work/main/.venv/bin/python benchmarks/bench_wait.py [--parts start,exact,first] [--base REV]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from baseline import ROOT, Tree, alternate, median_row, run_timed, scratch, table, trees, write_results

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
    """Each case once to compile (or be refused), then timed warm."""
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
                timing = run_timed(tree, args, NUMBA_CACHE_DIR=cache)
                if timing.returncode == 0:
                    timing = run_timed(tree, args, NUMBA_CACHE_DIR=cache)
                row = median_row(f"exact p=2 {name} ({what})", tree.label, [timing])
                if timing.returncode != 0:
                    row["note"] = (timing.stderr.strip().splitlines() or [""])[-1][:70]
                rows.append(row)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="start,exact,first", help="comma list of start, exact, first")
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
        if "first" in parts:
            rows += part_first(all_trees, folder)
    print(table(rows, COLUMNS))
    path = write_results("bench_wait", {"base": args.base, "parts": parts, "rows": rows}, args.json)
    print(f"\nwritten {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
