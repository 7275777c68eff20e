"""Generalization profiles (spatial level x temporal level) and the CSR traces they produce (metrics.md §1).

A profile maps every event to a point ``(spatial unit, time bin[, price bin])``; a user's trace is the set
of distinct points with the number of events at each. Point ids are dense integers
``(unit * n_bins + bin) * n_price_bins + price_bin`` so kernels can index arrays by point.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from functools import lru_cache

import numpy as np

from privacy_studio.core.events import EventTable, OffsetPieces, hourly_offset_pieces
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.derive import coarse_lengths, fill_coarse
from privacy_studio.core.kernels.event_traces import compact_rows, event_traces
from privacy_studio.core.kernels.timebins import floor_bins, local_range

#: 1970-01-05 00:00 was a Monday: bins are aligned to local midnight and to Monday by counting from it.
MONDAY_EPOCH = 4 * 86400

_UNIT_SECONDS = {"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_WIDTH_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|m|h|d|w)\s*$", re.IGNORECASE)


#: Grid squares from 1 m to the Earth's circumference (finer overflows cell numbers, coarser is one cell).
MIN_GRID_KM, MAX_GRID_KM = 0.001, 40_075.0
#: Time bins up to 1000 years: wider ones cover every supported time in one bin (and 64-bit seconds).
MAX_WIDTH_SECONDS = 1000 * 366 * 86400


@dataclass(frozen=True)
class SpatialLevel:
    """``raw`` (the location itself), ``grid`` (squares of ``km`` side) or a named hierarchy level."""

    kind: str  # "raw" | "grid" | "level"
    km: float | None = None
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> SpatialLevel:
        """Read ``raw``, ``grid:2.5`` (km) or a hierarchy level name such as ``district``."""
        t = text.strip()
        if not t:
            raise ValueError("empty spatial level")
        if t.lower() == "raw":
            return cls("raw")
        if t.lower().startswith("grid:"):
            try:
                km = float(t.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"grid size in {text!r} is not a number of km (e.g. grid:2)") from None
            if not MIN_GRID_KM <= km <= MAX_GRID_KM:
                raise ValueError(
                    f"grid size in {text!r} must be a positive, finite number of km "
                    f"from {MIN_GRID_KM:g} (1 m) to {MAX_GRID_KM:g}"
                )
            return cls("grid", km=km)
        return cls("level", name=t)

    @property
    def label(self) -> str:
        if self.kind == "raw":
            return "raw"
        if self.kind == "grid":
            return f"grid:{self.km:g}"
        return str(self.name)


@dataclass(frozen=True)
class TemporalLevel:
    """Time bins of a fixed width in seconds, or ``None`` for one bin covering the whole period."""

    seconds: int | None

    @classmethod
    def parse(cls, text: str) -> TemporalLevel:
        """Read ``all``, ``30min``, ``1h``, ``6h``, ``1d``, ``1w`` … (``m`` means minutes)."""
        t = text.strip().lower()
        if t in ("all", "none", "*"):
            return cls(None)
        m = _WIDTH_RE.match(t)
        if not m:
            raise ValueError(f"time width {text!r} not understood (use e.g. 15min, 1h, 6h, 1d, 1w or all)")
        seconds = float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()]
        if not 1 <= seconds <= MAX_WIDTH_SECONDS:
            raise ValueError(f"time width {text!r} must be positive: from 1 second to 1000 years (or all)")
        seconds = round(seconds)
        return cls(int(seconds))

    @property
    def label(self) -> str:
        if self.seconds is None:
            return "all"
        for unit, size in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("min", 60)):
            if self.seconds % size == 0:
                return f"{self.seconds // size}{unit}"
        return f"{self.seconds}s"


#: Price bins per factor of ten: 1 (one bin per decade) up to 100 (amounts to about 2 %).
MAX_PER_DECADE = 100


@dataclass(frozen=True)
class PriceLevel:
    """Log-spaced price bins: ``per_decade`` bins for every factor of ten of the amount (docs/measures.md)."""

    per_decade: int = 4

    @classmethod
    def parse(cls, text: object) -> PriceLevel | None:
        """Read ``none`` (the amount is not released: None) or a number of bins per factor of ten (1-100)."""
        t = str(text).strip().lower()
        if t in ("none", "no", "off", "0", ""):
            return None
        try:
            per_decade = int(t)
        except ValueError:
            raise ValueError(
                f"price level {text!r} not understood: give none or a number of bins per factor of ten "
                "(e.g. none,3,1)"
            ) from None
        if not 1 <= per_decade <= MAX_PER_DECADE:
            raise ValueError(
                f"price level {text!r}: bins per factor of ten must be from 1 to {MAX_PER_DECADE}"
            )
        return cls(per_decade)

    @property
    def label(self) -> str:
        return f"price/{self.per_decade}"


def price_label(level: PriceLevel | None) -> str:
    """The price axis value as settings and results write it: ``none`` or the bins per factor of ten."""
    return "none" if level is None else str(level.per_decade)


@dataclass(frozen=True)
class Profile:
    """One cell of the generalization grid."""

    spatial: SpatialLevel
    temporal: TemporalLevel
    price: PriceLevel | None = None

    @classmethod
    def parse(cls, spatial: str, temporal: str, price_per_decade: int | str | None = None) -> Profile:
        """A profile from its levels; the price is ``None``/``none`` or the bins per factor of ten."""
        level = None if price_per_decade is None else PriceLevel.parse(price_per_decade)
        return cls(SpatialLevel.parse(spatial), TemporalLevel.parse(temporal), level)

    @property
    def label(self) -> str:
        parts = [self.spatial.label, self.temporal.label]
        if self.price is not None:
            parts.append(self.price.label)
        return " × ".join(parts)


def finest_first(spatial: list[str], temporal: list[str]) -> tuple[list[str], list[str]]:
    """The grid's levels ordered from fine to coarse where the order is known: time widths by length (the
    whole period last), grid squares by size in the places they hold; raw and hierarchy levels keep the
    user's order, since a square and a district do not compare. Unreadable labels keep their place."""

    def seconds(label: str) -> float:
        try:
            width = TemporalLevel.parse(label).seconds
        except ValueError:
            return math.nan
        return math.inf if width is None else float(width)

    def km(label: str) -> float:
        try:
            level = SpatialLevel.parse(label)
        except ValueError:
            return math.nan
        return level.km if level.kind == "grid" and level.km is not None else math.nan

    return _sorted_in_place(spatial, km), _sorted_in_place(temporal, seconds)


