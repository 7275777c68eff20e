"""``DatasetOverview``: what the studio shows of a dataset without holding its events — people, events,
period, the events-per-person distribution, events per place and per hour, and the import report.

Every figure is an aggregate (counts per user, per place, per hour), so an overview of a month of 10 million
people is a few hundred kilobytes; ``check()`` ties the aggregates to each other, so a damaged or tampered
cache entry is refused instead of shown.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from privacy_studio.core.io.dataset import QUANTILES, iso_utc, period_text
from privacy_studio.core.io.report import ImportReport

HOUR = 3600


class BadOverview(ValueError):
    """An overview whose aggregates contradict each other; the message says which."""


@dataclass
class PlaceCounts:
    """Events per place (location code order), with the places' km coordinates where known (NaN else)."""

    ids: list[str] = field(default_factory=list)
    events: list[int] = field(default_factory=list)
    x_km: list[float] = field(default_factory=list)
    y_km: list[float] = field(default_factory=list)

    def located(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """x, y and events of the places with coordinates and at least one event (what a map draws)."""
        x, y = np.asarray(self.x_km, dtype=float), np.asarray(self.y_km, dtype=float)
        n = np.asarray(self.events, dtype=np.int64)
        keep = np.isfinite(x) & np.isfinite(y) & (n > 0) if len(x) == len(n) else np.zeros(len(n), bool)
        return x[keep], y[keep], n[keep]


@dataclass
class DatasetOverview:
    """Aggregates of one dataset as read with its reader options; ``computed_by`` names the engine."""

    source: str
    people: int
    events: int
    period: tuple[int, int] | None  # first and last event, UTC epoch seconds
    tz: str
    per_person: tuple[list[int], list[int]]  # (events a person has, people with that many), ascending
    places: PlaceCounts
    unplaced_events: int  # events with coordinates only (no place id)
    first_hour: int  # epoch hour of ``hourly[0]``
    hourly: list[int]  # events per UTC hour from ``first_hour``
    has_coordinates: bool
    hierarchy_levels: list[str]
    report: ImportReport
    computed_by: str = "duckdb"

    # -- what the window and the report read --------------------------------------------------------
    def quantile(self, q: float) -> float:
        """The ``q`` quantile of events per person, as ``numpy.quantile`` (linear) gives it on each person."""
        values, people = (np.asarray(a, dtype=np.int64) for a in self.per_person)
        if not self.people:
            return float("nan")
        position = (self.people - 1) * q
        below = int(np.floor(position))
        ends = np.cumsum(people)  # person index i has values[searchsorted(ends, i, "right")]
        lo = values[np.searchsorted(ends, below, side="right")]
        hi = values[np.searchsorted(ends, min(below + 1, self.people - 1), side="right")]
        return float(lo + (position - below) * (hi - lo))

    def summary(self) -> dict[str, Any]:
        """The keys and values of ``Dataset.summary()``, from the aggregates alone."""
        start, end = self.period if self.period is not None else (None, None)
        return {
            "users": self.people,
            "events": self.events,
            "period_start": iso_utc(start) if start is not None else None,
            "period_end": iso_utc(end) if end is not None else None,
            "time_zone": self.tz,
            "locations": len(self.places.ids),
            "has_coordinates": self.has_coordinates,
            "hierarchy_levels": list(self.hierarchy_levels),
            "events_per_user": (
                {f"q{round(q * 100)}": self.quantile(q) for q in QUANTILES} if self.people else {}
            ),
        }

    def period_text(self) -> str:
        """The period in the data's own zone (as the in-memory summary shows it); '—' without events."""
        return period_text(*self.period, self.tz) if self.period is not None else "—"

    # -- checks and JSON ----------------------------------------------------------------------------
    def check(self) -> None:
        """``BadOverview`` unless the aggregates agree: people and events add up in every breakdown."""
        values, people = (np.asarray(a, dtype=np.int64) for a in self.per_person)
        problems = []
        if len(values) != len(people) or (len(values) and (values.min() < 1 or people.min() < 1)):
            problems.append("the events-per-person counts are malformed")
        elif len(values) > 1 and (np.diff(values) <= 0).any():
            problems.append("the events-per-person counts are not in ascending order")
        elif int(people.sum()) != self.people or int((values * people).sum()) != self.events:
            problems.append("the events-per-person counts do not add up to the people and events")
        if sum(self.hourly) != self.events or min(self.hourly, default=0) < 0:
            problems.append("the events per hour do not add up to the events")
        p = self.places
        if not (len(p.ids) == len(p.events) == len(p.x_km) == len(p.y_km)):
            problems.append("the places' columns differ in length")
        if sum(p.events) + self.unplaced_events != self.events or min(p.events, default=0) < 0:
            problems.append("the events per place do not add up to the events")
        if self.report.rows_kept != self.events:
            problems.append("the import report's kept rows differ from the events")
        if (self.period is None) != (self.events == 0):
            problems.append("the period does not match the events")
        if problems:
            raise BadOverview("; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["report"] = self.report.to_dict()
        d["period"] = list(self.period) if self.period is not None else None
        d["per_person"] = [list(a) for a in self.per_person]
        d["places"]["x_km"] = [None if x != x else x for x in self.places.x_km]  # JSON has no NaN
        d["places"]["y_km"] = [None if y != y else y for y in self.places.y_km]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> DatasetOverview:
        """Inverse of :meth:`to_dict`, checked (``BadOverview``, ``KeyError`` or ``TypeError`` if not)."""
        places = dict(d["places"])
        for key in ("x_km", "y_km"):
            places[key] = [float("nan") if v is None else float(v) for v in places[key]]
        overview = cls(
            source=str(d["source"]),
            people=int(d["people"]),
            events=int(d["events"]),
            period=tuple(int(t) for t in d["period"]) if d["period"] is not None else None,  # type: ignore[arg-type]
            tz=str(d["tz"]),
            per_person=([int(v) for v in d["per_person"][0]], [int(v) for v in d["per_person"][1]]),
            places=PlaceCounts(
                [str(i) for i in places["ids"]],
                [int(n) for n in places["events"]],
                places["x_km"],
                places["y_km"],
            ),
            unplaced_events=int(d["unplaced_events"]),
            first_hour=int(d["first_hour"]),
            hourly=[int(n) for n in d["hourly"]],
            has_coordinates=bool(d["has_coordinates"]),
            hierarchy_levels=[str(v) for v in d["hierarchy_levels"]],
            report=ImportReport.from_dict(d["report"]),
            computed_by=str(d["computed_by"]),
        )
        overview.check()
        return overview
