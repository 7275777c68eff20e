"""Benchmark of the risk engine on the synthetic city: the issue #17 grid, time, memory, a yardstick, a base.

The city (``--users`` x ``--days``) is simulated once and kept as ``.npy`` columns in ``--cache``
(git-ignored) and reused. Each tree under test (the base revision ``--base``, checked out by
``baseline.py`` as a temporary git worktree, and the current one, taking turns) runs in its own process,
which loads the columns, compiles on a few hundred users, then times: generalizing antenna x 1h and
district x 1w from the events (local time included, as a fresh table needs it; best of three) against a
one-pass numba floor over the same arrays (best of five), and the grid
{antenna, zip, district} x {1h, 6h, 12h, 1w}, p = 1..10, S sampled users (unicity), end to end. Its peak
resident memory (VmHWM) is its own; the peak of each profile is read by resetting VmHWM between profiles.
A third process runs an independent CSR + galloping-intersection pipeline (``csr_gallop.py``) on the same
grid as a speed yardstick and checks that it finds the same unicity as the current tree. Last, each tree's
``privacy-studio risk`` runs the grid on a Parquet copy of the city (``bench_engines.py`` makes it once)
as a user would, timed on its third run (the first fills the studio's columnar cache, the second compiles
what reading it needs).

    python benchmarks/bench_risk.py [--users 200000] [--days 30] [--base REV] [--repeats 1] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import baseline

SPATIAL = ["antenna", "zip", "district"]
TEMPORAL = ["1h", "6h", "12h", "1w"]
COLUMNS = ("user", "time", "location")
#: Generalizations timed per profile, the best kept (as the floor keeps its best of five); the first one,
#: which also pays the kernel's first page faults of fresh output memory, is in the JSON.
GEN_REPEATS = 3
PROFILE_COLUMNS = (
    "profile",
    "derived_from",
    "nnz",
    "generalize_s",
    "index_s",
    "estimate_s",
    "peak_mb",
    "eps4",
)


def peak_mb() -> float:
    """This process's peak resident memory since start or the last :func:`reset_peak` (VmHWM, MB)."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> None:
    """Start VmHWM again from the current resident memory (Linux ``clear_refs`` 5)."""
    with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
        fh.write("5")


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


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


def risk_settings_class() -> type:
    """The tree's RiskSettings: in ``core/risk/settings.py`` since issue #18, in ``core/runner.py`` before
    (a base as old as issue #17's filing, c8562bc, still runs)."""
    try:
        from privacy_studio.core.risk.settings import RiskSettings
    except ImportError:
        from privacy_studio.core.runner import RiskSettings
    return RiskSettings


def warm_up(events, hierarchy) -> None:
    """Compile every kernel on a few hundred users so the timed run measures warm code."""
    from privacy_studio.core.runner import run_grid

    RiskSettings = risk_settings_class()

    small = events.subset_users(np.arange(min(300, events.n_users)))
    list(run_grid(small, RiskSettings(SPATIAL, TEMPORAL, measures=["unicity"], samples=100), hierarchy))


def tree_worker(folder: Path, samples: int, spatial: list[str], temporal: list[str]) -> dict:
    """One tree's figures: generalization against the floor, then the grid with per-profile peaks."""
    from bench_load import floor_seconds

    from privacy_studio.core.generalize import Profile, generalize
    from privacy_studio.core.runner import run_grid

    RiskSettings = risk_settings_class()

    t0 = time.perf_counter()
    events, hierarchy = load_cache(folder)
    events.user_offsets()
    out: dict = {"load_s": time.perf_counter() - t0}
    out["input_mb"] = sum(getattr(events, c).nbytes for c in COLUMNS) / 2**20
    warm_up(events, hierarchy)
    for s, t in (("antenna", "1h"), ("district", "1w")):
        runs = []
        for _ in range(GEN_REPEATS):
            t0 = time.perf_counter()
            traces = generalize(events, Profile.parse(s, t), hierarchy)
            runs.append(time.perf_counter() - t0)
            del traces
        out[f"gen_{s}_{t}_s"] = min(runs)
        out[f"gen_{s}_{t}_first_s"] = runs[0]
    out["floor_s"] = floor_seconds(events.user, events.time, events.location)
    peaks = [peak_mb()]
    reset_peak()
    settings = RiskSettings(spatial, temporal, measures=["unicity"], samples=samples)
    profiles = []
    t0, c0 = time.perf_counter(), cpu_s()
    for r in run_grid(events, settings, hierarchy):
        peaks.append(peak_mb())
        reset_peak()
        profiles.append(
            {
                "profile": r.label,
                "derived_from": r.derived_from,
                "nnz": r.nnz,
                "peak_mb": peaks[-1],
                **{f"{k}_s": r.timings.get(k, 0.0) for k in ("generalize", "index", "estimate")},
                "unicity": [row.unicity for row in r.by_p],
            }
        )
    out.update(grid_s=time.perf_counter() - t0, grid_cpu_s=cpu_s() - c0, peak_mb=max(peaks))
    out.update(setup_peak_mb=peaks[0], profiles=profiles, n_users=events.n_users, n_events=events.n_events)
    return out


