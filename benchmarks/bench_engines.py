"""Benchmark of the risk engines (issue #9 item 6): numba in memory, DuckDB out-of-core, Spark local.

DATA (made once, kept under ``--cache``, git-ignored): the synthetic city as one Parquet dataset,
``events.parquet`` (user text, time as UTC epoch seconds, location = antenna id) + ``antennas.csv`` +
``hierarchy.csv``, streamed chunk by chunk of users from ``build_city`` so 5M users never sit in memory.
The 1M-user city is converted from the ``.npy`` columns ``bench_risk.py`` caches (same city, seed 1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CACHE = Path(__file__).parent / "results" / "cache"
ENGINE_ORDER = ("numba", "duckdb", "spark")
ROWS_PER_GROUP = 2_000_000


def parquet_folder(cache: Path, users: int, days: int) -> Path:
    """Where the Parquet city of ``users`` x ``days`` lives (complete once ``meta.json`` exists)."""
    return cache / f"city_{users}_{days}_parquet"


def _geography(model, folder: Path) -> None:
    """antennas.csv and hierarchy.csv of the city, as ``generate_city`` writes them."""
    from privacy_studio.core.sample.generate import CityPaths, _write_geography

    _write_geography(model, CityPaths.under(folder, "none", 1))
    for extra in ("shops.csv", "shop_hierarchy.csv"):
        (folder / extra).unlink()


def _writer(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("user", pa.string()), ("time", pa.int64()), ("location", pa.string())])
    return pq.ParquetWriter(path, schema, compression="zstd")


def _batch(user_ids, location_ids, user: np.ndarray, when: np.ndarray, location: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pc

    return pa.table(
        {
            "user": pc.take(user_ids, pa.array(user)),
            "time": pa.array(when, pa.int64()),
            "location": pc.take(location_ids, pa.array(location)),
        }
    )


def _finish(folder: Path, users: int, days: int, rows: int, seconds: float, how: str) -> None:
    meta = {"users": users, "days": days, "seed": 1, "events": rows, "seconds": seconds, "made_by": how}
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")


def make_city(users: int, days: int, folder: Path) -> None:
    """Simulate the city chunk by chunk of users and stream its phone events to one Parquet file."""
    import pyarrow as pa

    from privacy_studio.core.sample.city import CityParams, build_city

    t0 = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    model = build_city(CityParams(users, days, 1))
    _geography(model, folder)
    user_ids, location_ids = pa.array(model.user_ids), pa.array(model.layout.antenna_ids)
    model.user_ids = model.card_ids = model.later_ids = None
    rows, pending = 0, []
    with _writer(folder / "events.parquet") as out:
        for chunk in range(model.n_chunks()):
            ev, _ = model.simulate(0, chunk)
            pending.append(_batch(user_ids, location_ids, ev.user, ev.time, ev.location))
            if sum(t.num_rows for t in pending) >= ROWS_PER_GROUP or chunk == model.n_chunks() - 1:
                table = pa.concat_tables(pending)
                out.write_table(table, row_group_size=ROWS_PER_GROUP)
                rows += table.num_rows
                pending = []
                elapsed = time.perf_counter() - t0
                print(f"  chunk {chunk + 1}/{model.n_chunks()}: {rows:,} events, {elapsed:.0f} s", flush=True)
    _finish(folder, users, days, rows, time.perf_counter() - t0, "build_city + simulate per chunk")


def convert_npy_city(npy: Path, users: int, days: int, folder: Path) -> None:
    """The Parquet copy of a city ``bench_risk.py`` cached as .npy columns, checked against the generator."""
    import pyarrow as pa

    from privacy_studio.core.sample.city import CityParams, build_city

    t0 = time.perf_counter()
    model = build_city(CityParams(users, days, 1))
    first, _ = model.simulate(0, 0)
    user = np.load(npy / "user.npy", mmap_mode="r")
    when = np.load(npy / "time.npy", mmap_mode="r")
    location = np.load(npy / "location.npy", mmap_mode="r")
    n = len(first)
    same = all(np.array_equal(a[:n], b) for a, b in ((user, first.user), (when, first.time)))
    if not same or not np.array_equal(np.load(npy / "user_ids.npy"), model.user_ids):
        raise ValueError(f"{npy} is not what today's generator makes for seed 1: delete it")
    folder.mkdir(parents=True, exist_ok=True)
    _geography(model, folder)
    user_ids, antennas = pa.array(model.user_ids), pa.array(model.layout.antenna_ids)
    with _writer(folder / "events.parquet") as out:
        for lo in range(0, len(user), ROWS_PER_GROUP):
            hi = lo + ROWS_PER_GROUP
            out.write_table(_batch(user_ids, antennas, user[lo:hi], when[lo:hi], location[lo:hi]))
    _finish(folder, users, days, len(user), time.perf_counter() - t0, f"converted from {npy.name}")


def ensure_data(cache: Path, users: int, days: int) -> Path:
    """The Parquet city of ``users`` x ``days``, made now if missing (from the .npy cache when there)."""
    folder = parquet_folder(cache, users, days)
    if (folder / "meta.json").exists():
        return folder
    npy = cache / f"city_{users}_{days}"
    print(f"making {folder} ...", flush=True)
    if (npy / "user.npy").exists():
        convert_npy_city(npy, users, days, folder)
    else:
        make_city(users, days, folder)
    return folder


# -- one engine in one process -------------------------------------------------------------------------


def _peak_mb() -> float:
    """This process's peak resident memory (VmHWM, not inherited from the parent like ru_maxrss)."""
    return _status_kb(os.getpid(), "VmHWM") / 1024


