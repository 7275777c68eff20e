"""Turning the validated per-batch pieces into an EventTable: factorize ids, sort by (user, time).

Equivalent to ``events.build_event_table`` (ids sorted as strings, rows sorted by user code then time,
stable), but works on Arrow dictionaries and a numba counting sort so 40M rows take seconds, not minutes.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from privacy_studio.core.events import EventTable, LocationTable
from privacy_studio.core.geo import LocalProjection
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.places import Places
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.io.source import Columns
from privacy_studio.core.kernels.rows import gather, is_sorted, sort_order


def factorize(pieces: list[pa.DictionaryArray]) -> tuple[np.ndarray, np.ndarray]:
    """int32 codes and sorted str ids of the ids actually used (codes follow string order)."""
    if not pieces:
        return np.zeros(0, dtype=np.int32), np.asarray([], dtype=str)
    chunked = pa.chunked_array(pieces).unify_dictionaries()
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunked.chunks]).astype(
        np.int64
    )
    values = np.asarray(chunked.chunks[0].dictionary.to_pylist(), dtype=str)
    used = np.bincount(codes, minlength=len(values)) > 0
    order = np.argsort(values, kind="stable")
    order = order[used[order]]
    rank = np.full(len(values), -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[codes].astype(np.int32), values[order]


class _Sorter:
    """Puts each column in (user, time) order once complete, so one unsorted copy lives at a time."""

    def __init__(self, user: np.ndarray, time: np.ndarray, n_users: int) -> None:
        self.order = None if is_sorted(user, time) else sort_order(user, time, n_users)

    def arrange(self, values: np.ndarray) -> np.ndarray:
        return values if self.order is None else gather(values, self.order)


def assemble(
    columns: Columns, places: Places | None, tz: str, report: ImportReport, place_tolerance_m: float = 0.0
) -> EventTable:
    """The EventTable of all kept rows, coordinates projected with one projection for events and places."""
    ids, numeric = columns.ids, columns.numeric
    user, user_ids = factorize(ids.pop("user", []))
    time = numeric.pop("time").take()
    sorter = _Sorter(user, time, len(user_ids))
    user, time = sorter.arrange(user), sorter.arrange(time)
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
    locations = _project(extra, location, location_ids, places, report)
    return EventTable(
        user=user,
        time=time,
        location=location,
        user_ids=user_ids,
        location_ids=np.asarray(location_ids, dtype=str),
        tz=tz,
        locations=locations,
        place_tolerance_km=place_tolerance_m / 1000.0,
        **extra,
    )


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
