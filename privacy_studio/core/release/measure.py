"""The figures of a release measured at its own granularity: every published column but the pseudonym and
the time as the place (``written.row_events``), its time bins.

The same function measures the release held in memory (the window's preview) and the file read back (the
closed loop), so the two can be compared exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, generalize, price_label
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.measures.attributes import Sensitive, read_attributes, sensitive_attributes
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid


@dataclass(frozen=True)
class MeasureSettings:
    """How a release is measured: the project's p, sample size and seed (so figures are comparable), and
    the measures its release criteria read (``measures``)."""

    p: int = 4
    samples: int = 10000
    seed: int = 0
    measures: tuple[str, ...] = (UNICITY,)
    attributes: str | None = None  # the user-attributes file, when a release criterion limits disclosure
    sensitive: tuple[str, ...] = ()  # its sensitive columns (none: attribute disclosure not measured)
    ordered: tuple[str, ...] = ()
    l_diversity: int = 3
    t_closeness: float = 0.2


@dataclass
class ReleaseFigures:
    """People and events covered, full-fingerprint class sizes (exact) and sampled unicity at ``p``."""

    people: int
    rows: int  # rows of the file (with one row per point, fewer than the events they stand for)
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
        """Inverse of :meth:`to_dict`; older records called the rows ``events``."""
        ci = d.get("unicity_ci")
        d = {("rows" if k == "events" else k): v for k, v in d.items()}
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
    owners: dict[str, str] | None = None,
) -> tuple[ReleaseFigures, ProfileResult | None]:
    """Class sizes of every person's whole trace and unicity at ``settings.p`` under ``profile``, and the
    risk engine's result with ``settings.measures`` (None when nobody is left); with sensitive attributes
    and ``owners`` (written user id -> input id), also attribute disclosure on the people as written."""
    control = as_control(control)
    if events.n_users == 0:
        return ReleaseFigures(0, 0, 0, 0.0, {}, settings.p, None, None, 0, 0), None
    sizes = class_sizes(generalize(events, profile, hierarchy))
    risk = RiskSettings(
        spatial=[profile.spatial.label],
        temporal=[profile.temporal.label],
        price=[price_label(profile.price)],
        p_values=[settings.p],
        measures=list(dict.fromkeys([UNICITY, *settings.measures])),
        samples=settings.samples,
        seed=settings.seed,
        reference_p=settings.p,
        l_diversity=settings.l_diversity,
        t_closeness=settings.t_closeness,
    )
    sensitive = released_sensitive(events, settings, owners)
    profile_result = next(run_grid(events, risk, hierarchy, control, sensitive))
    result = profile_result.by_p[0]
    figures = ReleaseFigures(
        people=events.n_users,
        rows=events.n_events,
        k=int(sizes.min()),
        share_unique=float(np.mean(sizes == 1)),
        class_sizes=class_size_counts(sizes),
        p=settings.p,
        unicity=result.unicity,
        unicity_ci=result.unicity_ci,
        n_sampled=result.n_sampled,
        n_excluded=result.n_excluded,
    )
    return figures, profile_result


def released_sensitive(
    events: EventTable, settings: MeasureSettings, owners: dict[str, str] | None
) -> list[Sensitive] | None:
    """The sensitive attributes of the released people (their input ids via ``owners``), so attribute
    disclosure is measured on exactly the people and traces written; None when not asked."""
    if not settings.sensitive or settings.attributes is None or owners is None:
        return None
    originals = np.asarray([owners[str(u)] for u in events.user_ids], dtype=object)
    table = read_attributes(settings.attributes)
    return sensitive_attributes(table, originals, list(settings.sensitive), list(settings.ordered))


def own_profile(temporal: str) -> Profile:
    """A release's own granularity: its unit ids are the places (``raw``), its bins the time width."""
    return Profile.parse("raw", temporal)
