"""National scale (issue #30 point 5): the 12-profile grid on 1M, 3M and 10M-person months, per engine.

Data: the synthetic city (seed 1, 30 days from 2024-03-04, Europe/Paris) streamed chunk by chunk of users to
one Parquet file per size (``bench_engines.make_city``: the generator never holds the month), under
``/work/data/scale/city_<N>_30_parquet/`` with ``antennas.csv`` and ``hierarchy.csv``. A size is complete
once ``/work/data/scale/READY_<size>`` exists (other benchmarks may reuse the files); it is reused if so.

Run: ``privacy-studio risk events.parquet --map user=user --map time=time --map location=location
--tz Europe/Paris --antennas antennas.csv --hierarchy hierarchy.csv --spatial raw,zip,district
--temporal 1h,6h,12h,1w --p 1-10 --samples 10000 --engine E --no-cache`` in a child process per (tree,
engine, size): its wall time, CPU time and peak resident memory (``os.wait4``), with the load average
before and after. The baseline is the same command on a ``git worktree`` of ``--baseline-ref`` (default
``HEAD~1``), in the same invocation; each tree compiles its kernels (``warmup``) before its first timed run.

    python benchmarks/bench_scale.py --sizes 1M,3M
    python benchmarks/bench_scale.py --sizes 10M --engines auto --baseline-sizes none
    python benchmarks/bench_scale.py --sizes 1M --generate-only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

from baseline import RESULTS, Tree, run_timed, table, trees, write_results
from bench_engines import make_city

DATA = Path("/work/data/scale")
DAYS = 30
SPATIAL = "raw,zip,district"
TEMPORAL = "1h,6h,12h,1w"
#: A profile's top-level stages (the estimate's own stages are inside ``estimate``).
STAGES = ("generalize", "kanon", "index", "estimate", "attributes")


def users_of(size: str) -> int:
    """1M -> 1,000,000; 250k -> 250,000; plain numbers as they are."""
    text = size.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("KM")) * scale)


def ensure_month(data: Path, size: str) -> Path:
    """The Parquet month of ``size`` people, made now unless its READY marker exists."""
    users = users_of(size)
    folder = data / f"city_{users}_{DAYS}_parquet"
    ready = data / f"READY_{size}"
    if ready.exists():
        return folder
    print(f"making {folder} ...", flush=True)
    make_city(users, DAYS, folder)
    ready.write_text(json.dumps({"folder": str(folder), **json.loads((folder / "meta.json").read_text())}))
    return folder


def risk_args(folder: Path, engine: str, out: Path, samples: int) -> list[str]:
    """The ``privacy-studio risk`` command line of the 12-profile grid on ``folder``."""
    return [
        "-m",
        "privacy_studio",
        "risk",
        str(folder / "events.parquet"),
        *("--map", "user=user", "--map", "time=time", "--map", "location=location", "--tz", "Europe/Paris"),
        *("--antennas", str(folder / "antennas.csv"), "--hierarchy", str(folder / "hierarchy.csv")),
        *("--spatial", SPATIAL, "--temporal", TEMPORAL, "--p", "1-10", "--samples", str(samples)),
        *("--engine", engine, "--no-cache", "--json", str(out)),
    ]


def run_one(tree: Tree, folder: Path, engine: str, size: str, samples: int, timeout: float) -> dict:
    """One timed child run: wall, CPU, peak RSS, exit code, the engine that ran and the load around it."""
    out = RESULTS / f"bench_scale_{size}_{engine}_{tree.label.replace(' ', '_')}.json"
    load_before = os.getloadavg()[0]
    try:
        timing = run_timed(
            tree, risk_args(folder, engine, out, samples), timeout=timeout, NUMBA_NUM_THREADS="2"
        )
    except subprocess.TimeoutExpired:
        row = {
            "size": size,
            "engine": engine,
            "tree": tree.label,
            "ok": False,
            "error": f"killed after {timeout:.0f} s",
        }
        print(json.dumps(row), flush=True)
        return row
    row = {
        "size": size,
        "engine": engine,
        "tree": tree.label,
        "wall_s": round(timing.wall, 1),
        "cpu_s": round(timing.cpu, 1),
        "peak_mb": round(timing.peak_mb),
        "ok": timing.returncode == 0,
        "load_1m": f"{load_before:.1f}->{os.getloadavg()[0]:.1f}",
    }
    if out.exists() and timing.returncode == 0:
        payload = json.loads(out.read_text())
        row["ran"] = payload.get("engine", engine)
        row["digest"] = digest(payload)
        row["classes"] = class_digest(payload)
        row["profile_s"] = {  # each profile's own stages (generalize, index, estimate, ...): where time goes
            p.get("label", "?"): round(sum(v for k, v in (p.get("timings") or {}).items() if k in STAGES), 1)
            for p in payload["profiles"]
        }
        row["stages_s"] = {  # within the estimate: sampled draws, targeted search, exact rows, populations
            p.get("label", "?"): {k: round(v, 1) for k, v in (p.get("timings") or {}).items()}
            for p in payload["profiles"]
        }
        row["search_cut"] = {  # sampled people whose worst-case search its budget cut short, at p = 4
            p.get("label", "?"): next((r.get("worst_search_cut", 0) for r in p["by_p"] if r["p"] == 4), None)
            for p in payload["profiles"]
        }
        out.unlink()
    else:
        row["error"] = timing.stderr.strip().splitlines()[-1:] or [f"exit {timing.returncode}"]
    print(json.dumps(row), flush=True)
    return row


def digest(payload: dict) -> str:
    """A short hash of every profile's class-size results (equal digests: identical numbers)."""
    import hashlib

    keep = [
        {k: v for k, v in profile.items() if k not in ("timings", "index_bytes", "seconds")}
        for profile in payload.get("profiles", [])
    ]
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:12]


