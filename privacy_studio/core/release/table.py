"""The released rows: pseudonym, spatial unit id (optionally its centre), the time bin's local start, and
optionally an event count (one row per point) or the chosen event columns (one row per event)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import PriceLayout, Traces, price_bins, spatial_units, time_bins
from privacy_studio.core.geo import EARTH_RADIUS_KM, LocalProjection
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.release.suppression import row_users

_EPOCH = datetime(1970, 1, 1)


def bin_starts(origin: int, seconds: int | None, bins: np.ndarray, tz: str) -> tuple[np.ndarray, np.ndarray]:
    """ISO text (local time with its UTC offset) and UTC epoch seconds of the start of each bin in ``bins``.

    ``origin`` is bin 0's local wall-clock start; with ``seconds`` None (one bin for the whole period) every
    bin starts at ``origin``.
    """
    zone = ZoneInfo(tz)
    distinct, inverse = np.unique(bins, return_inverse=True)
    texts, utc = [], []
    for b in distinct.tolist():
        local = origin + (b * seconds if seconds else 0)
        moment = (_EPOCH + timedelta(seconds=int(local))).replace(tzinfo=zone)
        texts.append(moment.isoformat())
        utc.append(int(moment.timestamp()))
    return np.asarray(texts, dtype=object)[inverse], np.asarray(utc, dtype=np.int64)[inverse]


@dataclass
class ReleasePoints:
    """Point id of every event under the release's profile (as ``generalize`` numbers them) and the grid."""

    points: np.ndarray
    unit_ids: np.ndarray
    n_bins: int
    origin: int  # bin 0's local start
    price: PriceLayout | None = None  # the price bins, when the amount is released as a range

    @property
    def n_price(self) -> int:
        return 1 if self.price is None else self.price.n_bins


def event_points(events: EventTable, options: ReleaseOptions, hierarchy: Hierarchy | None) -> ReleasePoints:
    """Point id of every event under the release's profile, the unit ids, the bin count and bin 0's start."""
    profile = options.profile
    units = spatial_units(events, profile.spatial, hierarchy)
    bins, n_bins, origin = time_bins(events, profile.temporal)
    if profile.temporal.seconds is None and events.n_events:
        origin = int(events.local_time().min()) // 86400 * 86400  # the period's first local midnight
    points = units.of_event * n_bins + bins
    if profile.price is None:
        return ReleasePoints(points, units.ids, n_bins, origin)
    priced = price_bins(events.amount, profile.price)
    return ReleasePoints(points * priced.n_bins + priced.bins, units.ids, n_bins, origin, priced.layout)


def unit_centres(events: EventTable, options: ReleaseOptions, hierarchy: Hierarchy | None) -> np.ndarray:
    """(n_units, 2) latitude and longitude of each unit's centre, from the data's own projection."""
    units = spatial_units(events, options.profile.spatial, hierarchy)
    projection = data_projection(events)
    if units.xy is None or projection is None:
        raise ReleaseError("centre coordinates need latitude and longitude for the places or events")
    lat, lon = projection.inverse(units.xy[:, 0], units.xy[:, 1])
    return np.column_stack([np.round(lat, 6), np.round(lon, 6)])


def data_projection(events: EventTable) -> LocalProjection | None:
    """The projection the reader used (recovered from places or events having both lat/lon and km)."""
    for source in (events.locations, events):
        lat, lon = getattr(source, "lat", None), getattr(source, "lon", None)
        x, y = getattr(source, "x_km", None), getattr(source, "y_km", None)
        if lat is None or lon is None or x is None or y is None:
            continue
        ok = np.isfinite(lat) & np.isfinite(lon) & np.isfinite(x) & np.isfinite(y)
        if not ok.any():
            continue
        k = np.pi / 180.0 * EARTH_RADIUS_KM
        lat0 = float(np.median(lat[ok] - y[ok] / k))
        lon0 = float(np.median(lon[ok] - x[ok] / (k * np.cos(np.radians(lat0)))))
        return LocalProjection(lat0, lon0)
    return None


def kept_events(traces: Traces, events: EventTable, points: np.ndarray) -> np.ndarray:
    """Indices of the events whose (person, point) is still in ``traces``."""
    d = int(max(traces.d, int(points.max()) + 1 if len(points) else 1))
    kept = row_users(traces) * d + traces.points  # ascending: users ascending, points ascending within
    wanted = events.user.astype(np.int64) * d + points
    at = np.minimum(np.searchsorted(kept, wanted), max(len(kept) - 1, 0))
    found = kept[at] == wanted if len(kept) else np.zeros(len(wanted), dtype=bool)
    return np.flatnonzero(found)


def extra_column(events: EventTable, name: str, rows: np.ndarray) -> pa.Array:
    """One of the event columns a user may release, for the events at ``rows``."""
    values = getattr(events, name)
    if values is None:
        raise ReleaseError(f"the data has no {name} column to release")
    values = values[rows]
    if name == "interaction":
        return pa.array(np.asarray(events.interaction_names, dtype=object)[values])
    if name == "merchant":
        return pa.array(np.asarray(events.merchant_ids, dtype=object)[values])
    return pa.array(values)


def taken(values: Sequence[str] | np.ndarray, codes: np.ndarray) -> pa.Array:
    """``values[codes]`` as an Arrow string column, taken by Arrow from the few distinct values: it lets other
    threads run, where building a million Python strings held the GIL 0.1–0.3 s on the 100k city."""
    return pc.take(pa.array(np.asarray(values, dtype=object), type=pa.string()), pa.array(codes))


@dataclass
class ReleaseRows:
    """The table as it will be written."""

    table: pa.Table


def release_table(
    events: EventTable,
    hierarchy: Hierarchy | None,
    traces: Traces,
    options: ReleaseOptions,
    pseudonym_of_user: np.ndarray,
) -> ReleaseRows:
    """The rows as they will be written, ordered by pseudonym, time and place (never by input order)."""
    grid = event_points(events, options, hierarchy)
    if options.rows == "points":
        users, released_points = row_users(traces), traces.points
        rows = None
    else:
        rows = kept_events(traces, events, grid.points)
        users, released_points = events.user[rows].astype(np.int64), grid.points[rows]
    place_time, price_bin = np.divmod(np.asarray(released_points, dtype=np.int64), grid.n_price)
    unit, time_bin = place_time // grid.n_bins, place_time % grid.n_bins
    order = np.lexsort((price_bin, unit, time_bin, pseudonym_of_user[users]))
    bins, at_bin = np.unique(time_bin[order], return_inverse=True)
    texts, _ = bin_starts(grid.origin, options.profile.temporal.seconds, bins, events.tz)
    columns: dict[str, pa.Array] = {
        "user": taken(pseudonym_of_user, users[order]),
        "time": taken(texts, at_bin),
        "location": taken(grid.unit_ids, unit[order]),
    }
    if grid.price is not None:
        columns["amount"] = taken([grid.price.bin_text(b) for b in range(grid.n_price)], price_bin[order])
    if options.centres:
        centres = unit_centres(events, options, hierarchy)[unit[order]]
        columns["lat"], columns["lon"] = pa.array(centres[:, 0]), pa.array(centres[:, 1])
    if rows is None:
        if options.counts:
            columns["count"] = pa.array(traces.counts[order])
    else:
        for name in options.columns:
            columns[name] = extra_column(events, name, rows[order])
    return ReleaseRows(pa.table(columns))
