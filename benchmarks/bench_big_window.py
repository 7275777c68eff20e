"""The window on a project whose data exceed memory (issue #30): open it, wait for its overview, run its
grid out of core, until every task it started is done (on data that exceed memory, the information loss on a
sample follows the grid); the max and p99 event-loop gap (5 ms heartbeat, as ``bench_gui.py``) and the
process's peak resident memory of each step.

    flock /work/data/bigrun.lock python benchmarks/bench_big_window.py \\
        /work/data/scale/city_10000000_30_parquet --cells district:1w --p 1-4 --out big_window.json

The folder holds ``events.parquet``, ``antennas.csv`` and ``hierarchy.csv`` (``bench_scale.py``'s months).
A first opening computes the overview (DuckDB reads every event); ``--twice`` opens again from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_gui import GapMonitor, run_until


def make_project(data: Path, cells: list[tuple[str, str]], p: str, folder: Path) -> Path:
    """A project on ``--engine auto`` over the month in ``data`` with the grid ``cells``."""
    from privacy_studio.cli.risk import parse_p_values
    from privacy_studio.core.project import Project
    from privacy_studio.core.risk.settings import RiskSettings

    settings = RiskSettings(
        spatial=sorted({s for s, _ in cells}),
        temporal=sorted({t for _, t in cells}),
        cells=cells,
        p_values=parse_p_values(p),
        reference_p=parse_p_values(p)[-1],
    )
    project = Project(name=data.name, settings=settings.to_dict())
    project.engine = {**project.engine, "name": "auto"}
    reader = {"antennas": str(data / "antennas.csv"), "hierarchy": str(data / "hierarchy.csv")}
    project.add_source(data / "events.parquet", reader)
    return project.save(folder / f"{data.name}.psproj")


def peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def log_memory(path: Path, every: float = 0.5) -> None:
    """A thread writing the process's resident memory (MiB: anonymous, file-backed) to ``path`` every
    ``every`` s with the wall clock, to line the peak up with the run's log."""
    import threading

    def run() -> None:
        with open(path, "w", encoding="utf-8") as out:
            while True:
                status = Path("/proc/self/status").read_text()
                kb = {
                    k: int(v.split()[0])
                    for k, v in (line.split(":", 1) for line in status.splitlines())
                    if k in ("RssAnon", "RssFile", "RssShmem")
                }
                out.write(f"{time.time():.1f} {kb['RssAnon'] >> 10} {kb['RssFile'] >> 10}\n")
                out.flush()
                time.sleep(every)

    threading.Thread(target=run, daemon=True).start()


def note_log(log, first: int, seen: list[tuple[float, str]]) -> None:
    """Keep each line of the window's log after its ``first`` with the wall clock it was seen at (±10 ms)."""
    seen.extend((round(time.time(), 2), text) for _, text in log.lines[first + len(seen) :])


def measure(monitor: GapMonitor, done, timeout: float, log) -> dict:
    """Seconds until ``done()``, with the event-loop gaps and the window's log meanwhile, and the peak
    memory at the end."""
    from PySide6.QtWidgets import QApplication

    first, seen = len(log.lines), []
    monitor.clear()  # every list: the gaps alone left the CPU, sleeps and wall clocks of earlier steps
    monitor.recording = True
    app = QApplication.instance()
    app.recording = True  # a TimedApplication (--events) times each delivery meanwhile
    start = time.perf_counter()
    finished = run_until(done, timeout, each=lambda: note_log(log, first, seen))
    monitor.recording = app.recording = False
    if not finished:
        raise TimeoutError("the step did not finish in time")
    seconds = round(time.perf_counter() - start, 1)
    return {"s": seconds, **monitor.summary(), "peak_rss_gb": round(peak_gb(), 2), "log": seen}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--cells", default="district:1w", help="comma list of level:width")
    parser.add_argument("--p", default="1-4")
    parser.add_argument("--twice", action="store_true", help="open a second time (from the overview cache)")
    parser.add_argument("--no-run", action="store_true")
    parser.add_argument("--timeout", type=float, default=3600)
    parser.add_argument("--out", type=Path, default=Path("big_window.json"))
    parser.add_argument("--stacks", type=Path, help="every thread's stack at each pause over 60 ms")
    parser.add_argument("--memory-log", type=Path, help="resident memory (anonymous, file) every 0.5 s")
    parser.add_argument("--events", action="store_true", help="time every Qt event delivery (slow_events.py)")
    args = parser.parse_args()
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from privacy_studio.gui.main_window import MainWindow

    if args.events:
        from slow_events import TimedApplication

        _app = TimedApplication([])
    else:
        _app = QApplication.instance() or QApplication([])  # alive as long as the window
    folder = Path(tempfile.mkdtemp(prefix="bench-big-window-"))
    cells = [tuple(c.split(":")) for c in args.cells.split(",")]
    path = make_project(args.data, cells, args.p, folder)
    window = MainWindow(QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat))
    window.resize(1280, 720)
    window.show()
    # as the studio does at start: compiled (or cached) kernels before any step, so a tree whose numba cache
    # is cold (a fresh worktree) does not time compiling inside the run (LLVM holds the GIL)
    if args.memory_log is not None:
        log_memory(args.memory_log)
    warm = window.warm_up()
    run_until(lambda: warm not in window.runner.active, args.timeout)
    monitor = GapMonitor()
    monitor.watch(0.1)  # where the GUI thread is during a pause over 100 ms (printed at the end)
    if args.stacks is not None:
        monitor.dump_stalls(args.stacks)
    rows = {}
    for label in ("open", "open again")[: 2 if args.twice else 1]:
        window.session.overview = None
        monitor.mark(label)
        window.open_project(path)
        rows[label] = measure(
            monitor, lambda: window.session.overview is not None, args.timeout, window.log_panel
        )
        rows[label]["events_in_window"] = window.session.dataset is not None
    if not args.no_run:
        monitor.mark("run grid")

        def idle() -> bool:  # the run and what follows it (the information loss on a sample, off memory)
            return window.run_worker is None and not window.runner.active

        window.start_run(dict(window.session.project.settings))
        rows["run grid"] = measure(monitor, idle, args.timeout, window.log_panel)
        rows["run grid"]["profiles"] = len(window.session.project.results)
        errors = [text for level, text in window.log_panel.lines if level in ("error", "warning")]
        rows["run grid"]["messages"] = errors
    overview = window.session.overview
    result = {"data": str(args.data), "people": overview.people, "events": overview.events, "steps": rows}
    window.session.set_dirty(False)
    window.close()
    args.out.write_text(json.dumps(result, indent=2))
    print(f"{args.data.name}: {overview.people:,} people, {overview.events:,} events")
    print("step | s | max gap ms | p99 gap ms | peak RSS GB")
    for label, r in rows.items():
        print(f"{label} | {r['s']} | {r['gap_max_ms']:.0f} | {r['gap_p99_ms']:.0f} | {r['peak_rss_gb']}")
    for where, n in monitor.stalls.most_common(5):
        print(f"stalled {n}x at {where}")
    if args.events:
        print("slowest event deliveries (wall ms, the GUI thread's CPU ms, what, wall clock at end):")
        print(_app.table())


if __name__ == "__main__":
    main()
