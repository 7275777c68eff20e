"""Responsiveness of the real main window (issue #15 item 2): open → run → switch tabs → cancel.

For each dataset (the sample city, the Gowalla NYC check-ins, a generated 100,000-person city), with every
person evaluated (and the cities' user-attributes file, so risk by group is tabulated too), a fresh process
opens the data as a project in the offscreen window, runs the grid while switching tabs, then runs again and
presses Esc. A 5 ms timer in the GUI thread measures how long the event loop went without turning (the
"gap"). The same child runs on a ``git worktree`` of the base revision (``baseline.py``) in the same
invocation, so the baseline shares the machine's load; each child's scratch folder is removed.

Measured: open (data read), run time, time to the first plotted curve, max and p99 event-loop gap over the
run, the slowest tab switch after the run, and cancel latency (from the moment Esc is due to the worker's
end: a frozen loop delays the key press, so the freeze counts). Then each action after the run alone (PDF
export, project save and open, release preview and write, aggregate preview and write, anonymizability,
matching attack, and the Decide step's protection search unless BENCH_GUI_SEARCH=0; BENCH_GUI_ACTIONS=a,b
keeps only the actions so labelled, e.g. "release export,protection search"): its seconds and its
max and p99 event-loop gap (a tree without an action, e.g. an older base, shows no row for it); a last
table sets each action's max gap beside the base's. ``BENCH_GUI_DUMP=FOLDER`` writes every thread's stack at
each pause over 60 ms there (one file per dataset and tree, headed by the step); it reads running threads'
frames without the GIL and can crash a child (SIGSEGV): find pauses with it, take figures without it.

Usage: python benchmarks/bench_gui.py [--datasets sample,gowalla,city100k] [--base REV | --no-baseline]
                                      [--data DIR] [--json OUT]
The machine's load matters: every figure is wall-clock time on the cores the run could get.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from baseline import RESULTS, ROOT, Tree, scratch, tree_env, trees, write_results

#: The generated city is kept here (git-ignored) and reused by later runs.
CACHE = RESULTS / "cache" / "gui"
REAL = Path("/work/shared/real_data")
DATASETS = ("sample", "gowalla", "city100k")
CITY_USERS = 100_000
#: Seconds into the second run at which Esc is pressed (at most: a quarter of the first run's time).
CANCEL_AFTER = 3.0
#: Seconds between two tab switches during the run (a user looking around).
SWITCH_EVERY = 1.0
#: Seconds any one step may take (BENCH_GUI_TIMEOUT: the 100k city's run alone took over 25 min under load).
TIMEOUT = float(os.environ.get("BENCH_GUI_TIMEOUT", "900"))
#: Every person is evaluated (the issue's target: "all people evaluated"); the run caps it at the data's n.
ALL_PEOPLE = 10_000_000


def dataset_spec(name: str, data: Path) -> tuple[dict, dict]:
    """(reader source dict, risk settings) of a dataset: every person evaluated, the grid kept small enough
    for a loaded machine."""
    if name == "sample":
        folder = ROOT / "sample_data"
        source = {
            "path": str(folder / "events.csv"),
            "reader": {
                "tz": "Europe/Paris",
                "antennas": str(folder / "antennas.csv"),
                "hierarchy": str(folder / "hierarchy.csv"),
            },
        }
        grid = (["antenna", "zip", "district"], ["1h", "6h", "1d", "1w"], 10)
    elif name == "gowalla":
        source = {
            "path": str(REAL / "gowalla_nyc" / "gowalla_events_nyc.tsv.gz"),
            "reader": {"header": False, "columns": ["user", "time", "lat", "lon", "location"]},
        }
        grid = (["raw", "grid:1", "grid:5"], ["1h", "1d", "1w", "all"], 10)
    else:
        folder = data / "city100k"
        source = {
            "path": str(folder / "events.csv"),
            "reader": {
                "tz": "Europe/Paris",
                "antennas": str(folder / "antennas.csv"),
                "hierarchy": str(folder / "hierarchy.csv"),
            },
        }
        grid = (["antenna", "zip", "district"], ["1h", "1w"], 6)
    spatial, temporal, p_max = grid
    settings = {
        "spatial": spatial,
        "temporal": temporal,
        "cells": None,
        "p_values": list(range(1, p_max + 1)),
        "knowledge": "uniform",
        "measures": ["unicity", "kdisc", "kanon", "em", "kl", "worst"],
        "samples": ALL_PEOPLE,
        "draws": 1,
        "seed": 1,
        "exact": False,
        "reference_p": min(4, p_max),
    }
    return source, settings


def prepare_city(data: Path) -> None:
    """Generate the 100,000-person city once (about 20 s); later invocations reuse it."""
    if (data / "city100k" / "events.csv").exists():
        return
    data.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "privacy_studio",
            "generate",
            "--users",
            str(CITY_USERS),
            "--periods",
            "1",
            "--cdr-layout",
            "none",
            "--out",
            str(data / "city100k"),
            "--quiet",
        ],
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


# -- child: one dataset in one window -------------------------------------------------------------------
def run_until(condition, timeout: float, each=None) -> bool:
    """Run the event loop a user's window runs (``QEventLoop.exec``: it waits in poll, as ``app.exec`` does)
    until ``condition()`` holds, checked every 10 ms after calling ``each()`` if given; False if ``timeout``
    seconds passed first. A loop of ``processEvents`` and ``sleep`` would measure its own sleeps."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + timeout
    loop, check = QEventLoop(), QTimer()
    check.setInterval(10)

    def tick() -> None:
        if each is not None:
            each()
        if condition() or time.monotonic() > deadline:
            loop.quit()

    check.timeout.connect(tick)
    check.start()
    if not condition():
        loop.exec()
    check.stop()
    return bool(condition())


