"""Generalization profiles (spatial level x temporal level) and the CSR traces they produce (metrics.md §1).

A profile maps every event to a point ``(spatial unit, time bin[, price bin])``; a user's trace is the set
of distinct points with the number of events at each. Point ids are dense integers
``(unit * n_bins + bin) * n_price_bins + price_bin`` so kernels can index arrays by point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize.levels import (
    MONDAY_EPOCH,
    PriceLevel,
    Profile,
    SpatialLevel,
    TemporalLevel,
    finest_first,
    price_label,
)
from privacy_studio.core.generalize.prices import (
    PriceLayout,
    plain_number,
    price_bins,
    price_edge,
    price_edges,
)
from privacy_studio.core.generalize.time_bins import BinGrid, LocalClock, bin_grid, time_bins
from privacy_studio.core.generalize.units import (
    SpatialUnits,
    _unique_cells,
    coordinate_label,
    coordinate_places,
    spatial_units,
    unique_pairs,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.derive import coarse_lengths, fill_coarse
from privacy_studio.core.kernels.event_traces import compact_rows, event_traces

__all__ = [
    "BLOCK_EVENTS",
    "MONDAY_EPOCH",
    "BinGrid",
    "EventPoints",
    "LocalClock",
    "PriceLayout",
    "PriceLevel",
    "Profile",
    "SpatialLevel",
    "SpatialUnits",
    "TemporalLevel",
    "Traces",
    "_unique_cells",
    "bin_grid",
    "coarsen",
    "coordinate_label",
    "coordinate_places",
    "event_points",
    "finest_first",
    "generalize",
    "plain_number",
    "price_bins",
    "price_edge",
    "price_edges",
    "price_label",
    "smallest_int",
    "spatial_units",
    "time_bins",
    "traces_by_block",
    "unique_pairs",
    "user_blocks",
]


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
    grid, utc, clock, origin = BinGrid(None, 1, 0), none, (none, none, none, 0), 0
    if profile.temporal.seconds is not None and events.n_events:
        local = LocalClock.of(events)
        grid = bin_grid(profile.temporal, local.first_second, local.last_second)
        # times as stored (int32 from an origin in compact tables): clock and bins counted from that origin
        utc, clock = events.time, local.pieces(events.time_origin)
        origin = grid.origin - events.time_origin
    pbins, n_price = none, 1
    if profile.price is not None:
        priced = price_bins(events.amount, profile.price)
        pbins, n_price = priced.bins, priced.n_bins
    code_map = none if units.code_map is None else np.array(units.code_map, dtype=np.int64)
    d = units.n_units * grid.n_bins * n_price
    dtypes = smallest_int(d - 1), smallest_int(events.n_events)
    per_row = (units.per_event, utc, pbins)  # per-event inputs (empty: not used)
    fixed = (code_map, units.n_units, clock, origin, grid.width or 1, grid.n_bins, n_price)
    indptr, points, counts = traces_by_block(events.user_offsets(), per_row, fixed, dtypes)
    return Traces(
        profile, indptr, points, counts, units.n_units, grid.n_bins, n_price, units.ids, units.xy, grid.origin
    )


def traces_by_block(
    offsets: np.ndarray, per_row: tuple, fixed: tuple, dtypes: tuple[type, type]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR traces (indptr, points, counts) made by ``event_traces`` over blocks of users of at most
    :data:`BLOCK_EVENTS` events, so the event-length temporaries are one block long (the result equals one
    pass over all users). Each block's distinct points go into two arrays reserved at one point per event
    and shrunk in place at the end: pages never written take no memory, where growing them block by block
    zero-filled each new part holding the GIL (the window paused 60-140 ms at each of them)."""
    unit_of, utc, pbins = per_row
    code_map, n_units, clock, origin, width, n_bins, n_price = fixed
    points, counts = np.empty(int(offsets[-1]), dtype=dtypes[0]), np.empty(int(offsets[-1]), dtype=dtypes[1])
    indptr = np.zeros(len(offsets), dtype=np.int64)
    start = 0
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
        n = int(local[-1])
        points[start : start + n], counts[start : start + n] = keys[:n], n_at[:n]
        indptr[a + 1 : b + 1] = start + local[1:]
        start += n
    points.resize(start, refcheck=False)  # ours alone: shrunk in place (realloc), no second copy
    counts.resize(start, refcheck=False)
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
