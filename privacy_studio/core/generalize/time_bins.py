"""Fixed-width local time bins aligned to Monday midnight, and the zone's clock over a table's period that
bins events without storing their local times."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.events import EventTable, OffsetPieces, hourly_offset_pieces
from privacy_studio.core.generalize.levels import MONDAY_EPOCH, TemporalLevel
from privacy_studio.core.kernels.timebins import floor_bins, local_range


@dataclass(frozen=True)
class BinGrid:
    """Fixed-width time bins over a table's period: a local second ``t`` falls in ``(t - origin) // width``
    (``width`` None: one bin for the whole period)."""

    width: int | None
    n_bins: int
    origin: int  # local seconds at which bin 0 starts


def bin_grid(level: TemporalLevel, first_second: int, last_second: int) -> BinGrid:
    """The bins of ``level`` covering local seconds ``first_second..last_second``, from Monday midnight."""
    if level.seconds is None:
        return BinGrid(None, 1, 0)
    first = (first_second - MONDAY_EPOCH) // level.seconds
    last = (last_second - MONDAY_EPOCH) // level.seconds
    return BinGrid(level.seconds, last - first + 1, MONDAY_EPOCH + first * level.seconds)


def time_bins(events: EventTable, level: TemporalLevel) -> tuple[np.ndarray, int, int]:
    """Bin of every event (0-based), the number of bins covering the period, and bin 0's local start."""
    if level.seconds is None or events.n_events == 0:
        return np.zeros(events.n_events, dtype=np.int64), 1, 0
    local = events.local_time()
    grid = bin_grid(level, int(local.min()), int(local.max()))
    return floor_bins(local, grid.origin, grid.width), grid.n_bins, grid.origin


@dataclass(frozen=True)
class LocalClock:
    """The zone's UTC offset over the events' period as pieces per UTC hour (see ``OffsetPieces``), and
    the events' first and last local second: enough to bin events without storing their local times."""

    before: np.ndarray
    split: np.ndarray
    after: np.ndarray
    first_hour: int
    first_second: int
    last_second: int

    @classmethod
    def of(cls, events: EventTable) -> LocalClock:
        """The clock of a table with at least one event (whatever origin its times count from)."""
        first_utc, last_utc = events.period()
        first, last = int(first_utc) // 3600, int(last_utc) // 3600
        if events.tz in ("UTC", "utc", "Z", ""):
            zero = np.zeros(last - first + 1, dtype=np.int64)
            pieces = OffsetPieces(zero, np.full(len(zero), 3600, dtype=np.int64), zero)
        else:
            pieces = hourly_offset_pieces(first, last, events.tz)
        o = events.time_origin  # times as stored count from it: so do the ends and the first hour
        ends = (first_utc - o, last_utc - o)
        lo, hi = local_range(events.time, *ends, pieces.before, pieces.split, pieces.after, first - o // 3600)
        return cls(pieces.before, pieces.split, pieces.after, first, int(lo) + o, int(hi) + o)

    def pieces(self, time_origin: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """The offset pieces for times counted from ``time_origin`` (a whole hour): ``local_second`` of such
        a time is then the local second counted from the same origin."""
        return (self.before, self.split, self.after, self.first_hour - time_origin // 3600)