def _status_kb(pid: int, key: str) -> int:
    """A ``kB`` field of /proc/<pid>/status (0 when the process is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class StageClock:
    """Progress callback that books wall time to the stage a message names (digits masked out)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stage, self._since = "start", time.perf_counter()

    def __call__(self, fraction: float, message: str) -> None:
        stage = re.sub(r"\d[\d,.]*(?![\d,.hwdm])", "#", message).strip() or "(no message)"
        if stage != self._stage:
            self.close()
            self._stage = stage

    def close(self) -> None:
        now = time.perf_counter()
        self.seconds[self._stage] = self.seconds.get(self._stage, 0.0) + now - self._since
        self._since = now


def settings_of(args: argparse.Namespace):
    from privacy_studio.core.risk.settings import RiskSettings

    cells = [tuple(c.split(":")) for c in args.profiles]
    return RiskSettings(
        [],
        [],
        cells=cells,
        p_values=list(range(1, args.pmax + 1)),
        measures=args.measures,
        samples=args.samples,
        seed=0,
    )


def reader_options(folder: Path):
    from privacy_studio.core.io import ReaderOptions

    return ReaderOptions(
        antennas=str(folder / "antennas.csv"),
        hierarchy=str(folder / "hierarchy.csv"),
        tz="Europe/Paris",
        use_cache=False,
    )


def digest(result) -> dict:
    """What must agree between engines: class-size histograms per p, exclusions, per-user unicity."""
    per_user = result.per_user or {}
    keyed = json.dumps(
        {k: per_user.get(k) for k in ("user_ids", "unique_rate", "worst")}, sort_keys=True
    ).encode()
    return {
        "n_users": result.n_users,
        "nnz": result.nnz,
        "by_p": [
            {"p": r.p, "sizes": r.class_sizes, "excluded": r.n_excluded, "worst": r.worst_mean}
            for r in result.by_p
        ],
        "kanon": result.kanon,
        "per_user_sha1": hashlib.sha1(keyed).hexdigest(),
    }


def _tiny_copy(folder: Path, rows: int, out: Path) -> Path:
    """The first ``rows`` events as a small Parquet city beside the side files (warm-up input)."""
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    head = pq.ParquetFile(folder / "events.parquet").read_row_group(0).slice(0, rows)
    pq.write_table(head, out / "events.parquet")
    for side in ("antennas.csv", "hierarchy.csv"):
        shutil.copy(folder / side, out / side)
    return out