def _sorted_in_place(labels: list[str], key: Callable[[str], float]) -> list[str]:
    """``labels`` with those of a finite or infinite key sorted by it among the slots they occupy."""
    keys = [key(label) for label in labels]
    slots = [i for i, k in enumerate(keys) if not math.isnan(k)]
    ordered = sorted(slots, key=lambda i: keys[i])
    out = list(labels)
    for slot, source in zip(slots, ordered, strict=True):
        out[slot] = labels[source]
    return out


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


@dataclass
class Traces:
    """Every user's set of distinct points under a profile, as CSR arrays (users by code)."""

    profile: Profile
    indptr: np.ndarray  # int64, n_users + 1
    points: np.ndarray  # int32 (int64 when d > 2^31), ascending within each user
    counts: np.ndarray  # int32 (int64 beyond 2^31 events), events of the user at the point
    n_units: int
    n_bins: int
    n_price_bins: int = 1
    unit_ids: np.ndarray = field(default_factory=lambda: np.asarray([], dtype=str))
    unit_xy: np.ndarray | None = None
    bin_origin: int = 0  # local seconds at which bin 0 starts

    @property
    def n_users(self) -> int:
        return len(self.indptr) - 1

    @property
    def d(self) -> int:
        """Dimensionality of the generalized data: spatial units x time bins (x price bins)."""
        return self.n_units * self.n_bins * self.n_price_bins

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def lengths(self) -> np.ndarray:
        """Number of distinct points of each user."""
        return np.diff(self.indptr)

    def fill_rate(self) -> float:
        """Mean share of the d points a user visits (the q of sparsity theory)."""
        return self.nnz / (self.n_users * self.d) if self.n_users and self.d else 0.0

    def point_unit(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points) // (self.n_bins * self.n_price_bins)

    def point_bin(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points) // self.n_price_bins) % self.n_bins

    def trace(self, user: int) -> np.ndarray:
        return self.points[self.indptr[user] : self.indptr[user + 1]]

    def nbytes(self) -> int:
        return self.indptr.nbytes + self.points.nbytes + self.counts.nbytes


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
    inverse[order] = np.cumsum(new) - 1
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
        """The clock of a table with at least one event."""
        utc = events.time
        first_utc, last_utc = events.period()
        first, last = int(first_utc) // 3600, int(last_utc) // 3600
        if events.tz in ("UTC", "utc", "Z", ""):
            zero = np.zeros(last - first + 1, dtype=np.int64)
            pieces = OffsetPieces(zero, np.full(len(zero), 3600, dtype=np.int64), zero)
        else:
            pieces = hourly_offset_pieces(first, last, events.tz)
        lo, hi = local_range(utc, first_utc, last_utc, pieces.before, pieces.split, pieces.after, first)
        return cls(pieces.before, pieces.split, pieces.after, first, int(lo), int(hi))

    def pieces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        return (self.before, self.split, self.after, self.first_hour)


