"""Spatial units of events under one level: locations themselves, km squares, or hierarchy levels, with the
units' names and km centres."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize.levels import SpatialLevel
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.gil_free import cumsum64


@dataclass
class SpatialUnits:
    """The spatial unit of every event under one spatial level, and what the units are."""

    per_event: np.ndarray  # per event: its unit, or with ``code_map`` its location code
    n_units: int  # units that exist at this level (for d), not only the visited ones
    ids: np.ndarray  # str name of each unit
    xy: np.ndarray | None  # (n_units, 2) km centre of each unit, NaN when unknown
    code_map: np.ndarray | None = None  # unit of every location code (None: ``per_event`` is the unit)

    @property
    def of_event(self) -> np.ndarray:
        """A new int64 array of every event's unit code."""
        if self.code_map is None:
            return self.per_event.astype(np.int64)
        return self.code_map[self.per_event].astype(np.int64)


def spatial_units(
    events: EventTable, level: SpatialLevel, hierarchy: Hierarchy | None = None
) -> SpatialUnits:
    """Map every event to its unit at ``level``; raise ``ValueError`` if the data cannot support it."""
    if level.kind == "level" and hierarchy is not None and level.name == hierarchy.location_level:
        level = SpatialLevel("raw")
    if level.kind == "raw":
        return _raw_units(events)
    if level.kind == "grid":
        return _grid_units(events, float(level.km or 1.0))
    if hierarchy is None:
        raise ValueError(f"spatial level {level.name!r} needs a hierarchy file (none was loaded)")
    if level.name not in hierarchy.levels:
        known = ", ".join((hierarchy.location_level, *hierarchy.levels))
        raise ValueError(
            f"unknown spatial level {level.name!r}; the hierarchy has: {known}, or raw / grid:<km>"
        )
    if (events.location < 0).any():
        raise ValueError(f"level {level.name!r} needs a location id on every event")
    codes = hierarchy.unit_codes[level.name]
    xy = _unit_centres(events, codes, hierarchy.n_units(level.name))
    n_units = hierarchy.n_units(level.name)
    return SpatialUnits(events.location, n_units, hierarchy.unit_ids[level.name], xy, codes)


def _raw_units(events: EventTable) -> SpatialUnits:
    if events.n_locations and (events.location >= 0).all():
        xy = None
        if events.locations is not None:
            xy = np.column_stack([events.locations.x_km, events.locations.y_km])
        return SpatialUnits(events.location, events.n_locations, events.location_ids, xy)
    if not events.has_coordinates():
        raise ValueError("the data has neither location ids nor coordinates: no spatial level is possible")
    return coordinate_places(events.x_km, events.y_km, events.place_tolerance_km)


