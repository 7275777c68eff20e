"""Benchmark of the synthetic city generator: time and peak memory, with baselines from the same run.

Stages, each in a fresh process so peak memory is its own:
  simulate   simulate_city(N users, D days) in memory (phone events of one period)
  floor      the least any generator must do: draw the same number of (user, time, antenna) triples with
             numpy and sort them by user and time
  python     the obvious per-event Python generator (random module, same model idea), timed on a small
             population and scaled per event
  write      generate_city(W users, D days) to disk: both periods, cards, single CDR file
  pandas     DataFrame.to_csv of the same events.csv columns as the writer (the usual way), same W

Usage: python benchmarks/bench_generate.py [--quick] [--users N] [--write-users W] [--days D] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _simulate(n_users: int, days: int) -> dict:
    from privacy_studio.core.sample import simulate_city

    t = time.perf_counter()
    city = simulate_city(n_users, days, seed=1)
    return {"seconds": time.perf_counter() - t, "rows": len(city.periods[0])}


def _floor(n_users: int, days: int, n_events: int) -> dict:
    import numpy as np

    from privacy_studio.core.sample.layout import antenna_count

    t = time.perf_counter()
    rng = np.random.default_rng(1)
    user = rng.integers(0, n_users, n_events).astype(np.int32)
    when = rng.integers(0, days * 86_400, n_events)
    location = rng.integers(0, antenna_count(n_users), n_events).astype(np.int32)
    order = np.lexsort((when, user))
    user, when, location = user[order], when[order], location[order]
    return {"seconds": time.perf_counter() - t, "rows": n_events}


def _python(days: int) -> dict:
    """A plain per-event generator: for each user, each day, each event draw hour, place and antenna."""
    import math
    import random

    rng = random.Random(1)
    n_users, n_antennas = 500, 400
    xy = [(rng.gauss(0, 5), rng.gauss(0, 5)) for _ in range(n_antennas)]
    hours = [0.3, 0.15, 0.08, 0.06, 0.08, 0.25, 0.9, 2.4, 3.4, 3.0, 2.8, 3.0]
    hours += [3.5, 3.2, 2.8, 2.8, 3.1, 3.9, 4.4, 4.1, 3.6, 2.9, 1.9, 0.9]
    events = []
    t = time.perf_counter()
    for u in range(n_users):
        home, work = rng.randrange(n_antennas), rng.randrange(n_antennas)
        rate = 1.35 * rng.lognormvariate(-0.5, 1.0)
        for d in range(days):
            k = sum(1 for _ in range(50) if rng.random() < rate / 50)
            for _ in range(k):
                h = rng.choices(range(24), weights=hours)[0]
                anchor = home if h < 8 or h > 18 else work
                r, a = rng.expovariate(0.5), rng.uniform(0, 2 * math.pi)
                px, py = xy[anchor][0] + r * math.cos(a), xy[anchor][1] + r * math.sin(a)
                ant = min(range(n_antennas), key=lambda i: (xy[i][0] - px) ** 2 + (xy[i][1] - py) ** 2)
                events.append((u, d * 86_400 + h * 3600 + rng.randrange(3600), ant))
    events.sort()
    return {"seconds": time.perf_counter() - t, "rows": len(events)}


def _write(n_users: int, days: int) -> dict:
    from privacy_studio.core.sample import generate_city

    out = Path(tempfile.mkdtemp(prefix="bench_generate_"))
    try:
        t = time.perf_counter()
        paths = generate_city(n_users, days, 1, out / "city", cdr_layout="single")
        seconds = time.perf_counter() - t
        size = sum(p.stat().st_size for p in paths.files())
        meta = json.loads(paths.meta.read_text())["counts"]
        rows = meta["events_period1"] + meta["events_period2"] + meta["transactions"] + meta["events_period1"]
        return {
            "seconds": seconds,
            "rows": rows,
            "events_period1": meta["events_period1"],
            "mb_written": size / 1e6,
        }
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _pandas(n_users: int, days: int) -> dict:
    """The same events.csv (period 1 only) written with pandas, string times formatted by pandas."""
    import pandas as pd

    from privacy_studio.core.sample import simulate_city

    city = simulate_city(n_users, days, seed=1)
    table = city.event_table(0)
    out = Path(tempfile.mkdtemp(prefix="bench_generate_pd_"))
    try:
        t = time.perf_counter()
        frame = pd.DataFrame(
            {
                "user": table.user_ids[table.user],
                "time": pd.to_datetime(table.time, unit="s", utc=True)
                .tz_convert(table.tz)
                .map(pd.Timestamp.isoformat),
                "location": table.location_ids[table.location],
                "x_km": table.x_km,
                "y_km": table.y_km,
                "lat": table.lat,
                "lon": table.lon,
            }
        )
        frame.to_csv(out / "events.csv", index=False)
        return {"seconds": time.perf_counter() - t, "rows": len(frame)}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _run(queue: mp.Queue, name: str, args: tuple) -> None:
    result = globals()[name](*args)
    result["peak_mb"] = _peak_mb()
    queue.put(result)


def stage(name: str, *args: object) -> dict:
    """Run one stage in a fresh process; returns its result with peak resident memory."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_run, args=(queue, name, args))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="50k users in memory, 10k written")
    parser.add_argument("--users", type=int, help="users simulated in memory (default 1,000,000)")
    parser.add_argument("--write-users", type=int, help="users written to disk (default 100,000)")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--json", default="benchmarks/results/bench_generate.json")
    args = parser.parse_args()
    n_users = args.users or (50_000 if args.quick else 1_000_000)
    n_write = args.write_users or (10_000 if args.quick else 100_000)

    results = {"simulate": stage("_simulate", n_users, args.days)}
    results["floor"] = stage("_floor", n_users, args.days, results["simulate"]["rows"])
    results["python"] = stage("_python", args.days)
    results["write"] = stage("_write", n_write, args.days)
    results["pandas"] = stage("_pandas", n_write, args.days)

    ns = {k: r["seconds"] / r["rows"] * 1e9 for k, r in results.items()}
    ratios = {
        "simulate_vs_floor": ns["simulate"] / ns["floor"],
        "python_vs_simulate": ns["python"] / ns["simulate"],
        "pandas_vs_write_per_row": ns["pandas"] / ns["write"],
    }
    what = {
        "simulate": f"{n_users:,} users x {args.days} d",
        "floor": "numpy draw + sort",
        "python": "per-event loop, 500 users",
        "write": f"{n_write:,} users, all files",
        "pandas": f"{n_write:,} users, events.csv",
    }
    print(f"{'stage':<9} {'what':<30} {'rows':>12} {'seconds':>9} {'ns/row':>9} {'peak MB':>9}")
    for name, r in results.items():
        cells = f"{r['rows']:>12,} {r['seconds']:>9.2f} {ns[name]:>9.0f} {r['peak_mb']:>9.0f}"
        print(f"{name:<9} {what[name]:<30} {cells}")
    print("ratios: " + ", ".join(f"{k} = {v:.1f}" for k, v in ratios.items()))
    print(f"written: {results['write']['mb_written']:.0f} MB")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "users": n_users,
        "write_users": n_write,
        "days": args.days,
        "results": results,
        "ratios": ratios,
    }
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"JSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