@lru_cache(maxsize=4096)
def price_edge(k: int, per_decade: int) -> float:
    """The lower edge 10^(k / per_decade) of magnitude class ``k``, correctly rounded to a double (computed in
    decimal, so every engine compares amounts with the very same numbers)."""
    with localcontext() as ctx:
        ctx.prec = 50
        return float(Decimal(10) ** (Decimal(k) / Decimal(per_decade)))


def price_edges(lo: int, hi: int, per_decade: int) -> np.ndarray:
    """Edges of the magnitude classes ``lo..hi`` (inclusive) as an array."""
    return np.asarray([price_edge(k, per_decade) for k in range(lo, hi + 1)], dtype=np.float64)


def magnitude_classes(magnitude: np.ndarray, per_decade: int) -> np.ndarray:
    """The class k of every positive ``magnitude``: ``price_edge(k) <= magnitude < price_edge(k + 1)``.

    floor(per_decade · log10 m) is only a guess (log10 may be one unit in the last place off next to an
    edge, differently in numpy, DuckDB and Spark); comparing with the exact edges settles it.
    """
    if not len(magnitude):
        return np.zeros(0, dtype=np.int64)
    guess = np.floor(per_decade * np.log10(magnitude)).astype(np.int64)
    lo = int(guess.min()) - 1
    edges = price_edges(lo, int(guess.max()) + 2, per_decade)
    below = magnitude < edges[guess - lo]
    above = magnitude >= edges[guess - lo + 1]
    return guess - below + above


@dataclass(frozen=True)
class PriceBins:
    """The price bin of every event and what each bin covers.

    Bins run along the number line: refunds (negative amounts) from the largest down, then zero (its own
    bin) if any amount is 0, then positive amounts from the smallest class up. A refund's class is its
    magnitude's; the classes between the smallest and largest seen of each sign are all counted (as time
    bins between the first and the last event), classes of no event included.
    """

    bins: np.ndarray  # int64 bin of every event, 0..n_bins-1
    layout: PriceLayout

    @property
    def n_bins(self) -> int:
        return self.layout.n_bins


@dataclass(frozen=True)
class PriceLayout:
    """Which bins a price axis has: refund classes ``neg_lo..neg_hi``, zero, positive ``pos_lo..pos_hi``."""

    per_decade: int
    neg: tuple[int, int] | None  # (smallest, largest) magnitude class of the refunds; None without any
    zero: bool
    pos: tuple[int, int] | None

    @property
    def n_negative(self) -> int:
        return 0 if self.neg is None else self.neg[1] - self.neg[0] + 1

    @property
    def n_bins(self) -> int:
        n_pos = 0 if self.pos is None else self.pos[1] - self.pos[0] + 1
        return max(1, self.n_negative + int(self.zero) + n_pos)

    def bin_text(self, b: int) -> str:
        """Bin ``b`` as released: ``16–49`` (4 significant digits), ``0``, refunds ``-49–-16``."""
        lo, hi = self.bin_range(b)
        if lo == hi == 0:
            return "0"
        return f"{plain_number(lo)}–{plain_number(hi)}"

    def bin_range(self, b: int) -> tuple[float, float]:
        """The amounts of bin ``b`` as [low, high) (refunds: (low, high] with low = -upper edge)."""
        if b < self.n_negative:
            k = self.neg[1] - b  # type: ignore[index]
            return -price_edge(k + 1, self.per_decade), -price_edge(k, self.per_decade)
        b -= self.n_negative
        if self.zero:
            if b == 0:
                return 0.0, 0.0
            b -= 1
        k = self.pos[0] + b  # type: ignore[index]
        return price_edge(k, self.per_decade), price_edge(k + 1, self.per_decade)


