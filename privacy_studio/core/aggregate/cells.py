"""The cells of an aggregate and what each person contributes to them, before and after the bound.

A person's contributions are the distinct cells they count in, with how often (events at a point, or times
a move was made) so the bound keeps the most frequent ones. Cells are the profile's full grid: every
spatial unit it defines times every time bin of the period (for moves: every ordered pair of units), so
no empty cell is left out of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, Traces
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.release.options import ReleaseOptions
from privacy_studio.core.release.suppression import cap_points
from privacy_studio.core.release.table import event_points

#: The most cells a file may hold (a row each; the noise takes about 15 s per million cells on one core).
MAX_CELLS = 20_000_000


@dataclass
class CellGrid:
    """The cells' shape: ``n_units`` places (``unit_ids``), ``n_bins`` time bins from ``origin`` (local s)."""

    kind: str
    unit_ids: np.ndarray
    n_bins: int
    origin: int
    seconds: int | None  # bin width (None: one bin for the whole period)

    @property
    def n_units(self) -> int:
        return len(self.unit_ids)

    @property
    def n_cells(self) -> int:
        pairs = self.n_units * self.n_units if self.kind == "od" else self.n_units
        return pairs * self.n_bins


def person_cells(user: np.ndarray, cell: np.ndarray, n_users: int, n_cells: int, profile: Profile) -> Traces:
    """Every person's distinct cells (ascending) with how often they occur, as CSR ``Traces`` rows whose
    points are cell numbers (so the release's bound, ``cap_points``, applies to them unchanged)."""
    keys, counts = np.unique(user.astype(np.int64) * n_cells + cell, return_counts=True)
    lengths = np.bincount(keys // n_cells, minlength=n_users)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return Traces(profile, indptr, keys % n_cells, counts.astype(np.int64), n_cells, 1)


def contributions(
    events: EventTable, spatial: str, temporal: str, kind: str, hierarchy: Hierarchy | None
) -> tuple[CellGrid, Traces]:
    """The grid of cells and every person's contributions to it (``ValueError`` if the profile cannot be
    built on the data).

    ``density``: cell = unit · n_bins + bin, counted once per person who has an event there. ``od``: the
    person's events in time order give a sequence of points (a repeat of the same point is one visit);
    each step from one point to the next is a move (origin unit → destination unit, staying put
    included) in the time bin of the origin: cell = (origin · n_units + destination) · n_bins + bin.
    """
    options = ReleaseOptions(spatial, temporal)
    at = event_points(events, options, hierarchy)  # no price: an aggregate publishes no amount
    points, unit_ids, n_bins, origin = at.points, at.unit_ids, at.n_bins, at.origin
    grid = CellGrid(kind, np.asarray(unit_ids), n_bins, origin, options.profile.temporal.seconds)
    if grid.n_cells > MAX_CELLS:
        pairs = (
            f"{grid.n_units:,} × {grid.n_units:,} place pairs" if kind == "od" else f"{grid.n_units:,} places"
        )
        raise ValueError(
            f"its full grid has {grid.n_cells:,} cells ({pairs} × {n_bins:,} time bins), more than the "
            f"{MAX_CELLS:,} a file may hold: choose coarser places or time bins"
        )
    user = events.user.astype(np.int64)
    if kind == "density":
        return grid, person_cells(user, points, events.n_users, grid.n_cells, options.profile)
    new_visit = np.ones(len(points), dtype=bool)
    new_visit[1:] = (user[1:] != user[:-1]) | (points[1:] != points[:-1])
    user, points = user[new_visit], points[new_visit]
    step = np.flatnonzero(user[1:] == user[:-1])
    unit, time_bin = points // n_bins, points % n_bins
    cell = (unit[step] * grid.n_units + unit[step + 1]) * n_bins + time_bin[step]
    return grid, person_cells(user[step], cell, events.n_users, grid.n_cells, options.profile)


@dataclass
class BoundedCounts:
    """People per cell before and after the bound, and what the bound cut."""

    true: np.ndarray  # int64 per cell: every person counted once in every cell they are in
    bounded: np.ndarray  # int64 per cell: each person in at most ``bound`` of their cells
    bound: int
    people: int  # people with at least one contribution
    people_cut: int  # of them, people with more than ``bound`` cells (some of their cells dropped)
    contributions: int  # (person, cell) pairs before the bound
    contributions_cut: int  # (person, cell) pairs the bound dropped


def bounded_counts(rows: Traces, n_cells: int, bound: int) -> BoundedCounts:
    """People per cell, each person kept to their ``bound`` most frequent cells (ties: the earlier cell)."""
    kept = cap_points(rows, bound)
    lengths = rows.lengths()
    return BoundedCounts(
        np.bincount(rows.points, minlength=n_cells).astype(np.int64),
        np.bincount(kept.points, minlength=n_cells).astype(np.int64),
        bound,
        int((lengths > 0).sum()),
        int((lengths > bound).sum()),
        rows.nnz,
        rows.nnz - kept.nnz,
    )
