"""A loaded dataset: the events, the optional hierarchy, the import report and what was read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.report import ImportReport, SourceFile

QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


@dataclass
class Dataset:
    """Everything ``load_dataset`` returns; ``summary()`` is what the studio shows first."""

    events: EventTable
    hierarchy: Hierarchy | None
    report: ImportReport
    sources: list[SourceFile]
    options: ReaderOptions

    def summary(self) -> dict[str, Any]:
        """Users, events, period (ISO, UTC), locations, hierarchy levels and events-per-user quantiles."""
        ev = self.events
        start, end = ev.period()
        per_user = np.diff(ev.user_offsets())
        quantiles = (
            {f"q{round(q * 100)}": float(np.quantile(per_user, q)) for q in QUANTILES}
            if len(per_user)
            else {}
        )
        return {
            "users": ev.n_users,
            "events": ev.n_events,
            "period_start": iso_utc(start) if ev.n_events else None,
            "period_end": iso_utc(end) if ev.n_events else None,
            "time_zone": ev.tz,
            "locations": ev.n_locations,
            "has_coordinates": ev.has_coordinates(),
            "hierarchy_levels": [] if self.hierarchy is None else list(self.hierarchy.levels),
            "events_per_user": quantiles,
        }


def period_text(start: int, end: int, tz: str) -> str:
    """The period as a person reads it: wall-clock minutes in the data's own time zone, which is named
    (``2024-03-04 00:00 to 2024-03-31 23:59 Europe/Paris``), since days and weeks are binned in that zone."""
    zone = ZoneInfo(tz)
    first, last = (datetime.fromtimestamp(int(t), UTC).astimezone(zone) for t in (start, end))
    return f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} {tz}"


def iso_utc(seconds: int) -> str:
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
