"""The figures of a release measured at its own granularity: its spatial units as places, its time bins.

The same function measures the release held in memory (the window's preview) and the file read back with
the studio's reader (the closed loop), so the two can be compared exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from privacy_studio.core.events import EventTable, build_event_table
from privacy_studio.core.generalize import Profile, generalize, price_label
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid


@dataclass(frozen=True)
class MeasureSettings:
    """How unicity is estimated: the project's p, sample size and seed (so figures are comparable)."""

    p: int = 4
    samples: int = 10000
    seed: int = 0


@dataclass
class ReleaseFigures:
    """People and events covered, full-fingerprint class sizes (exact) and sampled unicity at ``p``."""

    people: int
    events: int  # as the reader counts them: one per row of a release with one row per point
    k: int  # smallest full-fingerprint class (0 when nobody is released)
    share_unique: float  # share of the people whose whole trace is unique
    class_sizes: dict[int, int]  # class size -> number of people in classes of that size
    p: int
    unicity: float | None
    unicity_ci: tuple[float, float] | None
    n_sampled: int
    n_excluded: int  # sampled people with fewer than p points, left out of unicity

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["class_sizes"] = {str(k): v for k, v in self.class_sizes.items()}
        d["unicity_ci"] = None if self.unicity_ci is None else list(self.unicity_ci)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReleaseFigures:
        ci = d.get("unicity_ci")
        return cls(
            **{
                **d,
                "class_sizes": {int(k): int(v) for k, v in d["class_sizes"].items()},
                "unicity_ci": None if ci is None else (float(ci[0]), float(ci[1])),
            }
        )


def class_size_counts(sizes: np.ndarray) -> dict[int, int]:
    """People per class size: {1: people with a unique trace, 2: people in pairs, …}."""
    values, people = np.unique(sizes, return_counts=True)
    return {int(v): int(n) for v, n in zip(values, people, strict=True)}


def measure(
    events: EventTable,
    profile: Profile,
    hierarchy: Hierarchy | None,
    settings: MeasureSettings,
    control: TaskControl | None = None,
) -> ReleaseFigures:
    """Class sizes of every person's whole trace and unicity at ``settings.p`` under ``profile``."""
    control = as_control(control)
    if events.n_users == 0:
        return ReleaseFigures(0, 0, 0, 0.0, {}, settings.p, None, None, 0, 0)
    sizes = class_sizes(generalize(events, profile, hierarchy))
    risk = RiskSettings(
        spatial=[profile.spatial.label],
        temporal=[profile.temporal.label],
        price=[price_label(profile.price)],
        p_values=[settings.p],
        measures=["unicity"],
        samples=settings.samples,
        seed=settings.seed,
        reference_p=settings.p,
    )
    result = next(run_grid(events, risk, hierarchy, control)).by_p[0]
    return ReleaseFigures(
        people=events.n_users,
        events=events.n_events,
        k=int(sizes.min()),
        share_unique=float(np.mean(sizes == 1)),
        class_sizes=class_size_counts(sizes),
        p=settings.p,
        unicity=result.unicity,
        unicity_ci=result.unicity_ci,
        n_sampled=result.n_sampled,
        n_excluded=result.n_excluded,
    )


def own_profile(temporal: str) -> Profile:
    """A release's own granularity: its unit ids are the places (``raw``), its bins the time width."""
    return Profile.parse("raw", temporal)


def table_events(table: pa.Table, utc_seconds: np.ndarray, tz: str) -> EventTable:
    """The release held in memory as the reader would see it: one event per row. An amount published as
    its bin's range (text) is part of the point: the place is measured as ``location @ amount range``."""
    places = table.column("location").to_numpy(zero_copy_only=False)
    if "amount" in table.column_names and pa.types.is_string(table.schema.field("amount").type):
        ranges = table.column("amount").to_numpy(zero_copy_only=False)
        places = np.asarray([f"{p} @ {r}" for p, r in zip(places, ranges, strict=True)], dtype=object)
    return build_event_table(table.column("user").to_numpy(zero_copy_only=False), utc_seconds, places, tz=tz)
