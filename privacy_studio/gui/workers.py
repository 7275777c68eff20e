"""The one place the studio runs work off the GUI thread: core functions in a QThreadPool.

A :class:`Worker` calls a core function with a :class:`TaskControl` whose callback emits ``progress``;
if the function returns a generator, each yielded item is emitted as ``partial`` as soon as it exists.
Cancelling sets the control's flag, so the core stops at its next chunk; items already emitted stay valid.
"""

from __future__ import annotations

import gc
import inspect
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThread, QThreadPool, Signal, Slot

from privacy_studio.core.progress import Cancelled, TaskControl

#: Minimum seconds between two progress signals (the core may report far more often than a bar can show).
PROGRESS_INTERVAL = 0.05

#: Exceptions whose text is written for the user; anything else is shown with its type and logged in full.
_USER_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, KeyError)


def readable_error(exc: BaseException) -> str:
    """One line a data-release officer can act on, for an exception raised by the core."""
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"file not found: {exc.filename}"
    if isinstance(exc, _USER_ERRORS) or (
        type(exc).__name__.endswith("Error") and type(exc).__module__.startswith("privacy_studio")
    ):
        return text
    return f"{type(exc).__name__}: {text}"


class EtaEstimator:
    """Remaining time from the fraction done and the time elapsed since the task started."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._start = clock()

    def elapsed(self) -> float:
        return self._clock() - self._start

    def remaining(self, fraction: float) -> float | None:
        """Seconds left, or ``None`` while too little is done to say."""
        elapsed = self.elapsed()
        if fraction <= 0.01 or elapsed < 0.5:
            return None
        return elapsed * (1.0 - min(fraction, 1.0)) / fraction


def format_duration(seconds: float | None) -> str:
    """``1 h 02 min``, ``3 min 05 s``, ``12 s`` or ``…`` when unknown."""
    if seconds is None:
        return "…"
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


class WorkerSignals(QObject):
    """Signals of one worker; they live in the GUI thread, so connected slots run there."""

    progress = Signal(float, str)  # fraction 0..1 of the whole task, message
    partial = Signal(object)  # one yielded item of a generator task
    finished = Signal(object)  # the return value (a list of the items for a generator task)
    failed = Signal(str, str)  # readable message, full traceback for the log
    cancelled = Signal(object)  # the items yielded before the cancellation (list) or None
    done = Signal(object)  # the Worker, always emitted last whatever the outcome


class Worker(QRunnable):
    """Runs ``fn(*args, control=TaskControl, **kwargs)`` once in a pool thread.

    A ``background`` worker is a short helper task (drawing aid, warm-up) that the status bar neither shows
    nor offers to cancel.
    """

    background = False
    #: Set just before ``finished`` is emitted: whether the function returned (read once it is ``done``).
    succeeded = False

    def __init__(self, fn: Callable[..., Any], *args: Any, name: str = "", **kwargs: Any) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.name = name or getattr(fn, "__name__", "task")
        self.signals = WorkerSignals()
        self.control = TaskControl(self._on_progress)
        self.eta = EtaEstimator()
        self._last_emit = 0.0

    def cancel(self) -> None:
        """Ask the core function to stop at its next chunk."""
        self.control.cancel()

    @property
    def is_cancelled(self) -> bool:
        return self.control.cancelled

    def _on_progress(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if fraction >= 1.0 or now - self._last_emit >= PROGRESS_INTERVAL:
            self._last_emit = now
            self.signals.progress.emit(float(fraction), message)

    def run(self) -> None:
        items: list[Any] = []
        yield_to_the_window()
        try:
            self.eta = EtaEstimator()
            result = self.fn(*self.args, control=self.control, **self.kwargs)
            if inspect.isgenerator(result):
                for item in result:
                    items.append(item)
                    self.signals.partial.emit(item)
                    self.control.check()
                result = items
            self.control.check()
            self.signals.progress.emit(1.0, "done")
            self.succeeded = True
            self.signals.finished.emit(result)
        except Cancelled:
            self.signals.cancelled.emit(items)
        except Exception as exc:
            self.signals.failed.emit(readable_error(exc), traceback.format_exc())
        finally:
            self.signals.done.emit(self)


#: The nice value of the worker threads on Linux, and so of the kernel and DuckDB threads they start.
WORKER_NICE = 10


def yield_to_the_window() -> None:
    """Lower the calling worker thread's scheduling priority (once; it is inherited by the threads it
    starts: numba's OpenMP team, DuckDB's): on 2 cores the kernels' threads took both and the GUI thread
    waited for one (the 100k city's run paused up to 103 ms, 57 ms with this; issue #27). Linux keeps nice
    per thread and ranks one program's threads by it; Qt's thread priorities do nothing there."""
    if sys.platform.startswith("linux"):
        tid = threading.get_native_id()
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < WORKER_NICE:
                os.setpriority(os.PRIO_PROCESS, tid, WORKER_NICE)
        except OSError:  # a sandbox that refuses it: the task runs at the priority it has
            pass


#: Longest a worker thread keeps the GIL when the GUI thread wants it (seconds).
GIL_SWITCH_S = 0.0005


class TaskRunner(QObject):
    """The window's one task owner: starts workers in a thread pool and keeps them alive until they are done.

    A task started with a ``kind`` cancels the running tasks of that kind first (a new run replaces the
    old one); ``started`` lets the status bar show every task, ``cancel_all`` stops them on close.
    """

    started = Signal(object)  # the Worker
    stopped = Signal(object)

    def __init__(self, parent: QObject | None = None, max_threads: int = 2) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max_threads)
        self.pool.setThreadPriority(QThread.Priority.LowPriority)  # Windows, macOS; Linux: nice (above)
        # A worker running Python keeps the GIL for up to the switch interval each time the GUI thread
        # asks for it back, which painting does hundreds of times per frame: 5 ms (Python's default)
        # stretched frames to over 100 ms during a run (issue #15); 0.5 ms keeps them short.
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_S))
        self._active: list[Worker] = []
        self._kinds: dict[int, str] = {}  # id(worker) -> kind, for the workers started with one

    def start(self, worker: Worker, kind: str | None = None) -> Worker:
        """Run ``worker`` in the pool; connect to its signals before calling this, so nothing is missed.

        With ``kind``, running workers of the same kind are cancelled first: their results are superseded.
        """
        if kind is not None:
            for other in self.of_kind(kind):
                other.cancel()
            self._kinds[id(worker)] = kind
        # While tasks run, the objects alive at their start (the project, its results, the window's) are left
        # out of garbage collections: a full collection walks them all while holding the GIL, and one
        # triggered inside a worker froze the window 120 ms during the sample's PDF export (issue #27). They
        # are handed back once no task runs, so cycles among them are still collected (no leak).
        gc.freeze()
        self._active.append(worker)
        worker.signals.done.connect(self._forget)
        # Listeners of ``started`` connect to the worker's signals: they must do so before it runs, or a
        # task that fails at once emits ``done`` to nobody (the status bar then stayed busy for ever).
        self.started.emit(worker)
        self.pool.start(worker)
        return worker

    @Slot(object)
    def _forget(self, worker: Worker) -> None:
        if worker in self._active:
            self._active.remove(worker)
        self._kinds.pop(id(worker), None)
        if not self._active:
            gc.unfreeze()
        self.stopped.emit(worker)

    @property
    def active(self) -> list[Worker]:
        return list(self._active)

    def of_kind(self, kind: str) -> list[Worker]:
        """The running workers started with ``kind``."""
        return [w for w in self._active if self._kinds.get(id(w)) == kind]

    def cancel_all(self) -> None:
        for worker in self._active:
            worker.cancel()

    def wait(self, msecs: int = -1) -> bool:
        """Block until every worker is done (used on close and in tests)."""
        return self.pool.waitForDone(msecs)
