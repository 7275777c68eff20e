"""Two datasets of (possibly) the same people put on one point space, and how their users correspond.

Matching and profiling compare users of an identified dataset with users of an anonymous one bin by bin, so
both must be generalized together: same spatial units, same time-bin origin. The two event tables are merged
(identified users first), generalized once and split back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.events import EventTable, LocationTable
from privacy_studio.core.geo import LocalProjection
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.numbers import count

_PREFIX = ("0|", "1|")  # sorts every identified user before every anonymous one, keeping their own order


@dataclass
class MergedTables:
    """Both datasets in one table: user codes ``0..n_first-1`` are the first dataset's users, in its order."""

    events: EventTable
    hierarchy: Hierarchy | None
    n_first: int


def merge_tables(
    first: EventTable, second: EventTable, h_first: Hierarchy | None = None, h_second: Hierarchy | None = None
) -> MergedTables:
    """One event table holding both datasets; locations with the same id are taken to be the same place."""
    if first.n_events == 0 or second.n_events == 0:
        raise ValueError("both datasets need at least one event for a linkage attack")
    cols: dict[str, np.ndarray | None] = {}
    for name in ("x_km", "y_km", "lat", "lon", "amount"):
        a, b = getattr(first, name), getattr(second, name)
        cols[name] = None if a is None or b is None else np.concatenate([a, b])
    projection = None
    if cols["lat"] is not None and cols["lon"] is not None:
        projection = LocalProjection.centred_on(cols["lat"], cols["lon"])
        cols["x_km"], cols["y_km"] = projection.forward(cols["lat"], cols["lon"])
    has_ids = (first.location >= 0).all() and (second.location >= 0).all()
    locations = _merge_locations(first, second, projection) if has_ids else None
    events = _merged_events(first, second, has_ids, locations, cols)
    hierarchy = _merge_hierarchies(events.location_ids, first, second, h_first, h_second)
    return MergedTables(events, hierarchy, first.n_users)


def _merged_events(
    first: EventTable, second: EventTable, has_ids: bool, locations: LocationTable | None, cols: dict
) -> EventTable:
    """Both tables' events in one, as ``build_event_table`` makes it from every event's prefixed user id
    and location id, but coded from each table's distinct ids: spelling ids per event (millions of strings)
    held the GIL 0.4-0.75 s for two copies of the 100k city, a pause of the window during a search."""
    tables = (first, second)
    if any((np.bincount(t.user, minlength=t.n_users) == 0).any() for t in tables):
        raise ValueError("every user of both datasets needs at least one event for a linkage attack")
    ids = np.concatenate(
        [np.char.add(p, t.user_ids.astype(str)) for p, t in zip(_PREFIX, tables, strict=True)]
    )
    by_id = np.argsort(ids, kind="stable")
    rank = np.empty(len(ids), dtype=np.int64)
    rank[by_id] = np.arange(len(ids))
    user = rank[np.concatenate([first.user, second.user + first.n_users])]
    if not has_ids:
        location_ids, location = np.asarray([], dtype=str), np.full(len(user), -1)
    else:  # sorted either way: the merged table's ids, or the distinct ids the events use
        location_ids = locations.ids if locations is not None else _used_location_ids(tables)
        location = np.concatenate([_codes_among(t, location_ids) for t in tables])
    time = np.concatenate([first.utc_seconds(), second.utc_seconds()])
    order = np.lexsort((time, user))
    return EventTable(
        user=user.astype(np.int32)[order],
        time=time[order],
        location=location.astype(np.int32)[order],
        user_ids=ids[by_id],
        location_ids=np.asarray(location_ids).astype(str),
        tz=first.tz,
        locations=locations,
        **{k: (None if v is None else v[order]) for k, v in cols.items()},
    )


def _used_location_ids(tables: tuple[EventTable, ...]) -> np.ndarray:
    """The sorted distinct location ids the tables' events use (when no table of places lists them)."""
    return np.unique(np.concatenate([t.location_ids[np.unique(t.location)].astype(str) for t in tables]))


def _codes_among(table: EventTable, merged: np.ndarray) -> np.ndarray:
    """Each event's location code among the merged, sorted ids; a ``KeyError`` names a location the merged
    ids do not list (as ``build_event_table`` does)."""
    ids = np.asarray(table.location_ids, dtype=str)
    merged = np.asarray(merged, dtype=str)
    at = np.minimum(np.searchsorted(merged, ids), len(merged) - 1)
    known = merged[at] == ids
    codes = at[table.location]
    missing = ~known[table.location]
    if missing.any():
        raise KeyError(str(ids[table.location[np.flatnonzero(missing)[0]]]))
    return codes