def yardstick_worker(folder: Path, samples: int, spatial: list[str], temporal: list[str]) -> dict:
    """The independent CSR + galloping pipeline on the same grid, users and orders (see csr_gallop.py)."""
    import csr_gallop as cg

    from privacy_studio.core.generalize import TemporalLevel
    from privacy_studio.core.runner import sample_users

    events, hierarchy = load_cache(folder)
    local = events.local_time()  # the time zone is input preparation, not timed (as in the engine's grid)
    users = sample_users(events.n_users, samples, 0)
    small = cg.build_csr(events.user[:1000], events.location[:1000].astype(np.int64), 10**6, 2)
    cg.sizes_of_samples(*small, np.zeros(1, dtype=np.int64), 10, 0)  # compile
    profiles = []
    t_all, c0 = time.perf_counter(), cpu_s()
    for s in spatial:
        unit = events.location if s == "antenna" else hierarchy.unit_codes[s][events.location]
        for t in temporal:
            t0 = time.perf_counter()
            point, d = cg.point_of_event(local, unit, int(TemporalLevel.parse(t).seconds))
            csr = cg.build_csr(events.user, point, d, events.n_users)
            del point
            t1 = time.perf_counter()
            sizes = cg.sizes_of_samples(*csr, users, 10, 0)
            del csr
            profiles.append(
                {"build_s": t1 - t0, "estimate_s": time.perf_counter() - t1, "unicity": cg.unicity(sizes)}
            )
    return {
        "grid_s": time.perf_counter() - t_all,
        "grid_cpu_s": cpu_s() - c0,
        "peak_mb": peak_mb(),
        "profiles": profiles,
    }


def ensure_city(users: int, days: int, cache: Path) -> Path:
    """The cached city's folder, simulating it first (in a child process, once) when missing."""
    folder = cache / f"city_{users}_{days}"
    if not (folder / "location_ids.npy").exists():
        print(f"simulating {users:,} users x {days} days into {folder} (once) ...", flush=True)
        code = (
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import bench_risk as b; "
            f"from pathlib import Path; b.simulate_to_cache({users}, {days}, Path({str(folder)!r}))"
        )
        subprocess.run([sys.executable, "-c", code], check=True)
    return folder


def run_worker(tree: baseline.Tree, kind: str, args: argparse.Namespace, scratch: Path) -> dict:
    """Run one worker process against ``tree``; its JSON plus the process's wall and CPU seconds."""
    out = scratch / f"{kind}_{tree.path.name}_{time.monotonic_ns()}.json"
    worker_args = [str(Path(__file__).resolve()), "--worker", kind, "--worker-out", str(out)]
    for name in ("users", "days", "samples", "cache", "threads"):
        if getattr(args, name) is not None:
            worker_args += [f"--{name}", str(getattr(args, name))]
    if args.quick:
        worker_args.append("--quick")
    timing = baseline.run_timed(tree, worker_args)
    if timing.returncode:
        raise SystemExit(f"{kind} worker failed on {tree.label}:\n{timing.stderr[-3000:]}")
    result = json.loads(out.read_text())
    result.update(process_wall_s=timing.wall, process_cpu_s=timing.cpu, tree=tree.label)
    return result


def end_to_end(tree: baseline.Tree, parquet: Path, args: argparse.Namespace, scratch: Path) -> dict:
    """``privacy-studio risk`` on the Parquet copy of the city, the whole grid, as a user runs it: once to
    fill the tree's columnar cache, once more to compile what reading from that cache needs (memory-mapped,
    read-only arrays), then timed; its peak RSS."""
    spatial, temporal = (["antenna", "district"], ["1h", "1w"]) if args.quick else (SPATIAL, TEMPORAL)
    command = ["-m", "privacy_studio", "risk", str(parquet / "events.parquet")]
    command += ["--antennas", str(parquet / "antennas.csv"), "--hierarchy", str(parquet / "hierarchy.csv")]
    command += ["--tz", "Europe/Paris", "--spatial", ",".join(spatial), "--temporal", ",".join(temporal)]
    command += ["--p", "1-10", "--samples", str(args.samples), "--measures", "unicity", "--engine", "numba"]
    command += ["--json", str(scratch / "end_to_end.json")]
    columnar = str(scratch / f"columnar-{tree.path.name}")
    for _ in range(3):
        timing = baseline.run_timed(tree, command, PRIVACY_STUDIO_CACHE=columnar)
        if timing.returncode:
            raise SystemExit(f"risk failed on {tree.label}:\n{timing.stderr[-3000:]}")
    return {"tree": tree.label, "wall_s": timing.wall, "cpu_s": timing.cpu, "peak_mb": timing.peak_mb}