class GapMonitor:
    """A 5 ms timer in the GUI thread; records the time between its ticks while ``recording``."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.gaps: list[float] = []
        self.cpu: list[float] = []  # the GUI thread's own CPU seconds in each gap
        self.sleeps: list[int] = []  # the GUI thread's voluntary context switches in each gap
        self.ends: list[float] = []  # wall clock at each gap's end: to find it in an outside profiler's log
        self.recording = False
        status = Path("/proc/thread-self/status")  # this (the GUI) thread's; Linux only
        self._status = os.open(status, os.O_RDONLY) if status.exists() else None
        self._last_sleeps = self._voluntary_switches()
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self._dump, self._dump_after = None, 0.06
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _voluntary_switches(self) -> int:
        """How often the GUI thread went to sleep: a thread waiting for the GIL sleeps again every 5 ms
        (the interpreter's switch interval), a thread waiting for a core does not sleep at all."""
        if self._status is None:
            return 0
        text = os.pread(self._status, 8192, 0).decode()
        return int(text.split("voluntary_ctxt_switches:", 1)[1].split()[0])

    def _tick(self) -> None:
        now, cpu, sleeps = time.perf_counter(), time.thread_time(), self._voluntary_switches()
        if self._dump is not None:  # re-armed on every turn of the loop: fires only when it stops turning
            faulthandler.dump_traceback_later(self._dump_after, file=self._dump)
        if self.recording:
            self.gaps.append(now - self._last)
            self.cpu.append(cpu - self._last_cpu)
            self.sleeps.append(sleeps - self._last_sleeps)
            self.ends.append(time.time())
        self._last, self._last_cpu, self._last_sleeps = now, cpu, sleeps

    def clear(self) -> None:
        self.gaps.clear()
        self.cpu.clear()
        self.sleeps.clear()
        self.ends.clear()

    def dump_stalls(self, path: Path, threshold: float = 0.06) -> None:
        """Write every thread's stack to ``path`` whenever the loop stops turning for ``threshold`` s: the
        watchdog is a C thread of ``faulthandler`` that needs no GIL, so it also catches a worker holding
        the GIL inside one long C call (the sampling ``watch`` thread then waits for the GIL too)."""
        self._dump, self._dump_after = open(path, "w", encoding="utf-8"), threshold  # noqa: SIM115

    def mark(self, label: str) -> None:
        """Head the stacks dumped from now on with ``label`` (the step being measured)."""
        if self._dump is not None:
            self._dump.write(f"=== {label}\n")
            self._dump.flush()

    def watch(self, threshold: float = 0.15) -> None:
        """Start a thread that, while the loop is stalled longer than ``threshold`` s, notes where the GUI
        thread and the studio's worker threads are (their innermost frames), so a stall can be traced to
        its cause (a GUI thread with no Python frame is usually waiting for a worker's GIL)."""
        import threading
        import traceback
        from collections import Counter

        self.stalls: Counter[str] = Counter()
        main = threading.main_thread().ident

        def where(frame) -> str:
            stack = traceback.extract_stack(frame)[-6:] if frame is not None else []
            return " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(stack))

        def run() -> None:
            me = threading.get_ident()
            while self.timer is not None:
                time.sleep(0.05)
                if self.recording and time.perf_counter() - self._last > threshold:
                    frames = sys._current_frames()
                    self.stalls["GUI: " + where(frames.get(main))] += 1
                    for ident, frame in frames.items():  # where the workers were: one may hold the GIL
                        if ident not in (main, me) and "privacy_studio" in where(frame):
                            self.stalls["worker: " + where(frame)] += 1

        threading.Thread(target=run, daemon=True).start()

    def summary(self) -> dict:
        import numpy as np

        gaps = np.asarray(self.gaps or [0.0]) * 1000
        cpu = np.asarray(self.cpu or [0.0]) * 1000
        return {
            "gap_max_ms": float(gaps.max()),
            "gap_max_cpu_ms": float(cpu[int(gaps.argmax())]),  # the GUI thread's own CPU: the studio's share
            # more than one sleep: the GUI thread waited for the GIL; one (its poll): it waited for a core
            "gap_max_sleeps": int(self.sleeps[int(gaps.argmax())]) if self.sleeps else 0,
            "cpu_max_ms": float(cpu.max()),
            "gap_p99_ms": float(np.percentile(gaps, 99)),
            "ticks": len(self.gaps),
            # the five longest pauses over 100 ms: ms, the GUI thread's CPU ms and sleeps, wall clock at end
            "pauses": [
                (round(float(gaps[i])), round(float(cpu[i]), 1), self.sleeps[i], round(self.ends[i], 3))
                for i in np.argsort(gaps)[::-1][:5]
                if gaps[i] > 100
            ],
        }


def child(name: str, data: Path, out: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox

    from privacy_studio.core.project import DataSource, Project
    from privacy_studio.gui.main_window import MainWindow

    # A second run replaces the first one's results: answer the window's question as a user who agrees.
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
    QMessageBox.warning = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Ok)
    app = QApplication(["bench-gui"])
    tmp = out.parent  # the parent's scratch folder, removed after the run
    window = MainWindow(QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat))
    window.resize(1400, 900)
    window.show()
    window.activateWindow()

    def wait(condition, what: str) -> None:
        if not run_until(condition, TIMEOUT):
            raise SystemExit(f"{name}: timed out waiting for {what}")

    warm = window.warm_up()
    wait(lambda: warm not in window.runner.active, "the engine warm-up")
    source, settings = dataset_spec(name, data)
    project = Project(name=f"bench {name}", settings=settings)
    project.sources = [DataSource(source["path"], None, source["reader"])]
    attributes = Path(source["path"]).with_name("attributes.csv")
    if name != "gowalla" and attributes.exists():  # the generated cities' people have attributes
        project.sources.append(DataSource(str(attributes), None, {}, role="attributes"))
    path = project.save(tmp / f"{name}.psproj")
    monitor = GapMonitor()
    if os.environ.get("BENCH_GUI_STALLS"):
        monitor.watch()
    if os.environ.get("BENCH_GUI_DUMP"):  # a folder: every thread's stack at each pause over 60 ms
        monitor.dump_stalls(Path(os.environ["BENCH_GUI_DUMP"]) / f"{name}-{os.getpid()}.txt")
        monitor.mark(f"{name}, the tree at {ROOT}")
    result: dict = {"dataset": name}

    t0 = time.perf_counter()
    window.open_project(path)
    wait(lambda: window.session.dataset is not None, "the data")
    result["open_s"] = time.perf_counter() - t0
    result["people"] = int(window.session.dataset.events.n_users)
    result["profiles"] = len(window.grid.checked_cells())
    out.write_text(json.dumps(result), encoding="utf-8")

    unicity = window.plots[0]
    window.tabs.setCurrentIndex(0)

    def plotted() -> bool:
        curves = getattr(unicity, "curves", {}).values()
        return any(c.line.getData()[0] is not None and len(c.line.getData()[0]) for c in curves)

    monitor.clear()
    monitor.mark("run")
    monitor.recording = True
    t0 = time.perf_counter()
    window.start_run(window.grid.settings())
    first_plot = None
    next_switch = t0 + SWITCH_EVERY
    tab = 0

    def look_around() -> None:  # once the first curve is there, another tab every SWITCH_EVERY seconds
        nonlocal first_plot, next_switch, tab
        now = time.perf_counter()
        if first_plot is None and plotted():
            first_plot = now - t0
        if first_plot is not None and now >= next_switch:
            tab = (tab + 1) % window.tabs.count()
            window.tabs.setCurrentIndex(tab)
            next_switch = now + SWITCH_EVERY

    if not run_until(lambda: window.run_worker is None, TIMEOUT, look_around):
        raise SystemExit(f"{name}: the run did not end")
    result["run_s"] = time.perf_counter() - t0
    window.tabs.setCurrentIndex(0)
    wait(lambda: True, "")
    if first_plot is None:
        first_plot = time.perf_counter() - t0 if run_until(plotted, 5) else None
    result["first_plot_s"] = first_plot
    monitor.recording = False
    result.update(monitor.summary())
    monitor.mark("tab switches after the run")  # timed apart: their stacks are not the run's
    switches = []
    for i in range(window.tabs.count()):
        t1 = time.perf_counter()
        window.tabs.setCurrentIndex(i)
        window.tabs.currentWidget().repaint()
        app.processEvents()
        switches.append(time.perf_counter() - t1)
    result["tab_switch_max_ms"] = max(switches) * 1000
    result["tab_switch_ms"] = {window.tabs.tabText(i): s * 1000 for i, s in enumerate(switches)}

    out.write_text(json.dumps(result), encoding="utf-8")  # kept if a later step times out
    result["actions"] = {}
    actions(window, monitor, wait, tmp, result["actions"], lambda: out.write_text(json.dumps(result)))

    # Cancel: a second run, Esc due CANCEL_AFTER seconds in (sent when the event loop next turns).
    monitor.mark("the cancelled run")  # else its stacks read as the last action's (the search's)
    window.tabs.setCurrentIndex(0)
    t0 = time.perf_counter()
    worker = window.start_run(window.grid.settings())
    due = t0 + min(CANCEL_AFTER, result["run_s"] / 4)
    pressed = None

    def press_esc_when_due() -> None:
        nonlocal pressed
        if pressed is None and time.perf_counter() >= due:
            QTest.keyClick(window, Qt.Key.Key_Escape)
            pressed = time.perf_counter()
            if worker is not None and not worker.is_cancelled:  # the key went nowhere: press the button
                window.cancel_shown()
                result["esc_missed"] = True

    if not run_until(lambda: window.run_worker is None, TIMEOUT, press_esc_when_due):
        raise SystemExit(f"{name}: the cancelled run did not end")
    ended = time.perf_counter()
    result["cancel_s"] = (ended - due) if pressed is not None else None
    result["cancel_note"] = "" if pressed is not None else f"the second run ended after {ended - t0:.1f} s"
    window.session.set_dirty(False)
    window.close()
    if hasattr(monitor, "stalls"):  # every 50 ms of a stall counts once where the GUI thread was
        result["stalls"] = dict(monitor.stalls.most_common(12))
    out.write_text(json.dumps(result), encoding="utf-8")


