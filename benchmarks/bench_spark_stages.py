"""Where the Spark engine spends its time: every Spark action of a run timed, against numba on the same file.

    python benchmarks/bench_spark_stages.py [--city benchmarks/results/cache/city_100000_30_parquet]
        [--memory 3g] [--threads 2] [--quick] [--grid] [--json OUT]

Reads a Parquet city made by ``bench_engines.py`` (``events.parquet`` + ``antennas.csv`` +
``hierarchy.csv``) or, with ``--quick``, the sample data's CSV; ``--grid`` runs issue #30's 12-profile grid
({antenna, zip, district} × {1h, 6h, 12h, 1w}, p = 1..10, S = 10,000, all measures) instead of district and
raw × 1h at p 1, 2, 4. Prints the per-profile stages (generalize / kanon / estimate), the Spark actions by
total time, and writes JSON with Spark/numba ratios from this same invocation.
"""

from __future__ import annotations

import argparse
import collections
import json
import time
from pathlib import Path

from privacy_studio.core.engines import EventFiles
from privacy_studio.core.engines.spark_engine import SparkEngine
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid

ROOT = Path(__file__).resolve().parents[1]
CITY = ROOT / "benchmarks" / "results" / "cache" / "city_100000_30_parquet"


def timed_actions(engine: SparkEngine) -> dict[str, list[float]]:
    """Wrap the engine's action runner so every Spark job it starts is timed by what it was for."""
    stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    run = engine._run

    def _run(action, what: str):
        t0 = time.perf_counter()
        try:
            return run(action, what)
        finally:
            stats[what][0] += 1
            stats[what][1] += time.perf_counter() - t0

    engine._run = _run
    return stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--city", type=Path, default=CITY)
    ap.add_argument("--memory", default="3g", help="Spark driver memory (local mode: all of Spark's)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="the sample data's CSV (2,000 users) instead")
    ap.add_argument("--grid", action="store_true", help="the 12-profile grid of issue #30 instead")
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "spark_stages.json"))
    args = ap.parse_args()
    if args.quick:
        folder, path = ROOT / "sample_data", ROOT / "sample_data" / "events.csv"
    else:
        folder, path = args.city, args.city / "events.parquet"
    options = ReaderOptions(
        antennas=str(folder / "antennas.csv"), hierarchy=str(folder / "hierarchy.csv"), use_cache=False
    )
    risk = RiskSettings(
        spatial=["district", "raw"],
        temporal=["1h"],
        p_values=[1, 2, 4],
        samples=2000,
        measures=["unicity", "kdisc", "kanon", "worst"],
        exact_budget=0,  # numba would make cheap p exact; relational engines sample: compare like with like
    )
    if args.grid:
        risk = RiskSettings(
            spatial=["antenna", "zip", "district"],
            temporal=["1h", "6h", "12h", "1w"],
            p_values=list(range(1, 11)),
            samples=10_000,
            exact_budget=0,
        )
    t0 = time.perf_counter()
    dataset = load_dataset(str(path), options)
    numba_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    expected = list(run_grid(dataset, risk))
    numba_grid = time.perf_counter() - t0
    t0 = time.perf_counter()
    engine = SparkEngine(
        threads=args.threads, memory_limit=args.memory, spark_master=f"local[{args.threads}]"
    )
    start = time.perf_counter() - t0
    stats = timed_actions(engine)
    t0 = time.perf_counter()
    with engine:
        got = list(engine.run_grid(EventFiles(str(path), options), risk))
    spark_grid = time.perf_counter() - t0
    same = all(
        a.kanon == b.kanon and [r.class_sizes for r in a.by_p] == [r.class_sizes for r in b.by_p]
        for a, b in zip(expected, got, strict=True)
    )
    staged = sum(sum(r.timings.values()) for r in got)
    print(f"{dataset.events.n_users:,} users, {dataset.events.n_events:,} events; same class sizes: {same}")
    print(f"numba: load {numba_load:.1f} s, grid {numba_grid:.1f} s")
    print(f"spark: JVM start {start:.1f} s, read+code {spark_grid - staged:.1f} s, grid {spark_grid:.1f} s")
    print(
        f"{'profile':<16} {'generalize':>10} {'kanon':>8} {'estimate':>9}   numba: generalize+index, estimate"
    )
    for a, b in zip(expected, got, strict=True):
        t, n = b.timings, a.timings
        print(
            f"{b.label:<16} {t['generalize']:>10.1f} {t['kanon']:>8.1f} {t['estimate']:>9.1f}"
            f"   {n['generalize'] + n['index']:.2f}, {n['estimate']:.2f}"
        )
    print(f"{'Spark action':<40} {'jobs':>5} {'seconds':>8}")
    for what, (n, secs) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        print(f"{what:<40} {n:>5} {secs:>8.1f}")
    out = {
        "users": dataset.events.n_users,
        "events": dataset.events.n_events,
        "threads": args.threads,
        "same_class_sizes": same,
        "numba": {"load": numba_load, "grid": numba_grid, "profiles": [r.timings for r in expected]},
        "spark": {
            "start": start,
            "read_and_code": spark_grid - staged,
            "grid": spark_grid,
            "profiles": [r.timings for r in got],
            "actions": {k: {"jobs": v[0], "seconds": v[1]} for k, v in stats.items()},
        },
        "ratio_spark_to_numba": spark_grid / (numba_load + numba_grid),
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1))
    print(f"spark / numba (load + grid): {out['ratio_spark_to_numba']:.1f}x; JSON: {args.json}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
