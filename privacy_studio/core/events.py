"""The columnar event table every analysis reads: one numpy array per field, sorted by (user, time).

Users and locations are stored as dense integer codes so kernels can index arrays directly; the
dictionaries back to the original ids are kept beside them so every result can be reported with the ids
the data-release officer knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privacy_studio.core.kernels.gil_free import distinct
from privacy_studio.core.kernels.timebins import shift_by_offset_pieces, value_range

#: Optional per-event float columns, in the order they are listed in summaries.
OPTIONAL_FLOAT_COLUMNS = ("x_km", "y_km", "lat", "lon", "amount", "duration")
HOUR = 3600


@dataclass
class LocationTable:
    """Coordinates of every known location code (antenna, shop, venue); NaN where unknown."""

    ids: np.ndarray  # original location ids as str, index = location code
    lat: np.ndarray
    lon: np.ndarray
    x_km: np.ndarray
    y_km: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


@dataclass
class EventTable:
    """Events as parallel numpy arrays, sorted by user code then time.

    ``user`` holds codes into ``user_ids``; ``location`` codes into ``location_ids`` (or -1 when the
    event has coordinates only). ``time`` is UTC seconds from ``time_origin``: int64 epoch seconds (origin
    0), or in the in-memory engine's compact tables int32 seconds from the period's first whole UTC hour
    (half the memory: 1.7 GB less for a 10M-person month; :meth:`utc_seconds` gives epoch seconds either
    way). ``tz`` names the zone in which day and week bins start.
    """

    user: np.ndarray  # int32, codes 0..n_users-1
    time: np.ndarray  # int64 UTC epoch seconds, or int32 seconds from time_origin
    location: np.ndarray  # int32, codes 0..n_locations-1, or -1
    user_ids: np.ndarray  # str, original user ids, index = code
    location_ids: np.ndarray  # str, original location ids, index = code
    tz: str = "UTC"
    time_origin: int = 0  # UTC epoch second ``time`` counts from: a whole hour (0 for epoch seconds)
    x_km: np.ndarray | None = None
    y_km: np.ndarray | None = None
    lat: np.ndarray | None = None
    lon: np.ndarray | None = None
    amount: np.ndarray | None = None
    duration: np.ndarray | None = None  # seconds
    interaction: np.ndarray | None = None  # int8 codes into interaction_names
    interaction_names: tuple[str, ...] = ()
    direction: np.ndarray | None = None  # int8: +1 incoming, -1 outgoing, 0 unknown
    merchant: np.ndarray | None = None  # int32 codes into location_ids-like merchant_ids
    merchant_ids: np.ndarray | None = None
    locations: LocationTable | None = None
    place_tolerance_km: float = 0.0  # coordinate-only events this close are at one place (0: identical)
    # compact tables (the in-memory engine's): no per-event x/y/lat/lon, each event sits at its location's
    coordinates_at_places: bool = False
    _local_time: np.ndarray | None = field(default=None, repr=False, compare=False)
    _offsets: np.ndarray | None = field(default=None, repr=False, compare=False)
    _period: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    _dropped_rows: int | None = field(default=None, repr=False, compare=False)  # see drop_rows

    def __post_init__(self) -> None:
        if self.time_origin % HOUR:
            raise ValueError(f"time_origin must be a whole UTC hour, got {self.time_origin}")
        n = len(self.user)
        for name, value in self.row_columns().items():
            if len(value) != n:
                raise ValueError(f"column {name!r} has {len(value)} rows, expected {n}")

    def row_columns(self) -> dict[str, np.ndarray]:
        """The per-event arrays present in this table (dictionaries and caches excluded), by field name."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, np.ndarray) and not f.name.endswith("_ids") and not f.name.startswith("_"):
                out[f.name] = value
        return out

    # -- sizes -------------------------------------------------------------------------------------
    @property
    def n_events(self) -> int:
        return len(self.user) if self._dropped_rows is None else self._dropped_rows

    @property
    def rows_dropped(self) -> bool:
        return self._dropped_rows is not None

    def drop_rows(self) -> None:
        """Free the per-event columns once a run has made every trace it needs from them (the in-memory
        engine's compact tables, issue #30); counts, period, per-user offsets and dictionaries stay."""
        self.period()
        self.user_offsets()
        n = self.n_events
        for name, value in self.row_columns().items():
            setattr(self, name, value[:0].copy())
        self._local_time, self._dropped_rows = None, n

    @property
    def n_users(self) -> int:
        return len(self.user_ids)

    @property
    def n_locations(self) -> int:
        return len(self.location_ids)

    def __len__(self) -> int:
        return self.n_events

    # -- derived columns ---------------------------------------------------------------------------
    def user_offsets(self) -> np.ndarray:
        """CSR offsets: events of user code ``u`` are rows ``offsets[u]:offsets[u+1]``.

        Computed once per table (every profile generalized from the events needs them); callers only read.
        """
        if self._offsets is None:
            # Rows are sorted by user: a binary search per user beats a pass over every event.
            bounds = np.arange(self.n_users + 1, dtype=self.user.dtype)
            self._offsets = np.searchsorted(self.user, bounds).astype(np.int64)
        return self._offsets

    def utc_seconds(self) -> np.ndarray:
        """UTC epoch seconds of every event as int64 (``time`` itself unless it counts from an origin)."""
        if self.time_origin == 0 and self.time.dtype == np.int64:
            return self.time
        return self.time.astype(np.int64) + self.time_origin

    def local_time(self) -> np.ndarray:
        """Wall-clock seconds in ``tz`` (UTC seconds shifted by the zone's offset at each instant)."""
        if self._local_time is None:
            self._local_time = to_local_seconds(self.utc_seconds(), self.tz)
        return self._local_time

    def has_coordinates(self) -> bool:
        """Whether events have km coordinates: their own columns, or (compact tables) their places'."""
        return (self.x_km is not None and self.y_km is not None) or self.coordinates_at_places

    def period(self) -> tuple[int, int]:
        """First and last event time (UTC epoch seconds); (0, 0) for an empty table. Computed once per
        table."""
        if self.n_events == 0:
            return (0, 0)
        if self._period is None:
            first, last = value_range(self.time)
            self._period = (int(first) + self.time_origin, int(last) + self.time_origin)
        return self._period

    def subset_users(self, keep: np.ndarray) -> EventTable:
        """A table with only the users whose codes are in ``keep`` (user codes are renumbered)."""
        keep = distinct(np.asarray(keep, dtype=np.int64))
        mask = np.isin(self.user, keep)
        remap = np.full(self.n_users, -1, dtype=np.int32)
        remap[keep] = np.arange(len(keep), dtype=np.int32)
        changes = {name: value[mask] for name, value in self.row_columns().items()}
        changes["user"] = remap[self.user[mask]]
        changes["user_ids"] = self.user_ids[keep]
        changes.update(_local_time=None, _offsets=None, _period=None)
        return replace(self, **changes)


