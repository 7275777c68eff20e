"""Column buffers the reader fills batch by batch: plain numbers, and times kept as int32 seconds from an
origin (the in-memory engine's compact tables, issue #30: 4 bytes an event instead of 8)."""

from __future__ import annotations

import numpy as np

HOUR = 3600
#: Offsets an int32 holds: the times of one table span at most this many seconds around its origin.
INT32_SPAN = 2**31


class Growable:
    """A numpy array filled batch by batch in one buffer (grown by half when full), not many small pieces.

    Many small per-batch arrays fragment the heap and keep resident memory high after they are freed;
    one large buffer is returned to the system as a whole.
    """

    def __init__(self, dtype: type, capacity: int = 0) -> None:
        self.data = np.empty(capacity, dtype=dtype)
        self.size = 0

    def append(self, values: np.ndarray) -> None:
        need = self.size + len(values)
        if need > len(self.data):
            bigger = np.empty(max(need, len(self.data) * 3 // 2 + 1024), dtype=self.data.dtype)
            bigger[: self.size] = self.data[: self.size]
            self.data = bigger
        self.data[self.size : need] = values
        self.size = need

    def view(self) -> np.ndarray:
        return self.data[: self.size]

    def take(self) -> np.ndarray:
        """The filled part (copied when the buffer is much larger), leaving this buffer empty."""
        out = self.view() if self.size * 10 >= len(self.data) * 9 else self.view().copy()
        self.data, self.size = np.empty(0, dtype=self.data.dtype), 0
        return out


class OffsetTimes(Growable):
    """UTC epoch seconds kept as int32 seconds from ``origin``, the whole UTC hour at or before the first
    batch's earliest time; if a later time falls outside the int32 range around it (a file spanning over
    68 years), the buffer turns into plain int64 epoch seconds (``origin`` 0) and goes on."""

    def __init__(self, capacity: int = 0) -> None:
        super().__init__(np.int32, capacity)
        self.origin: int | None = None

    def append(self, values: np.ndarray) -> None:
        """Append int64 epoch seconds."""
        if len(values) == 0:
            return
        lo, hi = int(values.min()), int(values.max())
        if self.origin is None:
            self.origin = lo // HOUR * HOUR
        if self.data.dtype == np.int32 and (lo - self.origin < -INT32_SPAN or hi - self.origin >= INT32_SPAN):
            self.data = self.view().astype(np.int64) + self.origin  # the rare file that needs int64
            self.origin = 0
        super().append(values - self.origin if self.origin else values)

    def epoch_view(self) -> np.ndarray:
        """The filled part as int64 epoch seconds (a copy unless already so)."""
        if not self.origin:
            return self.view().astype(np.int64, copy=False)
        return self.view().astype(np.int64) + self.origin