def print_report(runs: list[dict], yard: dict) -> None:
    """The summary per run, the profiles of the last run of each tree, and the yardstick."""
    rows = []
    for r in runs:
        rows.append(
            {
                "tree": r["tree"],
                "grid_s": r["grid_s"],
                "grid_cpu_s": r["grid_cpu_s"],
                "peak_MB": r["peak_mb"],
                "input_MB": r["input_mb"],
                "peak-input": r["peak_mb"] - r["input_mb"],
                "gen_ant_1h_s": r["gen_antenna_1h_s"],
                "gen_dis_1w_s": r["gen_district_1w_s"],
                "floor_s": r["floor_s"],
                "gen/floor": max(r["gen_antenna_1h_s"], r["gen_district_1w_s"]) / r["floor_s"],
                "x_yardstick": r["grid_s"] / yard["grid_s"],
            }
        )
    print(baseline.table(rows, list(rows[0])))
    last = {r["tree"]: r for r in runs}
    for label, r in last.items():
        print(f"\n{label}: per profile (seconds; peak MB while it ran)")
        print(
            baseline.table(
                [
                    {k: v for k, v in p.items() if k != "unicity"} | {"eps4": p["unicity"][3]}
                    for p in r["profiles"]
                ],
                PROFILE_COLUMNS,
            )
        )
    print(
        f"\nyardstick (CSR + galloping, independent): grid {yard['grid_s']:.1f} s, "
        f"{yard['grid_cpu_s']:.1f} CPU-s, peak {yard['peak_mb']:.0f} MB; same unicity as the current tree "
        f"at every profile and p: {yard['agrees']}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200_000)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--quick", action="store_true", help="2 x 2 grid (antenna, district x 1h, 1w)")
    ap.add_argument("--cache", default="benchmarks/results/cache", help="folder of the simulated cities")
    ap.add_argument("--json", default=str(baseline.RESULTS / "bench_risk.json"))
    ap.add_argument("--base", default="HEAD~1", help="revision run as the baseline ('none': no baseline)")
    ap.add_argument("--repeats", type=int, default=1, help="runs per tree, alternating")
    ap.add_argument("--threads", type=int, help="numba threads (default: all cores)")
    ap.add_argument(
        "--end-to-end",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time privacy-studio risk on a Parquet copy of the city (made once, beside the cache)",
    )
    ap.add_argument("--worker", choices=["tree", "yardstick"], help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    spatial, temporal = (["antenna", "district"], ["1h", "1w"]) if args.quick else (SPATIAL, TEMPORAL)
    cache = Path(args.cache).resolve()
    args.cache = str(cache)
    if args.worker:
        if args.threads:
            import numba

            numba.set_num_threads(args.threads)
        fn = tree_worker if args.worker == "tree" else yardstick_worker
        folder = cache / f"city_{args.users}_{args.days}"
        Path(args.worker_out).write_text(json.dumps(fn(folder, args.samples, spatial, temporal)))
        return 0
    ensure_city(args.users, args.days, cache)
    runs = []
    with baseline.trees(None if args.base == "none" else args.base) as all_trees, baseline.scratch() as tmp:
        for _ in range(args.repeats):
            for tree in all_trees:
                print(f"  {tree.label} ...", flush=True)
                runs.append(run_worker(tree, "tree", args, tmp))
        print("  yardstick ...", flush=True)
        yard = run_worker(all_trees[-1], "yardstick", args, tmp)
        whole = []
        if args.end_to_end:
            from bench_engines import ensure_data

            parquet = ensure_data(cache, args.users, args.days)
            for tree in all_trees:
                print(f"  privacy-studio risk, {tree.label} ...", flush=True)
                whole.append(end_to_end(tree, parquet, args, tmp))
    current = [r for r in runs if r["tree"] == "current"][-1]
    yard["agrees"] = all(
        np.allclose(p["unicity"], y["unicity"], rtol=0, atol=1e-12)
        for p, y in zip(current["profiles"], yard["profiles"], strict=True)
    )
    print(
        f"\n{current['n_users']:,} users, {current['n_events']:,} events, "
        f"input {current['input_mb']:.0f} MB; "
        f"S = {args.samples:,}, p = 1..10; load average {os.getloadavg()[0]:.1f}"
    )
    print_report(runs, yard)
    if whole:
        print(
            "\nprivacy-studio risk on the Parquet city, whole grid, from the columnar cache (process figures)"
        )
        print(baseline.table(whole, ["tree", "wall_s", "cpu_s", "peak_mb"]))
    path = baseline.write_results(
        "bench_risk",
        {
            "users": args.users,
            "days": args.days,
            "samples": args.samples,
            "runs": runs,
            "yardstick": yard,
            "end_to_end": whole,
        },
        Path(args.json),
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
