"""Benchmark of the anonymizability measure on the synthetic city: exact all-pairs and sampled targets.

Scenarios (full run): every user of 2k, 5k, 10k-user cities; 1,000 sampled targets against 10k and 100k
users. The pruned search runs on every target; the plain all-pairs numba loop (the baseline) and the merge
without pruning run in the same process on a sub-sample of the same targets, are extrapolated per target,
and must give bit-identical results on that sub-sample. k = 2, 5, 10, 20, 50, 100 from one pass.

    python benchmarks/bench_anonymizability.py [--quick] [--baseline-targets 40] [--targets T]
        [--max-exact N] [--json OUT]

``--targets`` replaces the 1,000 sampled targets (times per target are in the JSON, so a smaller run can be
scaled) and ``--max-exact`` skips exact scenarios above N users, for a loaded or slow machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np

KS = (2, 5, 10, 20, 50, 100)
FULL = [("exact", 2000, None), ("exact", 5000, None), ("exact", 10000, None), ("sampled", 10000, 1000),
        ("sampled", 100000, 1000)]  # fmt: skip
QUICK = [("exact", 1000, None), ("sampled", 5000, 200)]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    """User + system CPU seconds of this process so far, all threads included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _run(fp, targets: np.ndarray, mode: str, ks: tuple[int, ...]) -> tuple[float, float, float, dict]:
    """Wall and CPU seconds (nearest search plus dispersion), CPU seconds of the search alone (the part the
    modes differ in), and the per-k arrays for these target codes."""
    from privacy_studio.core.kernels import anonymizability as kern
    from privacy_studio.core.measures.anonymizability import MODES, DistanceParams

    params = DistanceParams()
    args = params.kernel_args()
    places = fp.places()
    start, cpu = time.perf_counter(), _cpu_s()
    idx, dist = kern.nearest_neighbours(
        targets, fp.offsets, fp.t, fp.x, fp.y, places, max(ks) - 1, MODES[mode], *args
    )
    search_cpu = _cpu_s() - cpu
    stats = kern.dispersion(targets, idx, np.asarray(ks), fp.offsets, fp.t, fp.x, fp.y, places, *args)
    wall = time.perf_counter() - start
    return wall, _cpu_s() - cpu, search_cpu, {"neighbours": idx, "distance": dist, "stats": stats}


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def scenario(kind: str, n: int, n_targets: int | None, baseline_targets: int, cities: dict) -> dict:
    from privacy_studio.core.measures.anonymizability import Fingerprints, select_targets
    from privacy_studio.core.sample import simulate_city

    if n not in cities:
        cities[n] = Fingerprints.from_events(simulate_city(n, 28, 0).event_table())
    fp = cities[n]
    ks = tuple(k for k in KS if k <= fp.n_users)
    targets = select_targets(fp.n_users, n_targets, 0)
    sub = targets[np.linspace(0, len(targets) - 1, min(baseline_targets, len(targets))).astype(int)]
    t_prune, cpu_prune, search_prune, full = _run(fp, targets, "prune", ks)
    pos = np.searchsorted(targets, sub)
    pruned_sub = {k: (v[:, :, pos] if v.ndim == 3 else v[pos]) for k, v in full.items()}
    row = {
        "scenario": kind,
        "users": fp.n_users,
        "targets": len(targets),
        "samples_per_user": float(fp.lengths().mean()),
        "prune_s": t_prune,
        "prune_cpu_s": cpu_prune,
        "prune_s_per_target": t_prune / len(targets),
        "prune_cpu_s_per_target": cpu_prune / len(targets),
        "prune_search_cpu_s": search_prune,
        "baseline_targets": len(sub),
    }
    for mode in ("merge", "plain"):
        seconds, cpu, search, result = _run(fp, sub, mode, ks)
        row[f"{mode}_s_extrapolated"] = seconds / len(sub) * len(targets)
        row[f"{mode}_cpu_s_extrapolated"] = cpu / len(sub) * len(targets)
        row[f"{mode}_search_cpu_s_extrapolated"] = search / len(sub) * len(targets)
        row[f"{mode}_identical"] = _same(result, pruned_sub)
    row["speedup_vs_plain"] = row["plain_s_extrapolated"] / t_prune
    row["speedup_vs_merge"] = row["merge_s_extrapolated"] / t_prune
    row["cpu_speedup_vs_plain"] = row["plain_cpu_s_extrapolated"] / cpu_prune
    row["search_cpu_speedup_vs_plain"] = row["plain_search_cpu_s_extrapolated"] / search_prune
    arrays = (*fp.places(), fp.offsets, fp.t, fp.x, fp.y)
    row["data_and_index_mb"] = sum(a.nbytes for a in arrays) / 1e6
    row["peak_rss_mb"] = _peak_mb()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    parser.add_argument("--baseline-targets", type=int, default=40, help="targets timed for the baselines")
    parser.add_argument("--targets", type=int, help="sampled targets instead of 1,000")
    parser.add_argument("--max-exact", type=int, help="skip exact scenarios with more users")
    parser.add_argument("--json", default="benchmarks/results/anonymizability.json", help="output JSON")
    args = parser.parse_args(argv)
    import numba

    from privacy_studio.core.measures.anonymizability import anonymizability
    from privacy_studio.core.sample import simulate_city

    warm = simulate_city(60, 3, 1).event_table()  # compile every kernel before timing
    for mode in ("prune", "merge", "plain"):
        anonymizability(warm, (2, 3), mode=mode)
    cities: dict = {}
    rows = []
    print(f"threads: {numba.get_num_threads()}")
    head = ("scenario", "users", "targets", "prune s", "cpu s", "merge s*", "cpu s*", "plain s*", "cpu s*")
    head += ("x plain", "cpu x", "srch x", "x merge", "same", "MB")
    print(
        "{:<8} {:>7} {:>7}".format(*head[:3]), *(f"{h:>9}" for h in head[3:9]), *(f"{h:>7}" for h in head[9:])
    )
    for kind, n, n_targets in QUICK if args.quick else FULL:
        if kind == "exact" and args.max_exact is not None and n > args.max_exact:
            continue
        n_targets = args.targets if kind == "sampled" and args.targets else n_targets
        r = scenario(kind, n, n_targets, args.baseline_targets, cities)
        rows.append(r)
        same = r["merge_identical"] and r["plain_identical"]
        times = (r["prune_s"], r["prune_cpu_s"])
        times += tuple(r[f"{m}_{c}s_extrapolated"] for m in ("merge", "plain") for c in ("", "cpu_"))
        ratios = (r["speedup_vs_plain"], r["cpu_speedup_vs_plain"], r["search_cpu_speedup_vs_plain"])
        ratios += (r["speedup_vs_merge"],)
        print(
            f"{kind:<8} {r['users']:>7} {r['targets']:>7}",
            *(f"{v:>9.2f}" for v in times),
            *(f"{v:>7.2f}" for v in ratios),
            f"{'yes' if same else 'NO':>7} {r['peak_rss_mb']:>7.0f}",
            flush=True,
        )
    print(
        "* extrapolated from the baseline sub-sample of targets; cpu = user + system seconds of all threads"
    )
    print("x = plain / prune: wall, CPU, CPU of the search alone (without the shared dispersion step);")
    print("x merge = merge / prune (wall); MB = peak resident memory so far")
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"ks": KS, "threads": numba.get_num_threads(), "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0 if all(r["merge_identical"] and r["plain_identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
