"""Benchmark of the risk engine on the synthetic city: the issue #3 grid, stage times, memory, naive baseline.

The city (``--users`` x ``--days``) is simulated once and kept as ``.npy`` columns in ``--cache``
(git-ignored); the timed run loads them, then runs the grid {antenna, zip, district} x {1h, 6h, 12h, 1w}
with p = 1..10 and S sampled users: unicity alone, then with exact class sizes (k-disclosure). A naive
pandas/set estimator (per sampled user, keep the table's rows at the known points and count users that have
all of them) is timed on a few samples per profile in the same run and extrapolated to S x p values.
JIT compilation happens in a warm-up on a few hundred users first, so times are "JIT warm".

    python benchmarks/bench_risk.py [--users 200000] [--days 30] [--quick] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SPATIAL = ["antenna", "zip", "district"]
TEMPORAL = ["1h", "6h", "12h", "1w"]
COLUMNS = ("user", "time", "location")


def rss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def simulate_to_cache(users: int, days: int, folder: Path) -> None:
    """Simulate the city and store its event columns, ids and hierarchy as .npy files."""
    from privacy_studio.core.sample.city import simulate_city

    city = simulate_city(users, days, seed=1)
    ev = city.event_table()
    lay = city.model.layout
    folder.mkdir(parents=True, exist_ok=True)
    for name in COLUMNS:
        np.save(folder / f"{name}.npy", getattr(ev, name))
    zips = lay.zip_code
    np.save(folder / "user_ids.npy", ev.user_ids.astype(str))
    np.save(folder / "location_ids.npy", ev.location_ids.astype(str))
    np.save(folder / "zip.npy", lay.zip_ids[zips].astype(str))
    np.save(folder / "district.npy", lay.district_ids[lay.district[zips]].astype(str))
    (folder / "tz.txt").write_text(ev.tz)


def load_cache(folder: Path):
    """The EventTable and hierarchy from the columnar cache (columns read into memory)."""
    from privacy_studio.core.events import EventTable
    from privacy_studio.core.hierarchy import Hierarchy

    cols = {name: np.load(folder / f"{name}.npy") for name in COLUMNS}
    location_ids = np.load(folder / "location_ids.npy")
    events = EventTable(
        user=cols["user"],
        time=cols["time"],
        location=cols["location"],
        user_ids=np.load(folder / "user_ids.npy"),
        location_ids=location_ids,
        tz=(folder / "tz.txt").read_text(),
    )
    levels = {"zip": np.load(folder / "zip.npy"), "district": np.load(folder / "district.npy")}
    return events, Hierarchy.from_mapping(location_ids, "antenna", levels)


def naive_seconds_per_estimate(events, hierarchy, profile, users: np.ndarray, p: int) -> float:
    """Seconds per |E_u| the way a data scientist would write it: a pandas table of (user, point) rows."""
    import pandas as pd

    from privacy_studio.core.generalize import generalize

    traces = generalize(events, profile, hierarchy)
    frame = pd.DataFrame(
        {"user": np.repeat(np.arange(traces.n_users), traces.lengths()), "point": traces.points}
    )
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for u in users:
        trace = traces.trace(int(u))
        known = set(rng.choice(trace, size=min(p, len(trace)), replace=False).tolist())
        rows = frame[frame["point"].isin(known)]
        counts = rows.groupby("user")["point"].nunique()
        int((counts == len(known)).sum())
    return (time.perf_counter() - t0) / len(users)


def run_grid_timed(
    events, hierarchy, measures: list[str], samples: int, spatial, temporal
) -> tuple[list, float]:
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.runner import run_grid

    settings = RiskSettings(
        spatial, temporal, p_values=list(range(1, 11)), measures=measures, samples=samples
    )
    rows = []
    t0 = time.perf_counter()
    for r in run_grid(events, settings, hierarchy):
        t = r.timings
        rows.append(
            {
                "profile": r.label,
                "d": r.d,
                "nnz": r.nnz,
                "index_mb": r.index_bytes / 2**20,
                "generalize_s": t.get("generalize", 0.0),
                "index_s": t.get("index", 0.0),
                "estimate_s": t.get("estimate", 0.0),
                "derived_from": r.derived_from,
                "unicity": [row.unicity for row in r.by_p],
            }
        )
    return rows, time.perf_counter() - t0


def warm_up(events, hierarchy) -> None:
    """Compile every kernel on a few hundred users so the timed run measures warm code."""
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.runner import run_grid

    small = events.subset_users(np.arange(min(300, events.n_users)))
    for measures in (["unicity"], ["unicity", "kdisc", "em", "kl", "worst", "kanon"]):
        list(
            run_grid(
                small,
                RiskSettings(["antenna", "zip"], ["1h", "1w"], measures=measures, samples=100),
                hierarchy,
            )
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200_000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--quick", action="store_true", help="20k users, 2 x 2 grid, 3 naive samples")
    ap.add_argument("--cache", default="benchmarks/results/cache", help="folder of the simulated cities")
    ap.add_argument("--json", default="benchmarks/results/bench_risk.json")
    ap.add_argument("--naive-samples", type=int, default=3)
    ap.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    args = ap.parse_args()
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    spatial, temporal = SPATIAL, TEMPORAL
    if args.quick:
        args.users, spatial, temporal = min(args.users, 20_000), ["antenna", "district"], ["1h", "1w"]
    folder = Path(args.cache) / f"city_{args.users}_{args.days}"
    if not (folder / "location_ids.npy").exists():
        print(f"simulating {args.users:,} users x {args.days} days into {folder} (once) ...", flush=True)
        code = (
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_risk as b; "
            f"from pathlib import Path; b.simulate_to_cache({args.users}, {args.days}, Path({str(folder)!r}))"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
    rss_before = rss_mb()
    t0 = time.perf_counter()
    events, hierarchy = load_cache(folder)
    _ = events.user_offsets()
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    warm_up(events, hierarchy)
    warm = time.perf_counter() - t0
    input_mb = sum(getattr(events, c).nbytes for c in COLUMNS) / 2**20
    unicity_rows, unicity_total = run_grid_timed(
        events, hierarchy, ["unicity"], args.samples, spatial, temporal
    )
    kdisc_rows, kdisc_total = run_grid_timed(
        events, hierarchy, ["unicity", "kdisc"], args.samples, spatial, temporal
    )
    peak = rss_mb()
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.runner import sample_users

    naive_users = sample_users(events.n_users, args.naive_samples, 99)
    p_count = 10
    for row, (s, t) in zip(unicity_rows, [(s, t) for s in spatial for t in temporal], strict=True):
        per = naive_seconds_per_estimate(events, hierarchy, Profile.parse(s, t), naive_users, 4)
        row["naive_s_extrapolated"] = per * min(args.samples, events.n_users) * p_count
        row["speedup"] = row["naive_s_extrapolated"] / max(row["index_s"] + row["estimate_s"], 1e-9)
    print(
        f"\n{events.n_users:,} users, {events.n_events:,} events, input arrays {input_mb:.0f} MB; "
        f"load from cache {load:.2f} s; JIT warm-up {warm:.1f} s; S = {args.samples:,}, p = 1..10"
    )
    head = f"{'profile':<18}{'d':>10}{'nnz':>11}{'idx MB':>8}{'gen s':>7}{'index s':>8}{'est s':>7}"
    head += f"{'kdisc s':>8}"
    print(head + f"{'naive s':>11}{'speedup':>10}  ε4")
    for u, k in zip(unicity_rows, kdisc_rows, strict=True):
        print(
            f"{u['profile']:<18}{u['d']:>10,}{u['nnz']:>11,}{u['index_mb']:>8.1f}{u['generalize_s']:>7.2f}"
            f"{u['index_s']:>8.2f}{u['estimate_s']:>7.2f}{k['estimate_s']:>8.2f}"
            f"{u['naive_s_extrapolated']:>11.0f}{u['speedup']:>10.0f}  {u['unicity'][3]:.3f}"
        )
    print(
        f"grid total (unicity): {unicity_total:.1f} s; with k-disclosure: {kdisc_total:.1f} s; "
        f"peak RSS {peak:.0f} MB (before loading {rss_before:.0f} MB, "
        f"engine + data {peak - rss_before:.0f} MB)"
    )
    out = {
        "threads": __import__("numba").get_num_threads(),
        "load_average": list(__import__("os").getloadavg()),
        "users": int(events.n_users),
        "events": int(events.n_events),
        "days": args.days,
        "samples": args.samples,
        "input_mb": input_mb,
        "load_s": load,
        "warmup_s": warm,
        "grid_unicity_s": unicity_total,
        "grid_kdisc_s": kdisc_total,
        "peak_rss_mb": peak,
        "rss_before_load_mb": rss_before,
        "profiles_unicity": unicity_rows,
        "profiles_kdisc": kdisc_rows,
        "baseline": "naive pandas isin/groupby per sampled user, timed in this run, extrapolated to S x 10 p",
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1))
    print(
        f"numba threads {out['threads']}, machine load average {out['load_average'][0]:.1f}; "
        f"wrote {args.json}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
