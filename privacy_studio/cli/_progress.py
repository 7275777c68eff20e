"""The one progress bar every long-running command draws on stderr."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """A one-line bar on stderr, redrawn at most five times a second; a TaskControl callback."""

    def __init__(self, stream: TextIO | None = None, *, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.last = 0.0
        self.shown = False

    def __call__(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and fraction < 1.0):
            return
        self.last, self.shown = now, True
        filled = int(30 * fraction)
        bar = "#" * filled + "." * (30 - filled)
        self.stream.write(f"\r[{bar}] {100 * fraction:5.1f}% {message[:70]:<70}")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line (if one was drawn) so what follows starts on a fresh line."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
            self.shown = False