def to_local_seconds(utc_seconds: np.ndarray, tz: str) -> np.ndarray:
    """Shift UTC epoch seconds to wall-clock seconds in ``tz``, exact to the second in every IANA zone."""
    if tz in ("UTC", "utc", "Z", ""):
        return utc_seconds
    if len(utc_seconds) == 0:
        return utc_seconds.copy()
    first = int(utc_seconds.min()) // HOUR
    pieces = hourly_offset_pieces(first, int(utc_seconds.max()) // HOUR, tz)
    return shift_by_offset_pieces(utc_seconds, pieces.before, pieces.split, pieces.after, first)


@dataclass(frozen=True)
class OffsetPieces:
    """The UTC offset of a zone in every UTC hour ``h`` of a period, as at most two pieces per hour.

    Seconds ``0 .. split-1`` into hour ``h`` have offset ``before[h]``, the rest ``after[h]``; ``split`` is
    3600 in hours without a clock change. Clocks change at any second (Adelaide at hh:30 UTC, Lord Howe by
    30 minutes), so one offset per hour is not enough.
    """

    before: np.ndarray  # int64 seconds
    split: np.ndarray  # int64 seconds into the hour
    after: np.ndarray  # int64 seconds


def hourly_offset_pieces(first_hour: int, last_hour: int, tz: str) -> OffsetPieces:
    """The offsets of ``tz`` in UTC hours ``first_hour..last_hour`` (epoch hours), split where they change."""
    span = np.arange(first_hour, last_hour + 2, dtype=np.int64)
    at_start = _offsets_at(span * HOUR, tz)
    before, after = at_start[:-1], at_start[1:].copy()
    split = np.full(len(before), HOUR, dtype=np.int64)
    for i in np.flatnonzero(before != after):  # a change in (start, start + 1 h]: find its second
        seconds = _offsets_at(span[i] * HOUR + np.arange(1, HOUR + 1, dtype=np.int64), tz)
        changed = int(np.argmax(seconds != before[i]))
        split[i] = changed + 1
        after[i] = seconds[changed]
    return OffsetPieces(before=before, split=split, after=after)


def _offsets_at(utc_seconds: np.ndarray, tz: str) -> np.ndarray:
    """UTC offset in seconds of ``tz`` at each UTC instant."""
    import pandas as pd

    stamps = pd.DatetimeIndex(utc_seconds * 1_000_000_000, tz="UTC").tz_convert(tz)
    return stamps.tz_localize(None).as_unit("s").asi8 - utc_seconds


def build_event_table(
    user: np.ndarray,
    time: np.ndarray,
    location: np.ndarray | None = None,
    *,
    tz: str = "UTC",
    locations: LocationTable | None = None,
    **optional: np.ndarray | None,
) -> EventTable:
    """Factorize raw ids into codes, sort by (user, time) and return an :class:`EventTable`.

    ``user`` and ``location`` hold original ids (any hashable dtype, converted to str; Arrow strings without
    nulls are coded as they are, with no Python object per event). When
    ``locations`` is given, location codes follow its id order so coordinates line up; events at
    locations it does not list must already have been rejected by the reader.
    """
    time = np.asarray(time, dtype=np.int64)
    user_ids, user_codes = string_codes(user)
    if location is None:
        location_ids = np.asarray([], dtype=str)
        location_codes = np.full(len(user), -1, dtype=np.int32)
    elif locations is not None:
        location_ids = locations.ids
        location_codes = codes_in(np.asarray(location), location_ids)
    else:
        location_ids, location_codes = string_codes(location)
    order = np.lexsort((time, user_codes))
    columns = {k: (None if v is None else np.asarray(v)[order]) for k, v in optional.items()}
    return EventTable(
        user=user_codes.astype(np.int32)[order],
        time=time[order],
        location=np.asarray(location_codes, dtype=np.int32)[order],
        user_ids=user_ids.astype(str),
        location_ids=np.asarray(location_ids).astype(str),
        tz=tz,
        locations=locations,
        **columns,
    )


#: Ids converted to Arrow strings per slice of this many: the conversion holds the interpreter lock, so a
#: window waiting for it gets a turn between slices (about 15 ms each).
TEXT_SLICE = 1 << 17


def _arrow_text(values: np.ndarray) -> pa.ChunkedArray:
    """``values`` as Arrow strings, written as ``values.astype(str)`` writes them, a slice at a time."""
    chunks = []
    for start in range(0, len(values), TEXT_SLICE):
        part = values[start : start + TEXT_SLICE]
        if part.dtype.kind in "iu":  # Arrow writes integers as str() does, without numpy's unicode copy
            chunks.append(pc.cast(pa.array(part), pa.string()))
        else:
            chunks.append(pa.array(part if part.dtype.kind == "U" else part.astype(str), type=pa.string()))
    return pa.chunked_array(chunks, type=pa.string())


def arrow_text(values: object) -> bool:
    """Whether ``values`` are Arrow strings without nulls, which are coded as they are: made into a Python
    string per row and freed again, a written release's millions of ids held the GIL (issue #27)."""
    return (
        isinstance(values, pa.Array | pa.ChunkedArray)
        and (pa.types.is_string(values.type) or pa.types.is_large_string(values.type))
        and values.null_count == 0
    )


def string_codes(values: np.ndarray | pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ids of ``values`` as sorted strings and each value's int32 code into them, as
    ``np.unique(values.astype(str), return_inverse=True)`` gives them; Arrow's kernels do the hashing and
    sorting without holding the interpreter lock (``np.unique`` on strings held it for seconds)."""
    text = values if arrow_text(values) else _arrow_text(np.asarray(values))
    distinct = pc.unique(text)
    distinct = distinct.take(pc.sort_indices(distinct))  # UTF-8 byte order is code-point order, as numpy's
    codes = pc.index_in(text, value_set=distinct).to_numpy().astype(np.int32, copy=False)
    return np.asarray(distinct.to_numpy(zero_copy_only=False), dtype=str), codes


def codes_in(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """int32 position of each value (as a string) in ``ids``; a ``KeyError`` names the first value not in
    them (the reader rejects such events before)."""
    codes = pc.index_in(_arrow_text(values), value_set=pa.array(np.asarray(ids, dtype=str)))
    if codes.null_count:
        missing = np.asarray(values)[np.flatnonzero(pc.is_null(codes).to_numpy(zero_copy_only=False))[0]]
        raise KeyError(str(missing))
    return codes.to_numpy().astype(np.int32, copy=False)