def actions(window, monitor: GapMonitor, wait, tmp: Path, measured: dict[str, dict], keep) -> None:
    """The officer's actions after a run, each measured alone (seconds, max and p99 event-loop gap) into
    ``measured``, ``keep()`` called after each: PDF export, project save and open, release and aggregate
    export (preview and write), anonymizability, the matching attack and the protection search."""
    from PySide6.QtWidgets import QFileDialog

    pdf, project_file, release_file = tmp / "report.pdf", tmp / "bench.psproj", tmp / "release.csv"
    aggregate_file = tmp / "aggregate.csv"
    settings = window.session.project.settings
    profile = f"{settings['spatial'][-1]}:{settings['temporal'][-1]}"  # the grid's coarsest cell
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: (str(pdf), ""))
    busy = lambda: any(not w.background for w in window.runner.active)  # noqa: E731
    dialog = aggregate = None

    def release() -> None:
        nonlocal dialog
        dialog = window.export_release()
        dialog.profile.setCurrentText(profile)  # the same in both trees (the default is the recommendation)
        dialog.start_preview()
        wait(lambda: dialog.prepared is not None or not busy(), "the release preview")
        dialog.out.setText(str(release_file))
        if hasattr(dialog, "reason"):  # a release failing the criteria is written with a reason
            dialog.reason.setText("benchmark: the write is timed whatever the verdict")
        dialog.start_write()

    def aggregate_export() -> None:
        nonlocal aggregate
        aggregate = window.export_aggregate()
        aggregate.profile.setCurrentText(profile)
        aggregate.start_preview()
        wait(lambda: aggregate.prepared is not None or not busy(), "the aggregate preview")
        aggregate.out.setText(str(aggregate_file))
        aggregate.start_write()

    def attack() -> None:
        """The events matched against themselves at the release's profile: the attack's full work, without
        depending on how a release file is read back."""
        spatial, temporal = profile.rsplit(":", 1)
        inputs = window.attacks.inputs()
        sides = {f"anonymous.{k}": inputs[f"identified.{k}"] for k in ("data", "places", "hierarchy")}
        window.attacks.apply_inputs({**sides, "spatial": spatial, "temporal": temporal})
        window.attacks.start(window.attacks.matching_request())

    steps = (
        ("PDF export", window.export_report, lambda: not busy()),
        ("project save", lambda: window._save_to(project_file), lambda: not busy()),
        (
            "project open",  # read and checked in a worker, then its data read in another
            lambda: window.open_project(project_file),
            lambda: not busy() and window.session.dataset is not None,
        ),
        ("release export", release, lambda: not busy()),
    )
    if hasattr(window, "export_aggregate"):  # an older base has no aggregate dialog: no row
        steps += (("aggregate export", aggregate_export, lambda: not busy()),)
    steps += (
        ("anonymizability", window.anonymizability.start, lambda: not busy()),
        ("matching attack", attack, lambda: not busy()),
    )
    candidates = getattr(window.tradeoff, "candidates", None)  # the Decide step's protection search
    if candidates is not None and os.environ.get("BENCH_GUI_SEARCH", "1") != "0":
        steps += (("protection search", candidates.start_search, lambda: not busy()),)
    _time_steps(_chosen(steps), monitor, wait, busy, measured, keep)
    for opened in (dialog, aggregate):
        if opened is not None:
            opened.close()
    notes = {
        "PDF export": {"written": pdf.exists()},
        "project save": {"mb": project_file.stat().st_size / 1e6 if project_file.exists() else None},
        "aggregate export": {"written": aggregate_file.exists()},
        "release export": {
            "written": release_file.exists(),
            "profile": profile,
            "problem": dialog.problems.text()[:120] if dialog is not None else "",
        },
        "matching attack": {"status": window.attacks.status.text()[:120]},
    }
    for label, note in notes.items():
        if label in measured:
            measured[label].update(note)


