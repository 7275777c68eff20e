"""Progress reporting and cancellation without Qt: the core calls a callback, the GUI adapts it.

Long computations take a :class:`TaskControl`. They call ``report(fraction, message)`` between chunks
(which also raises :class:`Cancelled` once ``cancel()`` was called) and hand ``sub(start, end)`` views to
sub-stages so each stage reports in its own 0..1 range.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

ProgressCallback = Callable[[float, str], None]


class Cancelled(Exception):
    """Raised inside a computation when the user cancelled it; results so far stay valid."""


class TaskControl:
    """A cancellation flag plus a progress callback mapped into the range [start, end] of the parent."""

    def __init__(
        self,
        callback: ProgressCallback | None = None,
        *,
        _event: threading.Event | None = None,
        _start: float = 0.0,
        _end: float = 1.0,
        _label: str = "",
    ) -> None:
        self._callback = callback
        self._event = _event if _event is not None else threading.Event()
        self._start = _start
        self._end = _end
        self._label = _label

    def cancel(self) -> None:
        """Ask the computation to stop at its next check."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` if cancellation was requested."""
        if self._event.is_set():
            raise Cancelled("cancelled by the user")

    def report(self, fraction: float, message: str = "") -> None:
        """Report progress of this stage (0..1) and honour a pending cancellation."""
        self.check()
        if self._callback is not None:
            f = min(max(fraction, 0.0), 1.0)
            if self._label and message:
                message = f"{self._label}: {message}"
            self._callback(self._start + f * (self._end - self._start), message)

    def sub(self, start: float, end: float, label: str | None = None) -> TaskControl:
        """A control for a sub-stage that covers [start, end] of this stage's range; its messages (and those
        of its own sub-stages) start with ``label`` when given, e.g. the profile a stage works on."""
        span = self._end - self._start
        return TaskControl(
            self._callback,
            _event=self._event,
            _start=self._start + start * span,
            _end=self._start + end * span,
            _label=self._label if label is None else label,
        )


def as_control(control: TaskControl | None) -> TaskControl:
    """The given control, or a silent one that is never cancelled."""
    return control if control is not None else TaskControl()