def unique_pairs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (x, y) rows in (x, y) order and each input's index among them: what
    ``np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)`` gives, sorted with ``lexsort``,
    which lets other threads run (``np.unique(axis=0)`` held the GIL 5 s on a 100,000-person city's places,
    and the window froze while a worker computed its anonymizability)."""
    if not len(x):
        return np.empty((0, 2), dtype=np.result_type(x, y)), np.empty(0, dtype=np.int64)
    order = np.lexsort((y, x))
    xs, ys = x[order], y[order]
    new = np.empty(len(order), dtype=bool)
    new[0] = True
    new[1:] = (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])
    inverse = np.empty(len(order), dtype=np.int64)
    inverse[order] = cumsum64(new) - 1
    return np.column_stack([xs[new], ys[new]]), inverse


def coordinate_places(x: np.ndarray, y: np.ndarray, tolerance_km: float = 0.0) -> SpatialUnits:
    """Places of events given by coordinates only: identical coordinates, or chains of points each within
    ``tolerance_km`` of the next (single linkage), are one place; numbered in (x, y) order of their first
    point, which also names them and places them on maps."""
    uniq, inverse = unique_pairs(np.asarray(x), np.asarray(y))
    if tolerance_km > 0 and len(uniq) > 1:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components
        from scipy.spatial import cKDTree

        near = cKDTree(uniq).query_pairs(tolerance_km, output_type="ndarray")
        graph = coo_matrix((np.ones(len(near)), (near[:, 0], near[:, 1])), shape=(len(uniq), len(uniq)))
        _, group = connected_components(graph, directed=False)
        # renumber groups by their first (lowest x, y) point, so place order follows the coordinates
        first = np.full(group.max() + 1, len(uniq))
        np.minimum.at(first, group, np.arange(len(uniq)))
        rank = np.argsort(np.argsort(first))
        uniq, inverse = uniq[np.sort(first)], rank[group][inverse]
    ids = np.asarray([coordinate_label(a, b) for a, b in uniq], dtype=str)
    return SpatialUnits(inverse, len(uniq), ids, uniq)


def coordinate_label(x: float, y: float) -> str:
    """The name of a coordinate-only place: its km coordinates to the millimetre."""
    return f"{x:.6f},{y:.6f}"


def _grid_units(events: EventTable, km: float) -> SpatialUnits:
    """Square cells of ``km`` side; the units that exist are the cells holding a location or an event."""
    if not events.has_coordinates():
        raise ValueError(
            "a km grid needs coordinates (x_km/y_km or lat/lon) for the events or their locations"
        )
    if events.x_km is None:
        return _grid_units_at_places(events, km)
    if np.isnan(events.x_km).any() or np.isnan(events.y_km).any():
        raise ValueError("a km grid needs coordinates on every event; some events have none")
    cx = np.floor(events.x_km / km).astype(np.int64)
    cy = np.floor(events.y_km / km).astype(np.int64)
    all_x, all_y = cx, cy
    if events.locations is not None:
        ok = np.isfinite(events.locations.x_km) & np.isfinite(events.locations.y_km)
        all_x = np.concatenate([cx, np.floor(events.locations.x_km[ok] / km).astype(np.int64)])
        all_y = np.concatenate([cy, np.floor(events.locations.y_km[ok] / km).astype(np.int64)])
    cells, inverse = _unique_cells(all_x, all_y)
    inverse = inverse[: len(cx)].astype(np.int64)
    ids = np.asarray([f"cell({x},{y})" for x, y in cells], dtype=str)
    xy = (cells.astype(np.float64) + 0.5) * km
    return SpatialUnits(inverse, len(cells), ids, xy)


def _grid_units_at_places(events: EventTable, km: float) -> SpatialUnits:
    """The cells of a compact table (every event at its location's coordinates): each location's cell,
    numbered as :func:`_grid_units` numbers the cells of the events and the locations."""
    loc = events.locations
    ok = np.isfinite(loc.x_km) & np.isfinite(loc.y_km)
    if not ok.all() and not ok[events.location].all():
        raise ValueError("a km grid needs coordinates on every event; some events have none")
    cells, inverse = _unique_cells(
        np.floor(loc.x_km[ok] / km).astype(np.int64), np.floor(loc.y_km[ok] / km).astype(np.int64)
    )
    code_map = np.zeros(len(loc), dtype=np.int64)
    code_map[ok] = inverse
    ids = np.asarray([f"cell({x},{y})" for x, y in cells], dtype=str)
    return SpatialUnits(events.location, len(cells), ids, (cells.astype(np.float64) + 0.5) * km, code_map)


def _unique_cells(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct (x, y) cells in (x, y) order and each input's index among them.

    One int64 key per cell, ordered as the pairs are: sorting it is tens of times faster than
    ``np.unique(axis=0)``, which sorts rows as opaque bytes while holding the GIL (the window froze).
    """
    if not len(x):
        return np.empty((0, 2), dtype=np.int64), np.empty(0, dtype=np.int64)
    x0, y0 = int(x.min()), int(y.min())
    span_x, span_y = int(x.max()) - x0 + 1, int(y.max()) - y0 + 1
    if span_x * span_y >= 2**62:  # cannot happen for places on Earth; kept exact anyway
        cells, inverse = np.unique(np.column_stack([x, y]), axis=0, return_inverse=True)
        return cells, inverse.ravel()
    keys, inverse = np.unique((x - x0) * span_y + (y - y0), return_inverse=True)
    return np.column_stack([keys // span_y + x0, keys % span_y + y0]), inverse.ravel()


def _unit_centres(events: EventTable, codes: np.ndarray, n_units: int) -> np.ndarray | None:
    """Mean projected coordinates of the locations in each unit (for maps); None without coordinates."""
    if events.locations is None:
        return None
    ok = np.isfinite(events.locations.x_km)
    sums = np.zeros((n_units, 2))
    np.add.at(sums, codes[ok], np.column_stack([events.locations.x_km[ok], events.locations.y_km[ok]]))
    counts = np.bincount(codes[ok], minlength=n_units).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts[:, None]