def _chosen(steps: tuple) -> tuple:
    """The steps ``BENCH_GUI_ACTIONS`` names (all when unset), in the bench's order (a search after a
    release needs "release export"); a name that matches no step is an error, not an empty table."""
    chosen = [a.strip() for a in os.environ.get("BENCH_GUI_ACTIONS", "").split(",") if a.strip()]
    unknown = sorted(set(chosen) - {label for label, _, _ in steps})
    if unknown:
        known = ", ".join(label for label, _, _ in steps)
        raise SystemExit(f"BENCH_GUI_ACTIONS: no action named {', '.join(unknown)} (this tree has: {known})")
    return tuple(s for s in steps if s[0] in chosen) if chosen else steps


def _time_steps(steps: tuple, monitor: GapMonitor, wait, busy, measured: dict[str, dict], keep) -> None:
    """Each step alone, from its start to its end and a few ticks after: seconds and event-loop gaps."""
    for label, start, done in steps:
        wait(lambda: not busy(), "the previous action")
        monitor.mark(label)
        monitor.clear()
        monitor.recording = True
        t0 = time.perf_counter()
        start()
        wait(done, label)
        elapsed = time.perf_counter() - t0
        settle = time.perf_counter() + 0.05  # a few ticks after: a freeze inside start() counts too
        wait(lambda end=settle: time.perf_counter() > end, "")
        monitor.recording = False
        measured[label] = {"s": elapsed, **monitor.summary()}
        keep()