def class_digest(payload: dict) -> str:
    """A short hash of every profile's sampled class sizes per p and each sampled person's unicity, with
    its people, places-and-times and user-points: what every engine must give identically (``digest`` also
    covers what only the numba engine computes, its worst-case search and exact rows, so it differs
    between engines by design)."""
    import hashlib

    keep = [
        [
            p.get("label"),
            p.get("n_users"),
            p.get("d"),
            p.get("nnz"),
            [[r["p"], r.get("class_sizes")] for r in p["by_p"]],
            (p.get("per_user") or {}).get("unique_rate"),
        ]
        for p in payload.get("profiles", [])
    ]
    return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:12]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1M,3M", help="comma list of people per month (default 1M,3M)")
    ap.add_argument("--engines", default="numba,duckdb,auto", help="comma list (spark too if wanted)")
    ap.add_argument("--baseline-ref", default="HEAD~1", help="revision measured as the baseline")
    ap.add_argument(
        "--baseline-sizes", default=None, help="sizes the baseline runs at (default: all; none = no baseline)"
    )
    ap.add_argument("--baseline-engines", default=None, help="engines the baseline runs (default: all)")
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds before a run is killed")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS / "bench_scale.json")
    args = ap.parse_args(argv)
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    args.data.mkdir(parents=True, exist_ok=True)
    RESULTS.mkdir(parents=True, exist_ok=True)  # the runs write their JSON there
    folders = {size: ensure_month(args.data, size) for size in sizes}
    if args.generate_only:
        return 0
    engines = args.engines.split(",")
    base_sizes = sizes if args.baseline_sizes is None else args.baseline_sizes.split(",")
    base_engines = engines if args.baseline_engines is None else args.baseline_engines.split(",")
    rows = []
    with trees(None if base_sizes == ["none"] else args.baseline_ref) as all_trees:
        for tree in all_trees:  # a fresh worktree's kernels compile here, not inside its first timed run
            run_timed(tree, ["-m", "privacy_studio", "warmup"], timeout=args.timeout, NUMBA_NUM_THREADS="2")
        for size in sizes:
            for engine in engines:
                for tree in all_trees:
                    if tree.label != "current" and (size not in base_sizes or engine not in base_engines):
                        continue
                    rows.append(run_one(tree, folders[size], engine, size, args.samples, args.timeout))
    columns = [
        "size",
        "engine",
        "tree",
        "ran",
        "wall_s",
        "cpu_s",
        "peak_mb",
        "ok",
        "load_1m",
        "digest",
        "classes",
    ]
    print(table(rows, columns))
    meta = {size: json.loads((folders[size] / "meta.json").read_text()) for size in sizes}
    path = write_results(
        "bench_scale",
        {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "data": meta, "rows": rows},
        args.out,
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
