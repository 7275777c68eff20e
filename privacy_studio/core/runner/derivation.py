"""Deriving a grid's coarser traces from finer ones: which profiles nest, the unit maps between
spatial levels, and the finest profile generalized from the events first."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Profile,
    SpatialLevel,
    Traces,
    coarsen,
)
from privacy_studio.core.hierarchy import Hierarchy

# -- helpers ---------------------------------------------------------------------------------------------


def check_levels(profiles: list[Profile], events: EventTable, hierarchy: Hierarchy | None) -> None:
    """Fail early, before any heavy work, on a spatial level the data cannot provide."""
    for profile in profiles:
        level = profile.spatial
        if level.kind == "level":
            if hierarchy is None:
                raise ValueError(f"spatial level {level.name!r} needs a hierarchy file (none was loaded)")
            if not hierarchy.has_level(str(level.name)):
                known = ", ".join((hierarchy.location_level, *hierarchy.levels))
                raise ValueError(
                    f"unknown spatial level {level.name!r}; the hierarchy has: {known}, or raw / grid:<km>"
                )
        elif level.kind == "grid" and not events.has_coordinates():
            raise ValueError("a km grid needs coordinates (x_km/y_km or lat/lon) for the events")


def _level_codes(level: SpatialLevel, hierarchy: Hierarchy | None) -> np.ndarray | None:
    """Unit code of every location code at ``level`` (None when the level is not location-based)."""
    if level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels:
        return hierarchy.unit_codes[str(level.name)]
    return None


def unit_map(
    fine_level: SpatialLevel,
    fine_n_units: int,
    target: SpatialLevel,
    events: EventTable,
    hierarchy: Hierarchy | None,
) -> np.ndarray | None:
    """fine unit -> target unit when every fine unit lies in exactly one target unit, else None."""
    if fine_level == target:
        return np.arange(fine_n_units, dtype=np.int64)
    coarse_codes = _level_codes(target, hierarchy)
    if coarse_codes is None or events.n_locations == 0 or (events.location < 0).any():
        return None
    raw = fine_level.kind == "raw" or (
        fine_level.kind == "level" and hierarchy is not None and fine_level.name == hierarchy.location_level
    )
    if raw:
        return coarse_codes.astype(np.int64)
    fine_codes = _level_codes(fine_level, hierarchy)
    if fine_codes is None:
        return None
    mapping = np.full(fine_n_units, -1, dtype=np.int64)
    mapping[fine_codes] = coarse_codes
    if (mapping[fine_codes] != coarse_codes).any():
        return None  # a fine unit spans several target units: the levels do not nest
    return np.maximum(mapping, 0)


def derive_traces(
    base: Traces, profile: Profile, events: EventTable, hierarchy: Hierarchy | None
) -> Traces | None:
    """``profile``'s traces coarsened from ``base`` when possible (nested units, dividing widths)."""
    fine_s, coarse_s = base.profile.temporal.seconds, profile.temporal.seconds
    if base.n_price_bins != 1 or profile.price is not None:
        return None
    if coarse_s is not None and (fine_s is None or coarse_s % fine_s):
        return None
    mapping = unit_map(base.profile.spatial, base.n_units, profile.spatial, events, hierarchy)
    if mapping is None:
        return None
    if profile.spatial == base.profile.spatial:
        n_units, ids, xy = base.n_units, base.unit_ids, base.unit_xy
    else:
        ids = hierarchy.unit_ids[str(profile.spatial.name)]
        n_units = len(ids)
        xy = None
        if base.unit_xy is not None:
            xy = np.full((n_units, 2), np.nan)
            ok = np.isfinite(base.unit_xy).all(axis=1)
            for k in range(2):
                sums = np.bincount(mapping[ok], weights=base.unit_xy[ok, k], minlength=n_units)
                counts = np.bincount(mapping[ok], minlength=n_units)
                with np.errstate(invalid="ignore", divide="ignore"):
                    xy[:, k] = sums / counts
    return coarsen(base, profile, mapping, n_units, ids, xy)


def from_pool(
    pool: list[Traces], profile: Profile, events: EventTable, hierarchy: Hierarchy | None
) -> tuple[Traces | None, str | None]:
    """``profile``'s traces coarsened from the smallest of the kept traces that allow it, and the profile
    they came from (None when they are kept traces themselves); (None, None) when none allows it."""
    for fine in sorted(pool, key=lambda t: t.nnz):
        if fine.profile == profile:
            return fine, None
        derived = derive_traces(fine, profile, events, hierarchy)
        if derived is not None:
            return derived, fine.profile.label
    return None, None


class DerivationPlan:
    """Which traces a grid must keep: a profile derives from kept traces when its units nest in theirs and
    its time width is a multiple of theirs, and traces are dropped as soon as no later profile needs them."""

    def __init__(self, events: EventTable, hierarchy: Hierarchy | None) -> None:
        self.events, self.hierarchy = events, hierarchy
        self._memo: dict[tuple[Profile, Profile], bool] = {}

    def derivable(self, fine: Profile, coarse: Profile) -> bool:
        """Whether ``coarse``'s traces can be coarsened from ``fine``'s (as :func:`derive_traces` does)."""
        key = (fine, coarse)
        if key not in self._memo:
            self._memo[key] = fine == coarse or self._nests(fine, coarse)
        return self._memo[key]

    def _nests(self, fine: Profile, coarse: Profile) -> bool:
        fine_s, coarse_s = fine.temporal.seconds, coarse.temporal.seconds
        if fine.price is not None or coarse.price is not None:
            return False
        if coarse_s is not None and (fine_s is None or coarse_s % fine_s):
            return False
        level, hierarchy = fine.spatial, self.hierarchy
        in_hierarchy = level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels
        n_units = hierarchy.n_units(str(level.name)) if in_hierarchy else self.events.n_locations
        return unit_map(level, n_units, coarse.spatial, self.events, hierarchy) is not None

    def keep(self, pool: list[Traces], traces: Traces, later: list[Profile]) -> list[Traces]:
        """The pool once ``traces`` are made: each of its traces and ``traces`` kept only while a ``later``
        profile needs it (:meth:`needed`), so the grid holds no traces longer than it must."""
        kept = [t for t in pool if t is not traces] + [traces]
        made = [t.profile for t in kept]
        return [t for t in kept if self.needed(t.profile, made, later)]

    def needed(self, kept: Profile, pool: list[Profile], later: list[Profile]) -> bool:
        """Whether ``kept`` must stay in the ``pool`` (traces kept so far, in the order they were made): some
        ``later`` profile's source is it, the source being the last made of the traces that can derive it
        (the pool's, then the later profiles' made before it), so each profile has a source still kept."""
        for j, target in enumerate(later):
            sources = [s for s in (*pool, *later[:j]) if self.derivable(s, target)]
            if sources and sources[-1] == kept:
                return True
        return False


def base_profile(profiles: list[Profile], hierarchy: Hierarchy | None) -> Profile:
    """The profile to generalize from the events first: finest spatial level, a width dividing the others."""

    def rank(level: SpatialLevel) -> int:
        if level.kind == "raw" or (hierarchy is not None and level.name == hierarchy.location_level):
            return -1
        if level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels:
            return hierarchy.levels.index(str(level.name))
        return 1_000

    spatial = min((p.spatial for p in profiles), key=rank)
    widths = sorted({p.temporal.seconds for p in profiles if p.temporal.seconds is not None})
    dividing = [w for w in widths if all(o % w == 0 for o in widths)]
    target = (dividing or widths or [None])[0]
    temporal = next(p.temporal for p in profiles if p.temporal.seconds == target)
    return Profile(spatial, temporal)
