"""The one thread helper: partial results in order, progress, readable errors, cancellation between chunks."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from privacy_studio.core.progress import TaskControl
from privacy_studio.gui.workers import EtaEstimator, TaskRunner, Worker, format_duration, readable_error


def squares(n: int, control: TaskControl):
    for i in range(n):
        control.report(i / n, f"item {i}")
        yield i * i


def test_generator_items_arrive_as_partial_results_in_order(qtbot):
    runner = TaskRunner()
    worker = Worker(squares, 5)
    got, progress = [], []
    worker.signals.partial.connect(got.append)
    worker.signals.progress.connect(lambda f, m: progress.append(f))
    with qtbot.waitSignal(worker.signals.finished, timeout=10_000) as blocker:
        runner.start(worker)
    assert got == [i * i for i in range(5)]
    assert blocker.args[0] == got
    assert progress[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in progress)
    qtbot.waitUntil(lambda: not runner.active)


def test_plain_function_result_is_emitted_once(qtbot):
    runner = TaskRunner()
    worker = Worker(lambda a, b, control: a + b, 2, 3)
    with qtbot.waitSignal(worker.signals.finished, timeout=10_000) as blocker:
        runner.start(worker)
    assert blocker.args == [5]


def test_cancel_stops_at_next_chunk_and_keeps_items_so_far(qtbot):
    release = threading.Event()

    def slow(control: TaskControl):
        for i in range(100):
            control.report(i / 100)
            yield i
            release.wait(5)

    runner = TaskRunner()
    worker = Worker(slow)
    finished = []
    worker.signals.finished.connect(finished.append)

    def first_item(_item):
        worker.cancel()
        release.set()

    worker.signals.partial.connect(first_item)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=10_000) as blocker:
        runner.start(worker)
    assert 1 <= len(blocker.args[0]) < 100
    assert blocker.args[0] == list(range(len(blocker.args[0])))
    assert finished == []


def test_errors_arrive_as_readable_messages(qtbot):
    def broken(control: TaskControl):
        raise ValueError("column 'time' has no parsable dates")

    runner = TaskRunner()
    worker = Worker(broken)
    failures = []
    worker.signals.failed.connect(lambda message, details: failures.append((message, details)))
    with qtbot.waitSignal(worker.signals.done, timeout=10_000):
        runner.start(worker)
    [(message, details)] = failures
    assert message == "column 'time' has no parsable dates"
    assert "Traceback" in details


@pytest.mark.parametrize(
    ("exc", "text"),
    [
        (ValueError("bad p"), "bad p"),
        (FileNotFoundError(2, "No such file", "/x/y.csv"), "file not found: /x/y.csv"),
        (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    ],
)
def test_readable_error(exc, text):
    assert readable_error(exc) == text


def test_eta_from_fraction_and_elapsed_time():
    now = [100.0]
    eta = EtaEstimator(clock=lambda: now[0])
    assert eta.remaining(0.5) is None  # no time elapsed yet
    now[0] = 110.0
    assert eta.remaining(0.25) == pytest.approx(30.0)
    assert eta.remaining(0.001) is None


def test_format_duration():
    assert format_duration(None) == "…"
    assert format_duration(12.4) == "12 s"
    assert format_duration(185) == "3 min 05 s"
    assert format_duration(3720) == "1 h 02 min"


def _until_cancelled(release: threading.Event):
    def run(control: TaskControl) -> str:
        while not release.wait(0.01):
            control.report(0.5, "working")
        return "done"

    return run


def test_a_task_of_the_same_kind_cancels_the_previous_one(qtbot):
    release = threading.Event()
    runner = TaskRunner()
    first = Worker(_until_cancelled(release), name="first")
    cancelled = []
    first.signals.cancelled.connect(cancelled.append)
    runner.start(first, kind="extrapolation")
    other_kind = Worker(lambda control: 1, name="other")
    runner.start(other_kind, kind="attributes")
    assert not first.is_cancelled  # a task of another kind leaves it alone
    second = Worker(lambda control: 2, name="second")
    with qtbot.waitSignal(second.signals.finished, timeout=10_000):
        runner.start(second, kind="extrapolation")
    assert first.is_cancelled
    qtbot.waitUntil(lambda: cancelled == [[]], timeout=10_000)
    release.set()
    qtbot.waitUntil(lambda: not runner.active, timeout=10_000)
    assert runner.of_kind("extrapolation") == []


def test_the_task_runner_shortens_how_long_a_worker_keeps_the_gil(qtbot):
    """With Python's default 5 ms, a busy worker made each of the GUI thread's many GIL requests per frame
    wait 5 ms; the runner lowers the interval (never raises one already lower)."""
    from privacy_studio.gui.workers import GIL_SWITCH_S, TaskRunner

    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        TaskRunner()
        assert sys.getswitchinterval() == pytest.approx(GIL_SWITCH_S, rel=0.05)
        sys.setswitchinterval(0.0001)
        TaskRunner()
        assert sys.getswitchinterval() == pytest.approx(0.0001, rel=0.05)
    finally:
        sys.setswitchinterval(before)


def test_objects_alive_at_a_start_are_left_out_of_collections_while_tasks_run(qtbot):
    """A worker's garbage collections do not walk the project and the window (issue #27): what is alive when
    a task starts is frozen out of the collector while it runs, and handed back once no task runs, so a
    cycle among those objects is still collected afterwards."""
    import gc

    runner = TaskRunner()
    alive = [[i] for i in range(20_000)]  # containers the collector tracks
    gc.unfreeze()
    frozen_while_running = []
    worker = Worker(lambda control: frozen_while_running.append(gc.get_freeze_count()))
    with qtbot.waitSignal(runner.stopped, timeout=5000):
        runner.start(worker)
    assert frozen_while_running[0] >= len(alive)
    assert gc.get_freeze_count() == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice values are Linux's")
def test_workers_and_the_threads_they_start_leave_the_cores_to_the_window(qtbot):
    """On 2 cores the kernels' threads kept the GUI thread waiting for a core (issue #27): a worker lowers its
    own priority, which the threads it starts (numba's, DuckDB's) inherit; the GUI thread's stays."""
    from privacy_studio.gui.workers import WORKER_NICE

    def nice_here() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def nice_of_a_worker_and_of_its_thread(control: TaskControl) -> tuple[int, int]:
        seen: list[int] = []
        started = threading.Thread(target=lambda: seen.append(nice_here()))
        started.start()
        started.join()
        return nice_here(), seen[0]

    gui_before = nice_here()
    worker = Worker(nice_of_a_worker_and_of_its_thread)
    with qtbot.waitSignal(worker.signals.finished, timeout=10_000) as blocker:
        TaskRunner().start(worker)
    expected = max(WORKER_NICE, gui_before)
    assert blocker.args[0] == (expected, expected)
    assert nice_here() == gui_before