def worker(args: argparse.Namespace) -> dict:
    """Run the grid on one engine: open, (load), warm-up on a tiny copy, then the timed run."""
    from privacy_studio.core.engines import EventFiles, open_engine
    from privacy_studio.core.io import load_dataset
    from privacy_studio.core.progress import TaskControl

    folder, engine_name = Path(args.data), args.worker
    settings = settings_of(args)
    tiny = _tiny_copy(folder, 30_000, Path(args.temp) / "tiny")
    limits = {
        "numba": {"threads": args.threads},
        "duckdb": {"memory_limit": args.duckdb_memory, "temp_dir": args.temp, "threads": args.threads},
        "spark": {
            "memory_limit": args.spark_memory,
            "temp_dir": args.temp,
            "threads": args.threads,
            "spark_master": f"local[{args.threads}]",
        },
    }[engine_name]
    out: dict = {"engine": engine_name, "limits": limits, "stages": {}}
    t0 = time.perf_counter()
    with open_engine(engine_name, **limits) as engine:
        out["stages"]["open"] = time.perf_counter() - t0

        def source(path: Path):
            if engine_name != "numba":
                return EventFiles(str(path / "events.parquet"), reader_options(path))
            return load_dataset(str(path / "events.parquet"), reader_options(path))

        t0 = time.perf_counter()
        list(engine.run_grid(source(tiny), settings))
        out["stages"]["warm_up"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        data = source(folder)
        out["stages"]["load"] = time.perf_counter() - t0
        clock = StageClock()
        profiles = []
        t0 = last = time.perf_counter()
        for result in engine.run_grid(data, settings, TaskControl(clock)):
            now = time.perf_counter()
            profiles.append(
                {
                    "label": result.label,
                    "wall": now - last,
                    "timings": result.timings,
                    "d": result.d,
                    "unicity": [r.unicity for r in result.by_p],
                    "digest": digest(result),
                }
            )
            last = now
        clock.close()
        out["stages"]["run"] = time.perf_counter() - t0
    out["profiles"] = profiles
    out["progress_stages"] = clock.seconds
    out["events"] = getattr(getattr(data, "events", None), "n_events", None)
    out["self_peak_mb"] = _peak_mb()
    return out


# -- the harness: one subprocess per engine, its memory sampled from /proc ------------------------------


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc/*/stat."""
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="ascii", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return "?"


def run_engine(engine: str, folder: Path, args: argparse.Namespace) -> dict:
    """Run ``engine`` on ``folder`` in a child process; add the peaks of it and of its children (JVM)."""
    temp = Path(tempfile.mkdtemp(prefix=f"bench_engines_{engine}_", dir=args.temp_root))
    result_file = temp / "result.json"
    command = [sys.executable, __file__, "--worker", engine, "--data", str(folder), "--temp", str(temp)]
    command += ["--json", str(result_file), *_shared_flags(args)]
    log = (temp / "stderr.txt").open("w")
    proc = subprocess.Popen(command, stderr=log)
    peaks: dict[int, tuple[str, int]] = {}
    tree_peak = 0
    while proc.poll() is None:
        tree = _children()
        family, todo = [], [proc.pid]
        while todo:
            pid = todo.pop()
            family.append(pid)
            todo.extend(tree.get(pid, []))
        total = 0
        for pid in family:
            total += _status_kb(pid, "VmRSS")
            hwm = _status_kb(pid, "VmHWM")
            if hwm > peaks.get(pid, ("", 0))[1]:
                peaks[pid] = (_comm(pid), hwm)
        tree_peak = max(tree_peak, total)
        time.sleep(0.2)
    log.close()
    if proc.returncode != 0 or not result_file.exists():
        lines = [x for x in (temp / "stderr.txt").read_text(errors="replace").splitlines() if x.strip()]
        shutil.rmtree(temp, ignore_errors=True)
        return {"engine": engine, "error": f"exit code {proc.returncode}: {lines[-1] if lines else ''}"[:400]}
    out = json.loads(result_file.read_text())
    shutil.rmtree(temp, ignore_errors=True)
    children = {f"{name}[{pid}]": kb / 1024 for pid, (name, kb) in peaks.items() if pid != proc.pid}
    out["child_peaks_mb"] = children
    out["jvm_peak_mb"] = max((mb for k, mb in children.items() if k.startswith("java")), default=None)
    out["tree_peak_mb"] = tree_peak / 1024
    return out


def _shared_flags(args: argparse.Namespace) -> list[str]:
    """The flags a worker needs to run the same grid as its siblings."""
    flags = ["--profiles", *args.profiles, "--measures", *args.measures]
    flags += ["--pmax", str(args.pmax), "--samples", str(args.samples), "--threads", str(args.threads)]
    return [*flags, "--duckdb-memory", args.duckdb_memory, "--spark-memory", args.spark_memory]


def numba_estimate(measured: dict | None, events: int, folder: Path) -> dict:
    """The in-memory engine's expected peak at ``events``: its measured peak scaled per event, and the
    engines' own load estimate (``resolve_engine``'s rule) when available."""
    out: dict = {}
    if measured is not None:
        out["scaled_peak_mb"] = measured["self_peak_mb"] * events / measured["events"]
        out["scaled_from_events"] = measured["events"]
    try:
        from privacy_studio.core.engines.auto import estimated_memory
    except ImportError:
        return out
    out["load_estimate_mb"] = estimated_memory([str(folder / "events.parquet")]) / 2**20
    return out


def same_sizes(runs: list[dict]) -> dict[str, bool]:
    """Per engine: do its per-profile digests equal the first engine's (numba when it ran)?"""
    done = [r for r in runs if "profiles" in r]
    if not done:
        return {}
    ref = [p["digest"] for p in done[0]["profiles"]]
    return {r["engine"]: [p["digest"] for p in r["profiles"]] == ref for r in done}


def per_mevent(run: dict, events: int) -> dict[str, float]:
    """Seconds per million events of a run: load + run, and run alone."""
    st, mega = run["stages"], events / 1e6
    return {"load_run": (st["load"] + st["run"]) / mega, "run": st["run"] / mega}


def measure(args: argparse.Namespace) -> list[dict]:
    """Every size x engine, numba first; numba is skipped where its scaled peak exceeds its limit, and
    measured on ``--baseline-users`` first when every size is larger (ratios need it in the same run)."""
    sizes = sorted(args.users)
    engines = sorted(args.engines, key=ENGINE_ORDER.index)
    baseline_only = "numba" in engines and sizes[0] > args.baseline_users
    entries, numba = [], None
    for users in [args.baseline_users] * baseline_only + sizes:
        folder = ensure_data(args.cache, users, args.days)
        events = json.loads((folder / "meta.json").read_text())["events"]
        entry: dict = {"users": users, "events": events, "data": str(folder), "runs": []}
        for engine in engines if users in sizes else ["numba"]:
            if engine == "numba":
                entry["numba_estimate"] = estimate = numba_estimate(numba, events, folder)
                expected = max(estimate.get("scaled_peak_mb", 0), estimate.get("load_estimate_mb", 0))
                if expected > args.numba_limit_gb * 1024:
                    why = f"needs ≈{expected / 1024:.1f} GB > {args.numba_limit_gb:g} GB"
                    entry["runs"].append({"engine": "numba", "skipped": why})
                    continue
            print(f"{users:,} users: {engine} ...", flush=True)
            run = run_engine(engine, folder, args)
            run["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            if engine == "numba" and "profiles" in run:
                numba = {**run, "users": users, "events": events}
            if numba is not None and "profiles" in run:
                base, mine = per_mevent(numba, numba["events"]), per_mevent(run, events)
                run["numba_baseline"] = {"users": numba["users"], "seconds_per_mevent": base}
                run["ratio_load_run"] = mine["load_run"] / base["load_run"]
                run["ratio_run"] = mine["run"] / base["run"]
            entry["runs"].append(run)
        entries.append(entry)
    return entries


def merge(previous: dict | None, settings: dict, entries: list[dict]) -> dict:
    """This run's entries over the stored ones of the same settings (runs replaced per size x engine)."""
    stored = previous if previous and previous.get("settings") == settings else {"sizes": []}
    by_users = {e["users"]: e for e in stored["sizes"]}
    for entry in entries:
        old = by_users.get(entry["users"])
        if old is not None:
            fresh = {r["engine"] for r in entry["runs"]}
            entry["runs"] = [r for r in old["runs"] if r["engine"] not in fresh] + entry["runs"]
            entry["runs"].sort(key=lambda r: ENGINE_ORDER.index(r["engine"]))
            entry["numba_estimate"] = entry.get("numba_estimate") or old.get("numba_estimate")
        entry["identical"] = same_sizes(entry["runs"])
        by_users[entry["users"]] = entry
    return {"settings": settings, "sizes": [by_users[u] for u in sorted(by_users)]}


def table(payload: dict, min_stage: float = 1.0) -> str:
    """The printed summary: one line per size x engine, then its progress stages of a second or more."""
    head = f"{'users':>10} {'engine':<7} {'open s':>7} {'load s':>7} {'run s':>8} {'×numba':>7} "
    head += f"{'self MB':>8} {'JVM MB':>7} {'tree MB':>8}  per profile (s)"
    lines = [head]
    for entry in payload["sizes"]:
        for run in entry["runs"]:
            name = run["engine"]
            if "stages" not in run:
                lines.append(f"{entry['users']:>10,} {name:<7} {run.get('skipped') or run.get('error')}")
                continue
            st = run["stages"]
            ratio = run.get("ratio_load_run")
            jvm = run.get("jvm_peak_mb")
            profiles = ", ".join(f"{p['label']} {p['wall']:.1f}" for p in run["profiles"])
            lines.append(
                f"{entry['users']:>10,} {name:<7} {st['open']:>7.1f} {st['load']:>7.1f} {st['run']:>8.1f} "
                f"{'' if ratio is None else f'{ratio:.2f}':>7} {run['self_peak_mb']:>8.0f} "
                f"{'' if jvm is None else f'{jvm:.0f}':>7} {run['tree_peak_mb']:>8.0f}  {profiles}"
            )
            slow = {k: v for k, v in run["progress_stages"].items() if v >= min_stage}
            lines.append(f"{'':>10} {'':<7} stages: " + ", ".join(f"{k} {v:.1f}" for k, v in slow.items()))
        same = entry.get("identical")
        if same:
            lines.append(f"{'':>10} identical class sizes vs {next(iter(same))}: {same}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, nargs="+", default=[1_000_000, 5_000_000])
    parser.add_argument("--quick", action="store_true", help="100,000 users, S = 2,000")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--make-data", action="store_true", help="only make the Parquet cities")
    parser.add_argument("--engines", nargs="+", default=["numba", "duckdb", "spark"])
    parser.add_argument("--profiles", nargs="+", default=["antenna:1h", "district:1w"])
    parser.add_argument("--measures", nargs="+", default=["unicity", "kdisc", "worst"])
    parser.add_argument("--pmax", type=int, default=10)
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--duckdb-memory", default="8GB")
    parser.add_argument("--spark-memory", default="6g", help="Spark driver memory (local mode: all of it)")
    parser.add_argument("--numba-limit-gb", type=float, default=8.0, help="memory numba may use")
    parser.add_argument("--temp-root", default=None, help="folder for spills and warm-up copies")
    parser.add_argument("--baseline-users", type=int, default=1_000_000, help="numba baseline size")
    parser.add_argument("--fresh", action="store_true", help="do not merge with the stored results")
    parser.add_argument("--json", default=None)
    parser.add_argument("--worker", choices=["numba", "duckdb", "spark"], help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--temp", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        result = worker(args)
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
        return 0
    if args.quick:
        args.users, args.samples = [100_000], min(args.samples, 2_000)
    if args.make_data:
        for users in args.users:
            print(f"data: {ensure_data(args.cache, users, args.days)}")
        return 0
    settings = {  # what results may be merged under (engine limits are stored with each run)
        "profiles": args.profiles,
        "p": f"1..{args.pmax}",
        "samples": args.samples,
        "measures": args.measures,
        "threads": args.threads,
        "cpus": os.cpu_count(),
    }
    name = "bench_engines_quick.json" if args.quick else "bench_engines.json"
    out = Path(args.json) if args.json else Path(__file__).parent / "results" / name
    previous = json.loads(out.read_text()) if out.exists() and not args.fresh else None
    payload = merge(previous, settings, measure(args))
    print(table(payload))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"JSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
