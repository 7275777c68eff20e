"""The density-map score of a noisy aggregate against the grid's finest profile, the way every microdata
candidate is scored (docs/tradeoff.md), so the two can stand side by side in the trade-off and the report.

The released people per cell play the part of a coarse profile's map: spread evenly back over the finest
places and time bins they contain and compared with the finest map (``core.utility``'s density-map loss,
with every released cell taking part, including those released as 0). A released cell that holds no place of
the data at the finest level (noise on a place nobody visited) has nowhere to go: all of its mass counts as
error. Moves have no such score: the microdata's origin–destination score counts flows of events over the
whole period, not people per time bin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.aggregate.cells import CellGrid
from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, Traces, generalize, spatial_units
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.utility import _spread_error, bin_map, nested_unit_map, reference


@dataclass(frozen=True)
class FinestScore:
    """The aggregate's density-map score against the finest profile, or why there is none."""

    finest: str | None
    utility: float | None
    problem: str = ""


def finest_traces(events: EventTable, profiles: list[Profile], hierarchy: Hierarchy | None) -> Traces:
    """The traces of the profile with the most distinct user-points (the first on ties), as the grid's
    computed utility chooses it."""
    traces = [generalize(events, p, hierarchy) for p in profiles]
    return max(traces, key=lambda t: t.nnz)


def density_score_vs_finest(
    events: EventTable,
    hierarchy: Hierarchy | None,
    finest: Traces,
    profile: Profile,
    grid: CellGrid,
    released: np.ndarray,
) -> float:
    """10 × (1 − loss) of the released map spread back to ``finest`` (``ValueError`` unless nested)."""
    ref = reference(events, finest, hierarchy)
    coarse_units = spatial_units(events, profile.spatial, hierarchy).of_event
    unit_map = nested_unit_map(ref.units, coarse_units, finest.n_units, finest.profile.label, profile.label)
    empty = np.zeros(0, dtype=np.int64)
    shape = Traces(
        profile, np.zeros(1, np.int64), empty, empty, grid.n_units, grid.n_bins, bin_origin=grid.origin
    )
    times = bin_map(finest, shape)
    cell = np.arange(grid.n_cells, dtype=np.int64)
    children = (
        np.bincount(unit_map[unit_map >= 0], minlength=grid.n_units)[cell // grid.n_bins]
        * np.bincount(times, minlength=grid.n_bins)[cell % grid.n_bins]
    )
    reachable = np.flatnonzero(children > 0)  # every cell holding a finest point is among them
    parent = (
        unit_map[finest.point_unit(ref.point_keys)] * grid.n_bins + times[finest.point_bin(ref.point_keys)]
    )
    kept = released[reachable].astype(np.float64)
    edges = np.arange(len(parent))  # nested: every finest cell has one coarse cell
    coarse = np.searchsorted(reachable, parent)
    loss = _spread_error(ref.point_users, edges, coarse, kept, children[reachable])
    total, orphan = float(ref.point_users.sum() + kept.sum()), float(released.sum() - kept.sum())
    whole = total + orphan
    return 10.0 * (1.0 - ((loss * total + orphan) / whole if whole else 0.0))


def score_vs_finest(
    events: EventTable,
    hierarchy: Hierarchy | None,
    grid_profiles: list[Profile],
    profile: Profile,
    grid: CellGrid,
    released: np.ndarray,
) -> FinestScore:
    """The density score against the finest of ``grid_profiles`` (with the aggregate's own profile)."""
    if grid.kind != "density":
        return FinestScore(
            None, None, "moves are not scored against the finest profile (see docs/aggregate.md)"
        )
    finest = finest_traces(events, list(dict.fromkeys([*grid_profiles, profile])), hierarchy)
    try:
        score = density_score_vs_finest(events, hierarchy, finest, profile, grid, released)
    except ValueError as exc:
        return FinestScore(finest.profile.label, None, str(exc))
    return FinestScore(finest.profile.label, score)