def gap_comparison(rows: list[dict]) -> str:
    """Per dataset and action, the max event-loop gap on the base and on this tree, measured in the same
    run (the target is 100 ms), each beside the most CPU time the GUI thread itself spent in one gap (the
    rest of a gap is waiting for a core or for a worker's GIL), the ratio of the two max gaps, and how often
    the GUI thread slept in this tree's longest gap (hundreds: it waited for the GIL); an action the base
    does not have shows a dash."""
    head = (
        "dataset",
        "action",
        "base max gap ms",
        "base GUI CPU ms",
        "current max gap ms",
        "current GUI CPU ms",
        "current / base",
        "sleeps in it",
        "current s",
    )
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for name in dict.fromkeys(r["dataset"] for r in rows):
        trees = {r["tree"].split()[0]: r.get("actions") or {} for r in rows if r["dataset"] == name}
        base, current = trees.get("base", {}), trees.get("current", {})
        for label, a in current.items():
            before = base.get(label, {})
            cells = [name, label, fmt(before.get("gap_max_ms"), "ms"), fmt(before.get("cpu_max_ms"), "ms")]
            ratio = f"{a['gap_max_ms'] / before['gap_max_ms']:.2f}" if before.get("gap_max_ms") else "—"
            cells += [fmt(a["gap_max_ms"], "ms"), fmt(a.get("cpu_max_ms"), "ms"), ratio]
            cells += [str(a.get("gap_max_sleeps", "—")), fmt(a["s"])]
            lines.append(" | ".join(cells))
    return "\n".join(lines)