def plain_number(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits without an exponent or thousands separator (``21.54``)."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(x)))))
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text


def price_layout(amount: np.ndarray, per_decade: int) -> tuple[PriceLayout, np.ndarray]:
    """The layout of the amounts' bins and every amount's magnitude class (0 for amounts of 0)."""
    magnitude = np.abs(amount)
    k = np.zeros(len(amount), dtype=np.int64)
    nonzero = magnitude > 0
    k[nonzero] = magnitude_classes(magnitude[nonzero], per_decade)

    def span(mask: np.ndarray) -> tuple[int, int] | None:
        return (int(k[mask].min()), int(k[mask].max())) if mask.any() else None

    layout = PriceLayout(per_decade, span(amount < 0), bool((amount == 0).any()), span(amount > 0))
    return layout, k


def price_bins(amount: np.ndarray | None, level: PriceLevel) -> PriceBins:
    """Log-spaced price bin of every event (see :class:`PriceBins`); ``ValueError`` without an amount on
    every event."""
    if amount is None:
        raise ValueError("price bins need an amount column (card transactions: a price or amount column)")
    amount = np.asarray(amount, dtype=np.float64)
    if not np.isfinite(amount).all():
        raise ValueError("price bins need an amount on every event; some events have none")
    layout, k = price_layout(amount, level.per_decade)
    bins = np.empty(len(amount), dtype=np.int64)
    neg, pos = amount < 0, amount > 0
    if layout.neg is not None:
        bins[neg] = layout.neg[1] - k[neg]
    bins[amount == 0] = layout.n_negative
    if layout.pos is not None:
        bins[pos] = layout.n_negative + int(layout.zero) + k[pos] - layout.pos[0]
    return PriceBins(bins, layout)


@dataclass
class EventPoints:
    """The point of every event under a profile (in the table's (user, time) order) and the grid's shape."""

    key: np.ndarray  # int64 point id of every event
    units: SpatialUnits
    n_bins: int
    bin_origin: int
    n_price_bins: int


def event_points(events: EventTable, profile: Profile, hierarchy: Hierarchy | None = None) -> EventPoints:
    """Map every event to its point id ``(unit · n_bins + bin) · n_price + price bin`` under ``profile``."""
    units = spatial_units(events, profile.spatial, hierarchy)
    bins, n_bins, origin = time_bins(events, profile.temporal)
    n_price = 1
    # Build the point ids in place: at 40M events every int64 temporary costs 320 MB.
    key = units.of_event  # a new array: ours to overwrite
    key *= n_bins
    key += bins
    del bins
    if profile.price is not None:
        priced = price_bins(events.amount, profile.price)
        n_price = priced.n_bins
        key *= n_price
        key += priced.bins
    return EventPoints(key, units, n_bins, origin, n_price)


#: Events generalized at a time: the event-length buffers of :func:`generalize` hold at most this many rows
#: (or one user's events, if longer), so their memory does not grow with the data.
BLOCK_EVENTS = 1 << 24


def user_blocks(offsets: np.ndarray, size: int) -> list[tuple[int, int]]:
    """Consecutive user ranges ``[a, b)`` of about ``size`` events each (at least one user each)."""
    n_users = len(offsets) - 1
    out, a = [], 0
    while a < n_users:
        b = int(np.searchsorted(offsets, offsets[a] + size, side="right")) - 1
        b = min(max(b, a + 1), n_users)
        out.append((a, b))
        a = b
    return out


def smallest_int(largest: int) -> type[np.signedinteger]:
    """int32 when every value up to ``largest`` fits in it (half the memory), else int64."""
    return np.int32 if largest < 2**31 else np.int64


def generalize(events: EventTable, profile: Profile, hierarchy: Hierarchy | None = None) -> Traces:
    """Map events to points under ``profile`` and build every user's trace (distinct points, counts).

    Points and counts are int32 when the profile's d and the number of events allow it, else int64.
    """
    if events.rows_dropped:
        raise RuntimeError(
            "the events' rows were freed after the run's traces were made: nothing to generalize"
        )
    units = spatial_units(events, profile.spatial, hierarchy)
    none = np.zeros(0, dtype=np.int64)
    grid, utc, clock = BinGrid(None, 1, 0), none, (none, none, none, 0)
    if profile.temporal.seconds is not None and events.n_events:
        local = LocalClock.of(events)
        grid = bin_grid(profile.temporal, local.first_second, local.last_second)
        utc, clock = events.time, local.pieces()
    pbins, n_price = none, 1
    if profile.price is not None:
        priced = price_bins(events.amount, profile.price)
        pbins, n_price = priced.bins, priced.n_bins
    code_map = none if units.code_map is None else np.array(units.code_map, dtype=np.int64)
    d = units.n_units * grid.n_bins * n_price
    dtypes = smallest_int(d - 1), smallest_int(events.n_events)
    per_row = (units.per_event, utc, pbins)  # per-event inputs (empty: not used)
    fixed = (code_map, units.n_units, clock, grid.origin, grid.width or 1, grid.n_bins, n_price)
    indptr, points, counts = traces_by_block(events.user_offsets(), per_row, fixed, dtypes)
    return Traces(
        profile, indptr, points, counts, units.n_units, grid.n_bins, n_price, units.ids, units.xy, grid.origin
    )


def traces_by_block(
    offsets: np.ndarray, per_row: tuple, fixed: tuple, dtypes: tuple[type, type]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR traces (indptr, points, counts) made by ``event_traces`` over blocks of users of at most
    :data:`BLOCK_EVENTS` events: each block's distinct points go into two arrays grown in place, so the
    event-length temporaries are one block long (the result equals one pass over all users)."""
    unit_of, utc, pbins = per_row
    code_map, n_units, clock, origin, width, n_bins, n_price = fixed
    points, counts = np.empty(0, dtype=dtypes[0]), np.empty(0, dtype=dtypes[1])
    indptr = np.zeros(len(offsets), dtype=np.int64)
    blocks = user_blocks(offsets, BLOCK_EVENTS)
    longest = max((int(offsets[b] - offsets[a]) for a, b in blocks), default=0)
    keys, n_at = np.empty(longest, dtype=dtypes[0]), np.empty(longest, dtype=dtypes[1])
    for a, b in blocks:
        lo, hi = int(offsets[a]), int(offsets[b])
        block = offsets[a : b + 1] - lo
        rows = [values[lo:hi] if len(values) else values for values in (unit_of, utc, pbins)]
        lengths = event_traces(
            block, rows[0], code_map, n_units, rows[1], clock, origin, width, rows[2], n_bins, n_price,
            keys, n_at,
        )  # fmt: skip
        local = np.zeros(b - a + 1, dtype=np.int64)
        np.cumsum(lengths, out=local[1:])
        compact_rows(block, local, keys, n_at)
        start, n = len(points), int(local[-1])
        points.resize(start + n, refcheck=False)  # ours alone: grown in place (realloc), no second copy
        counts.resize(start + n, refcheck=False)
        points[start:], counts[start:] = keys[:n], n_at[:n]
        indptr[a + 1 : b + 1] = start + local[1:]
    return indptr, points, counts


def coarsen(
    traces: Traces,
    profile: Profile,
    unit_map: np.ndarray,
    n_units: int,
    unit_ids: np.ndarray,
    unit_xy: np.ndarray | None = None,
) -> Traces:
    """Derive a coarser profile's traces from finer ones without going back to the events.

    ``unit_map`` sends every fine unit to its coarse unit (e.g. antenna -> district). The coarse time width
    must be a multiple of the fine one (or ``all``). Counts are summed, so the result equals
    :func:`generalize` on the events.
    """
    fine_s, coarse_s = traces.profile.temporal.seconds, profile.temporal.seconds
    priced = traces.n_price_bins != 1 or traces.profile.price is not None
    if profile.price is not None or (priced and coarse_s is not None):
        raise ValueError(
            "price-binned traces coarsen only to places alone (time and amount dropped); generalize the "
            "events instead"
        )
    fine_bins = traces.n_bins * traces.n_price_bins  # (time bin, price bin) pairs, merged when time goes
    if coarse_s is None:
        factor, shift, n_bins, origin = fine_bins, 0, 1, 0
    elif fine_s is None or coarse_s % fine_s:
        raise ValueError(
            f"cannot derive {profile.temporal.label} bins from {traces.profile.temporal.label} bins"
        )
    else:  # coarse bins stay aligned to Monday midnight, as generalize() aligns them
        factor = coarse_s // fine_s
        shift = ((traces.bin_origin - MONDAY_EPOCH) // fine_s) % factor
        n_bins = (traces.n_bins - 1 + shift) // factor + 1
        origin = traces.bin_origin - shift * fine_s
    args = (
        traces.indptr,
        traces.points,
        traces.counts,
        np.ascontiguousarray(unit_map, dtype=np.int64),
        fine_bins,
        factor,
        shift,
        n_bins,
    )
    indptr = np.zeros(traces.n_users + 1, dtype=np.int64)
    np.cumsum(coarse_lengths(*args), out=indptr[1:])
    points = np.empty(indptr[-1], dtype=smallest_int(n_units * n_bins - 1))
    counts = np.empty(indptr[-1], dtype=traces.counts.dtype)
    fill_coarse(*args, indptr, points, counts)
    return Traces(profile, indptr, points, counts, n_units, n_bins, 1, unit_ids, unit_xy, origin)