def _merge_locations(
    first: EventTable, second: EventTable, projection: LocalProjection | None
) -> LocationTable | None:
    """The places of both tables, one row per id: where one table leaves a place's coordinates unknown the
    other's are kept; an id both tables put at two different places is refused (:func:`_same_places`)."""
    if first.locations is None or second.locations is None:
        return None
    both = [first.locations, second.locations]
    ids = np.concatenate([t.ids for t in both]).astype(str)
    lat, lon, x, y = (np.concatenate([getattr(t, n) for t in both]) for n in ("lat", "lon", "x_km", "y_km"))
    _same_places(ids, lat, lon, x, y)
    known_first = np.lexsort((np.isnan(lat) & np.isnan(x), ids))  # a row with coordinates before one without
    uniq, where = np.unique(ids[known_first], return_index=True)
    where = known_first[where]
    lat, lon = lat[where], lon[where]
    if projection is not None:
        x, y = projection.forward(lat, lon)
    else:
        x, y = x[where], y[where]
    return LocationTable(uniq, lat, lon, x, y)


#: Coordinates further apart than this are two places (about 0.1 m either way).
_SAME_DEGREES, _SAME_KM = 1e-6, 1e-4


def _same_places(ids: np.ndarray, lat: np.ndarray, lon: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    """Refuse one location id at two places in the two datasets: merged, one of them would be dropped
    without a word and the attack would run on geography neither dataset has."""
    order = np.argsort(ids, kind="stable")
    twice = np.flatnonzero(ids[order][1:] == ids[order][:-1])
    a, b = order[twice], order[twice + 1]
    apart = np.zeros(len(a), dtype=bool)
    for values, tolerance in ((lat, _SAME_DEGREES), (lon, _SAME_DEGREES), (x, _SAME_KM), (y, _SAME_KM)):
        with np.errstate(invalid="ignore"):
            apart |= np.abs(values[a] - values[b]) > tolerance  # False where either is unknown (NaN)
    if apart.any():
        i, j = a[apart][0], b[apart][0]
        raise ValueError(
            f"location {str(ids[i])!r} is at two places in the two datasets ({_place(lat, lon, x, y, i)} "
            f"and {_place(lat, lon, x, y, j)}; {count(int(apart.sum()))} of {count(len(a))} ids both list "
            "are placed apart): a linkage attack needs one place per location id"
        )


def _place(lat: np.ndarray, lon: np.ndarray, x: np.ndarray, y: np.ndarray, i: int) -> str:
    """A place's coordinates as written in an error: latitude and longitude when known, else kilometres."""
    if np.isfinite(lat[i]) and np.isfinite(lon[i]):
        return f"{lat[i]:.6f}, {lon[i]:.6f}"
    return f"x {x[i]:.4f} km, y {y[i]:.4f} km"


def _merge_hierarchies(
    location_ids: np.ndarray,
    first: EventTable,
    second: EventTable,
    h_first: Hierarchy | None,
    h_second: Hierarchy | None,
) -> Hierarchy | None:
    """The levels both hierarchies share, re-indexed on the merged location ids."""
    known = [(t, h) for t, h in ((first, h_first), (second, h_second)) if h is not None]
    if not known:
        return None
    levels = [lv for lv in known[0][1].levels if all(lv in h.levels for _, h in known)]
    columns: dict[str, np.ndarray] = {}
    for level in levels:
        unit_of: dict[str, str] = {}
        for table, h in known:
            units = h.unit_ids[level][h.unit_codes[level]]
            for lid, unit in zip(table.location_ids.tolist(), units.tolist(), strict=True):
                if unit_of.setdefault(lid, unit) != unit:
                    raise ValueError(
                        f"location {lid!r} is in {level} {unit_of[lid]!r} in one hierarchy file and in "
                        f"{unit!r} in the other: a linkage attack needs one {level} per location"
                    )
        missing = [lid for lid in location_ids.tolist() if lid not in unit_of]
        if missing:
            raise ValueError(
                f"location {missing[0]!r} is in no hierarchy file, so level {level!r} cannot be used"
            )
        columns[level] = np.asarray([unit_of[lid] for lid in location_ids.tolist()])
    return Hierarchy.from_mapping(location_ids, known[0][1].location_level, columns)


def truth_pairs(
    first_ids: np.ndarray, second_ids: np.ndarray, links: list[tuple[str, str]] | None = None
) -> np.ndarray:
    """For every user of the first dataset, the code of the same person in the second (-1 if absent).

    Without ``links`` the same person has the same id in both; ``links`` lists (first id, second id) pairs.
    """
    second_code = {s: i for i, s in enumerate(np.asarray(second_ids).astype(str).tolist())}
    first_list = np.asarray(first_ids).astype(str).tolist()
    if links is None:
        return np.asarray([second_code.get(u, -1) for u in first_list], dtype=np.int64)
    first_code = {u: i for i, u in enumerate(first_list)}
    out = np.full(len(first_list), -1, dtype=np.int64)
    for a, b in links:
        if a in first_code and b in second_code:
            out[first_code[a]] = second_code[b]
    return out
