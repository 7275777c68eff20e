"""Wall-clock times without an offset, turned into UTC in SQL exactly as the reader does.

The reader localizes naive times with Arrow (``timeparse.localize``: the earlier instant when clocks go
back, the moment of the change for skipped times). SQL engines have their own rules for those hours, so the
plan instead joins each naive time with a table, built here from the reader's own function, that says for
its local hour how wall-clock seconds map to UTC: ``u = a·L + b`` (``a`` = 1 normally, 0 inside a skipped
hour), with a second piece from ``split`` seconds into the hour when the clocks change inside it.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from privacy_studio.core.io.timeparse import localize

HOUR = 3600


def wall_clock_table(hours: np.ndarray, tz: str) -> pa.Table:
    """``ps_wall(lh, split, a1, b1, a2, b2)`` for the given local hours (wall-clock seconds // 3600)."""
    hours = np.unique(np.asarray(hours, dtype=np.int64))
    starts = hours * HOUR
    first, last = localize(starts, tz), localize(starts + HOUR - 1, tz)
    constant = first == last
    a1 = np.where(constant, 0, 1).astype(np.int64)
    b1 = first - a1 * starts
    split = np.full(len(hours), HOUR, dtype=np.int64)
    a2, b2 = a1.copy(), b1.copy()
    for i in np.flatnonzero(~constant & (last - first != HOUR - 1)):  # the clocks change inside the hour
        split[i], a1[i], b1[i], a2[i], b2[i] = _two_pieces(int(starts[i]), tz)
    return pa.table({"lh": hours, "split": split, "a1": a1, "b1": b1, "a2": a2, "b2": b2})


def _two_pieces(start: int, tz: str) -> tuple[int, int, int, int, int]:
    """(split, a1, b1, a2, b2) of an hour whose clock change falls inside it, checked second by second."""
    local = start + np.arange(HOUR, dtype=np.int64)
    utc = localize(local, tz)
    pieces = []
    at = 0
    while at < HOUR and len(pieces) < 2:
        a = 1 if at + 1 < HOUR and utc[at + 1] - utc[at] == 1 else 0
        b = int(utc[at] - a * local[at])
        fits = utc[at:] == a * local[at:] + b
        end = at + (int(np.argmin(fits)) if not fits.all() else HOUR - at)
        pieces.append((at, a, b))
        at = end
    if at < HOUR:
        raise ValueError(f"the clocks of {tz} change more than once in the local hour starting at {start} s")
    (_, a1, b1), (split, a2, b2) = pieces[0], pieces[-1]
    return (split if len(pieces) == 2 else HOUR), a1, b1, a2, b2


def utc_of_wall_clock(local: str, table: str = "w") -> str:
    """SQL: UTC seconds of the wall-clock seconds ``local``, joined with ``ps_wall`` as ``table``."""
    w = table
    return (
        f"CASE WHEN {local} - {w}.lh * {HOUR} < {w}.split THEN {w}.a1 * {local} + {w}.b1 "
        f"ELSE {w}.a2 * {local} + {w}.b2 END"
    )
