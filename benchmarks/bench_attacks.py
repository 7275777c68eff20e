"""Benchmark of the matching and profiling attacks on planted data (1k and 10k users): time and peak memory.

Each (attack, size) runs in a fresh process so its peak resident memory is its own. Baselines are measured in
the same run: a plain-Python per-pair score (matching) and scipy's dense ``cdist`` with Jensen-Shannon
(profiling), both timed on a sub-sample and reported per pair against the numba kernels.

    python benchmarks/bench_attacks.py [--quick] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SUB = 120  # users of the baseline sub-sample


def _prepare(n: int, shift_weeks: int):
    from privacy_studio.core.generalize import Profile, generalize
    from privacy_studio.core.measures.attacks.planted import planted_pair
    from privacy_studio.core.measures.attacks.profiling import location_histograms
    from privacy_studio.core.measures.attacks.shared_space import merge_tables
    from privacy_studio.core.measures.attacks.sparse_users import split_on_shared_bins, split_traces

    a, b = planted_pair(n, n_locations=max(50, n // 10), events=30, shift_weeks=shift_weeks, seed=1)
    merged = merge_tables(a, b)
    if shift_weeks:
        from privacy_studio.core.generalize import SpatialLevel

        h = location_histograms(merged.events, SpatialLevel.parse("raw"), None, hour_of_week=False)
        return split_on_shared_bins(*h, merged.n_first)
    return split_traces(generalize(merged.events, Profile.parse("raw", "6h")), merged.n_first)


def _python_matching_per_pair(first, second) -> float:
    """Seconds per pair of a plain-Python score over every bin either user visits."""
    from privacy_studio.core.measures.attacks.matching import bin_rates

    lam1, lam2, theta = bin_rates(first, second, 0.5)

    def row(v, u):
        a, b = v.indptr[u], v.indptr[u + 1]
        return dict(zip(v.keys[a:b].tolist(), v.vals[a:b].tolist(), strict=True))

    def log_phi(a1, a2, b):
        same = sum(
            math.exp(-theta[b])
            * theta[b] ** k
            / math.factorial(k)
            * math.exp(-(lam1[b] - theta[b]))
            * (lam1[b] - theta[b]) ** (a1 - k)
            / math.factorial(a1 - k)
            * math.exp(-(lam2[b] - theta[b]))
            * (lam2[b] - theta[b]) ** (a2 - k)
            / math.factorial(a2 - k)
            for k in range(min(a1, a2) + 1)
        )
        diff = math.exp(-lam1[b]) * lam1[b] ** a1 / math.factorial(a1)
        diff *= math.exp(-lam2[b]) * lam2[b] ** a2 / math.factorial(a2)
        return math.log(same / diff) - theta[b]

    rows1 = [row(first, u) for u in range(SUB)]
    rows2 = [row(second, v) for v in range(SUB)]
    t = time.perf_counter()
    for r1 in rows1:
        for r2 in rows2:
            sum(log_phi(int(r1.get(b, 0)), int(r2.get(b, 0)), b) for b in set(r1) | set(r2))
    return (time.perf_counter() - t) / SUB**2


def _scipy_js_per_pair(first, second) -> float:
    from scipy.spatial.distance import cdist, jensenshannon

    def dense(v):
        out = np.zeros((SUB, v.n_bins))
        for u in range(SUB):
            out[u, v.keys[v.indptr[u] : v.indptr[u + 1]]] = v.vals[v.indptr[u] : v.indptr[u + 1]]
        return out / out.sum(axis=1, keepdims=True)

    p, q = dense(first), dense(second)
    t = time.perf_counter()
    cdist(p, q, lambda x, y: jensenshannon(x, y) ** 2)
    return (time.perf_counter() - t) / SUB**2


def one(attack: str, n: int) -> dict:
    """Run one attack at one size in this process and return its timings."""
    from scipy.optimize import linear_sum_assignment

    from privacy_studio.core.measures.attacks.matching import assign_max, matching_scores
    from privacy_studio.core.measures.attacks.profiling import profiling_costs
    from privacy_studio.core.measures.attacks.sparse_users import shuffled

    first, second = _prepare(64, 1 if attack == "profiling" else 0)  # compile outside the timings
    (matching_scores if attack == "matching" else profiling_costs)(first, second)
    t0 = time.perf_counter()
    first, second = _prepare(n, 1 if attack == "profiling" else 0)
    second, truth, _ = shuffled(second, np.arange(n), 0)  # the solver's ties must not fall on the truth
    t1 = time.perf_counter()
    if attack == "matching":
        scores = matching_scores(first, second)
        t2 = time.perf_counter()
        assignment = assign_max(scores)
        correct = float(np.mean(assignment == truth))
        t3 = time.perf_counter()
        baseline = _python_matching_per_pair(first, second)
    else:
        scores = profiling_costs(first, second, "js")
        t2 = time.perf_counter()
        rows, cols = linear_sum_assignment(scores)
        correct = float(np.mean(cols[np.argsort(rows)] == truth))
        t3 = time.perf_counter()
        baseline = _scipy_js_per_pair(first, second)
    kernel_per_pair = (t2 - t1) / n**2
    return {
        "attack": attack,
        "users": n,
        "prepare_s": t1 - t0,
        "scores_s": t2 - t1,
        "assignment_s": t3 - t2,
        "accuracy": correct,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "kernel_ns_per_pair": 1e9 * kernel_per_pair,
        "baseline_ns_per_pair": 1e9 * baseline,
        "speedup_vs_baseline": baseline / kernel_per_pair,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 users only")
    parser.add_argument(
        "--json", default="benchmarks/results/bench_attacks.json", help="where to write the results"
    )
    parser.add_argument("--one", nargs=2, metavar=("ATTACK", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return 0
    sizes = (1000,) if args.quick else (1000, 10_000)
    rows = []
    for attack in ("matching", "profiling"):
        for n in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--one", attack, str(n)],
                capture_output=True,
                text=True,
                check=True,
            )
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(
        f"{'attack':<10} {'users':>7} {'scores s':>9} {'assign s':>9} {'peak MB':>8} {'ns/pair':>8} "
        f"{'baseline':>9} {'speedup':>8} {'acc':>5}"
    )
    for r in rows:
        print(
            f"{r['attack']:<10} {r['users']:>7} {r['scores_s']:>9.2f} {r['assignment_s']:>9.2f} "
            f"{r['peak_rss_mb']:>8.0f} {r['kernel_ns_per_pair']:>8.1f} {r['baseline_ns_per_pair']:>9.0f} "
            f"{r['speedup_vs_baseline']:>8.0f} {r['accuracy']:>5.2f}"
        )
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as fh:
        json.dump({"benchmark": "attacks", "rows": rows}, fh, indent=2)
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