def action_table(rows: list[dict]) -> str:
    """One row per dataset, tree and action: seconds and the max and p99 event-loop gap."""
    head = ("dataset", "tree", "action", "s", "max gap ms", "p99 gap ms")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        for label, a in (r.get("actions") or {}).items():
            cells = [r["dataset"], r["tree"], label, fmt(a["s"])]
            lines.append(" | ".join([*cells, fmt(a["gap_max_ms"], "ms"), fmt(a["gap_p99_ms"], "ms")]))
    return "\n".join(lines)


# -- parent ---------------------------------------------------------------------------------------------
def run_child(tree: Tree, name: str, data: Path) -> dict:
    """One dataset's flow in a fresh process importing the studio from ``tree``."""
    with scratch("bench_gui_child_") as folder:
        out = folder / "result.json"
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", name]
        try:
            done = subprocess.run(
                [*argv, "--data", str(data), "--out", str(out)],
                cwd=tree.path,
                env=tree_env(tree, QT_QPA_PLATFORM="offscreen"),
                capture_output=True,
                text=True,
                timeout=3 * TIMEOUT,
            )
            said = (done.stderr or done.stdout).strip().splitlines() if done.returncode else []
            # the child's own reason (a step that timed out), else a crash's, before Qt's noise at exit
            telling = (f"{name}: ", "Fatal Python error", "Traceback", "Error", "Segmentation")
            error = next((line for line in said if line.startswith(telling)), "\n".join(said)[-600:])
            if done.returncode:
                error = f"exit status {done.returncode}: {error}"
        except subprocess.TimeoutExpired:
            error = f"timed out after {3 * TIMEOUT:,.0f} s"
        # the child keeps what it measured after each step: a step that times out loses only itself
        row = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"dataset": name}
        return {**row, "error": error} if error else row


def fmt(value: float | None, unit: str = "") -> str:
    return "—" if value is None else f"{value:,.{0 if unit == 'ms' else 1}f}"


def table(rows: list[dict]) -> str:
    head = (
        "dataset",
        "tree",
        "people",
        "open s",
        "run s",
        "1st plot s",
        "max gap ms",
        "p99 gap ms",
        "tab max ms",
        "cancel s",
    )
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['dataset']} | {r['tree']} | error: {r['error'].splitlines()[-1]}")
            continue
        lines.append(
            " | ".join(
                [
                    r["dataset"],
                    r["tree"],
                    f"{r['people']:,}",
                    fmt(r["open_s"]),
                    fmt(r["run_s"]),
                    fmt(r["first_plot_s"]),
                    fmt(r["gap_max_ms"], "ms"),
                    fmt(r["gap_p99_ms"], "ms"),
                    fmt(r["tab_switch_max_ms"], "ms"),
                    fmt(r["cancel_s"]) if r["cancel_s"] is not None else "—",
                ]
            )
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--base", default="HEAD~1", help="revision measured as the baseline (default HEAD~1)")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--data", type=Path, default=CACHE, help="the generated city's folder (kept)")
    parser.add_argument("--json", type=Path, default=RESULTS / "bench_gui.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.data, args.out)
        return 0
    names = [n for n in args.datasets.split(",") if n]
    if "city100k" in names:
        prepare_city(args.data)
    rows: list[dict] = []
    with trees(None if args.no_baseline else args.base) as all_trees:
        for name in names:
            for tree in reversed(all_trees):  # this tree first: a run cut short still measured it
                row = {**run_child(tree, name, args.data), "tree": tree.label}
                rows.append(row)
                print(f"{name} / {tree.label}: {json.dumps(row)}", file=sys.stderr, flush=True)
    print(table(rows))
    print()
    print(action_table(rows))
    print()
    print(gap_comparison(rows))
    path = write_results("bench_gui", {"base": args.base, "cpus": os.cpu_count(), "rows": rows}, args.json)
    print(f"written {path} (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
