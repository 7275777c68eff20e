"""Turning the validated per-batch pieces into an EventTable: factorize ids, sort by (user, time).

Equivalent to ``events.build_event_table`` (ids sorted as strings, rows sorted by user code then time,
stable), but works on Arrow dictionaries and a numba counting sort so 40M rows take seconds, not minutes.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privacy_studio.core.events import HOUR, EventTable, LocationTable
from privacy_studio.core.geo import LocalProjection
from privacy_studio.core.heap import return_freed_memory
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.places import Places
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.io.source import Columns
from privacy_studio.core.kernels.rows import (
    is_sorted,
    packed_keys,
    permute_in_place,
    sort_order,
    sorted_codes_in_place,
)
from privacy_studio.core.kernels.timebins import value_range


def factorize(pieces: list[pa.DictionaryArray]) -> tuple[np.ndarray, np.ndarray]:
    """int32 codes and sorted str ids of the ids actually used (codes follow string order).

    Consumes ``pieces`` (the list is emptied): each piece's codes are written into one int32 array and the
    piece is freed, so no event-length temporaries beyond the codes themselves.
    """
    if not pieces:
        return np.zeros(0, dtype=np.int32), np.asarray([], dtype=str)
    starts = np.cumsum([0] + [len(p.dictionary) for p in pieces])
    used = np.zeros(starts[-1], dtype=bool)
    for piece, start in zip(pieces, starts, strict=False):
        used[start + piece.indices.to_numpy(zero_copy_only=False)] = True
    entries = pa.concat_arrays([p.dictionary for p in pieces]).filter(pa.array(used))
    values, inverse = sorted_unique(entries)
    del entries
    rank = np.full(starts[-1], -1, dtype=np.int32)
    rank[used] = inverse.ravel()
    del inverse, used
    codes = np.empty(sum(len(p) for p in pieces), dtype=np.int32)
    row = 0
    pieces.reverse()  # popped from the end: each piece is freed as soon as its codes are written
    for start in starts[:-1]:
        piece = pieces.pop()
        n = len(piece)
        np.take(rank[start:], piece.indices.to_numpy(zero_copy_only=False), out=codes[row : row + n])
        row += n
    return codes, values


def sorted_unique(entries: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(entries as a numpy str array, return_inverse=True)``, fast for Arrow strings: a hash pass
    finds the distinct strings, which are sorted by their UTF-8 bytes packed into integers (byte order is
    code-point order, numpy's) and, when all ASCII, turned into numpy strings without Python objects (a
    10M-person month's 25M dictionary entries: 27 s by ``np.unique``). Strings holding NUL (which numpy
    strips at the end, merging them with others) or nulls go the ``np.unique`` way."""
    if len(entries) == 0:
        return np.asarray([], dtype=str), np.zeros(0, dtype=np.int64)
    if pa.types.is_large_string(entries.type):
        entries = entries.cast(pa.string())
    encoded = pc.dictionary_encode(entries)
    distinct = encoded.dictionary
    if (
        not pa.types.is_string(entries.type)
        or entries.null_count  # encoding moves nulls into the indices, never into its dictionary
        or pc.any(pc.match_substring(distinct, "\x00")).as_py()
    ):
        values, inverse = np.unique(
            np.asarray(entries.to_numpy(zero_copy_only=False), dtype=str), return_inverse=True
        )
        return values, inverse.ravel()
    offsets, data = _string_buffers(distinct)
    width = int(np.diff(offsets).max(initial=0))
    keys = packed_keys(offsets, data, max(1, (width + 7) // 8))
    order = np.lexsort(keys[::-1])  # lexsort's last key is the primary one
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    if data.max(initial=0) < 128:  # ASCII: the padded bytes are the code points of a numpy str array
        chars = np.ascontiguousarray(keys[:, order].T).astype(">u8").view(np.uint8)
        chars = chars.reshape(len(order), -1)[:, : max(width, 1)]
        values = chars.astype(np.uint32).view(f"<U{max(width, 1)}").ravel()
    else:
        values = np.asarray(distinct.take(pa.array(order)).to_numpy(zero_copy_only=False), dtype=str)
    del keys
    return values, rank[encoded.indices.to_numpy(zero_copy_only=False)]


def _string_buffers(strings: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The int32 offsets (rebased to 0) and uint8 bytes of an Arrow string array."""
    _, offsets_buf, data_buf = strings.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int32)[strings.offset : strings.offset + len(strings) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, dtype=np.uint8)
    return (offsets - offsets[0]).astype(np.int64), data[offsets[0] : offsets[-1]]


class _Sorter:
    """Puts each column (the reader's own buffers) in (user, time) order in place: no second copy."""

    def __init__(self, user: np.ndarray, time: np.ndarray, n_users: int) -> None:
        self.order = None if is_sorted(user, time) else sort_order(user, time, n_users)
        self.n_users = n_users

    def arrange_users(self, user: np.ndarray) -> np.ndarray:
        """The user column sorted: rows go by user first, so counting the codes is enough (no gather)."""
        if self.order is not None:
            sorted_codes_in_place(user, self.n_users)
        return user

    def arrange(self, values: np.ndarray) -> np.ndarray:
        if self.order is not None:
            permute_in_place(values, self.order)
        return values


def assemble(
    columns: Columns,
    places: Places | None,
    tz: str,
    report: ImportReport,
    place_tolerance_m: float = 0.0,
    compact: bool = False,
) -> EventTable:
    """The EventTable of all kept rows, coordinates projected with one projection for events and places.

    ``compact``: events whose coordinates are their places' (every event at a location of a side file with
    coordinates, no coordinate columns of its own) get no per-event coordinate columns at all."""
    ids, numeric = columns.ids, columns.numeric
    user, user_ids = factorize(ids.pop("user", []))
    return_freed_memory()  # the freed id pieces (4 B an event), before the sort's order and temporary
    times = numeric.pop("time")
    time = times.take()
    sorter = _Sorter(user, time, len(user_ids))
    user, time = sorter.arrange_users(user), sorter.arrange(time)
    time, time_origin = from_period_start(time, getattr(times, "origin", None) or 0)
    if "location" in numeric and places is not None:
        location, location_ids = sorter.arrange(numeric.pop("location").take()), places.ids
    elif "location" in ids:
        codes, location_ids = factorize(ids.pop("location"))
        location = sorter.arrange(codes)
    else:  # coordinates only; side files still list the places (codes stay aligned with their table)
        location = np.full(len(time), -1, dtype=np.int32)
        location_ids = places.ids if places is not None else np.asarray([], dtype=str)
    extra: dict[str, object] = {role: sorter.arrange(buf.take()) for role, buf in numeric.items()}
    numeric.clear()
    if "merchant" in ids:
        codes, merchant_ids = factorize(ids.pop("merchant"))
        extra["merchant"], extra["merchant_ids"] = sorter.arrange(codes), merchant_ids
    if "interaction" in ids:
        codes, names = factorize(ids.pop("interaction"))
        if len(names) > 127:
            raise ReaderError(
                f"the interaction column has {len(names)} distinct values; at most 127 are supported"
            )
        extra["interaction"] = sorter.arrange(codes.astype(np.int8))
        extra["interaction_names"] = tuple(names.tolist())
    at_places = compact and _coordinates_at_places(extra, location, places)
    if at_places:
        locations = _places_only(location, places, report)
    else:
        locations = _project(extra, location, location_ids, places, report)
    return EventTable(
        user=user,
        time=time,
        location=location,
        user_ids=user_ids,
        location_ids=np.asarray(location_ids, dtype=str),
        tz=tz,
        time_origin=time_origin,
        locations=locations,
        place_tolerance_km=place_tolerance_m / 1000.0,
        coordinates_at_places=at_places,
        **extra,
    )


def from_period_start(time: np.ndarray, origin: int) -> tuple[np.ndarray, int]:
    """int32 times counted from ``origin`` (a whole UTC hour) recounted in place from the whole hour at or
    before the earliest, so they are seconds from the period's start; other times as they are."""
    if time.dtype != np.int32 or len(time) == 0:
        return time, origin
    lo, hi = (int(v) for v in value_range(time))
    shift = lo // HOUR * HOUR
    if shift == 0 or hi - shift >= 2**31:  # nothing to do, or the span does not fit
        return time, origin
    # int32 arithmetic wraps: with every result in range, subtracting the wrapped shift is exact even when
    # the shift itself (near -2^31) is not an int32
    np.subtract(time, np.asarray(shift, dtype=np.int64).astype(np.int32), out=time)
    return time, origin + shift


def _coordinates_at_places(extra: dict, location: np.ndarray, places: Places | None) -> bool:
    """Whether every event's coordinates would be its place's: no coordinate columns of its own, every
    event at a location, and a side file giving the places' coordinates."""
    own = any(k in extra for k in ("lat", "lon", "x_km", "y_km"))
    return not own and side_file_coordinates(places) and bool(len(location)) and bool((location >= 0).all())


def _places_only(location: np.ndarray, places: Places, report: ImportReport) -> LocationTable:
    """The location table of a compact table, with the notes :func:`_project` writes for the same input."""
    missing_at = np.isnan(places.lat)
    if missing_at.any():
        missing = int(np.bincount(location, minlength=len(missing_at))[missing_at].sum())
        if missing:
            report.note(
                f"{missing:,} events are at locations without coordinates (km grids will refuse them)"
            )
    proj = LocalProjection.centred_on(places.lat, places.lon)
    report.note(projection_note(proj))
    return LocationTable(places.ids, places.lat, places.lon, *proj.forward(places.lat, places.lon))


def _project(
    extra: dict, location: np.ndarray, location_ids: np.ndarray, places: Places | None, report: ImportReport
) -> LocationTable | None:
    """Fill the events' lat/lon/x_km/y_km in ``extra``; return the location table. The file's own x_km/y_km
    win for the events (and for places built from them); otherwise one projection serves events and places."""
    lat, lon = extra.get("lat"), extra.get("lon")
    own_km = "x_km" in extra and "y_km" in extra
    loc_lat, loc_lon = _location_coordinates(location, location_ids, places, lat, lon)
    if lat is None and loc_lat is not None and len(location) and (location >= 0).all():
        lat, lon = loc_lat[location], loc_lon[location]
        missing = int(np.isnan(lat).sum())
        if missing:
            report.note(
                f"{missing:,} events are at locations without coordinates (km grids will refuse them)"
            )
    if own_km:
        report.note(own_km_note(side_file_coordinates(places)))
    if lat is None and loc_lat is None:
        return None
    if lat is not None:
        extra["lat"], extra["lon"] = lat, lon
    if own_km and not side_file_coordinates(places):
        if loc_lat is None:
            return None
        loc_x, loc_y = location_means(location, len(location_ids), extra["x_km"], extra["y_km"])
        return LocationTable(location_ids, loc_lat, loc_lon, loc_x, loc_y)
    # Centre on the places when they have coordinates (they span the area), else on the events.
    centre = (loc_lat, loc_lon) if loc_lat is not None and np.isfinite(loc_lat).any() else (lat, lon)
    proj = LocalProjection.centred_on(*centre)
    report.note(projection_note(proj))
    if lat is not None and not own_km:
        extra["x_km"], extra["y_km"] = proj.forward(lat, lon)
    if loc_lat is None:
        return None
    return LocationTable(location_ids, loc_lat, loc_lon, *proj.forward(loc_lat, loc_lon))


def side_file_coordinates(places: Places | None) -> bool:
    """Whether an antennas/locations file gives the places' coordinates."""
    return places is not None and bool(np.isfinite(places.lat).any())


def own_km_note(side_file: bool) -> str:
    """The import note saying whose km coordinates the events and places use (reader and engines alike)."""
    note = "the file's own x_km/y_km are the events' coordinates (lat/lon are kept for maps only)"
    if side_file:
        return note + "; the places take the side file's lat/lon, projected to km by the studio"
    return note + "; each place sits at the mean x_km/y_km of its events"


def location_means(
    location: np.ndarray, n: int, x: np.ndarray, y: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per location code the mean of its events' values (NaN for a code without events)."""
    counts = np.bincount(location, minlength=n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(location, x, n) / counts, np.bincount(location, y, n) / counts


def projection_note(proj: LocalProjection) -> str:
    """The import note naming the projection's centre (the reader and the engines write the same)."""
    return f"coordinates projected to km around ({proj.lat0:.5f}, {proj.lon0:.5f}) (local equirectangular)"


def _location_coordinates(
    location: np.ndarray,
    location_ids: np.ndarray,
    places: Places | None,
    lat: np.ndarray | None,
    lon: np.ndarray | None,
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Per location code: the side file's coordinates, else the mean of its events' coordinates."""
    if side_file_coordinates(places):
        return places.lat, places.lon
    if lat is None or lon is None or len(location_ids) == 0 or (location < 0).any():
        return None, None
    return location_means(location, len(location_ids), lat, lon)
