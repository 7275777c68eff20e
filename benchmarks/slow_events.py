"""Which Qt events hold the GUI thread: a ``QApplication`` whose ``notify`` times every event it delivers, so
a pause of the event loop can be split into the deliveries that made it (a paint of the whole window, a
queued signal from a worker, a timer's slot) with the GUI thread's own CPU time in each.

    app = TimedApplication([])      # instead of QApplication([]), before any widget
    app.recording = True            # ... the step to look at ...
    print(app.table())              # the slowest deliveries, outermost first, with what nested inside
"""

from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

#: Deliveries shorter than this (ms) are not kept.
KEEP_MS = 10.0


@dataclass
class Delivery:
    """One event delivered to one object: wall and GUI-thread CPU milliseconds, and the slow ones inside."""

    what: str
    ms: float
    cpu_ms: float
    ended: float  # wall clock (time.time) at its end, to line it up with a pause
    inside: list[Delivery] = field(default_factory=list)


def _label(receiver: QObject, event: QEvent) -> str:
    name = receiver.objectName()
    kind = type(receiver).__name__ + (f"#{name}" if name else "")
    parent = receiver.parent()
    if not name and parent is not None:  # an unnamed timer or helper: say whose it is
        kind += f" of {type(parent).__name__}"
    return f"{event.type().name} -> {kind}"


class TimedApplication(QApplication):
    """``QApplication`` that keeps every delivery over :data:`KEEP_MS` while ``recording``."""

    def __init__(self, argv: list[str]) -> None:
        super().__init__(argv)
        self.recording = False
        self.slow: list[Delivery] = []
        self._open: list[list[Delivery]] = [self.slow]
        #: Garbage collections over KEEP_MS while recording: (ms, generation, thread, wall clock at end).
        self.collections: list[tuple[float, int, str, float]] = []
        self._gc_start = 0.0
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict) -> None:
        """A collection's time (it holds the GIL: whichever thread runs it, the others wait)."""
        if phase == "start":
            self._gc_start = time.perf_counter()
            return
        ms = (time.perf_counter() - self._gc_start) * 1000
        if self.recording and ms >= KEEP_MS:
            where = threading.current_thread().name
            self.collections.append((round(ms, 1), info["generation"], where, round(time.time(), 3)))

    def notify(self, receiver: QObject, event: QEvent) -> bool:
        if not self.recording:
            return super().notify(receiver, event)
        what = _label(receiver, event)  # before delivery: the event may be deleted by it
        wall, cpu = time.perf_counter(), time.thread_time()
        inside: list[Delivery] = []
        self._open.append(inside)
        try:
            return super().notify(receiver, event)
        finally:
            self._open.pop()
            ms = (time.perf_counter() - wall) * 1000
            if ms >= KEEP_MS:
                cpu_ms = (time.thread_time() - cpu) * 1000
                self._open[-1].append(Delivery(what, round(ms, 1), round(cpu_ms, 1), time.time(), inside))

    def table(self, top: int = 15) -> str:
        """The ``top`` slowest outermost deliveries, each with its slow nested ones indented below."""
        lines = []
        for d in sorted(self.slow, key=lambda d: -d.ms)[:top]:
            lines.append(f"{d.ms:7.1f} ms (cpu {d.cpu_ms:5.1f}) {d.what} @ {d.ended:.3f}")
            lines += [f"    {c.ms:7.1f} ms (cpu {c.cpu_ms:5.1f}) {c.what}" for c in d.inside]
        lines += [f"gc {ms:7.1f} ms gen {g} in {where} @ {end:.3f}" for ms, g, where, end in self.collections]
        return "\n".join(lines)
