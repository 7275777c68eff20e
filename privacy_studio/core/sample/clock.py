"""Calendar of a simulated period: local midnights, weekdays and local wall-clock to UTC conversion."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privacy_studio.core.events import to_local_seconds

DAY = 86_400


@dataclass(frozen=True)
class Period:
    """``days`` whole local days starting at local midnight ``start_local`` (naive epoch seconds)."""

    start_local: int
    days: int
    first_weekday: int  # 0 = Monday
    tz: str

    @classmethod
    def starting(cls, start: str, days: int, tz: str, offset_days: int = 0) -> Period:
        """The period of ``days`` days beginning ``offset_days`` after local date ``start``."""
        try:
            first = pd.Timestamp(start).normalize() + pd.Timedelta(days=offset_days)
        except ValueError as exc:
            raise ValueError(f"start date {start!r} is not a date such as 2024-03-04") from exc
        if first.tzinfo is not None:
            raise ValueError(f"start date {start!r} must be a plain local date, without a time zone")
        start_local = int((first - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1))
        return cls(start_local, days, int(first.day_of_week), tz)

    def weekday(self, day: np.ndarray) -> np.ndarray:
        """Weekday (0 = Monday) of each day index of the period."""
        return (self.first_weekday + day) % 7

    def bounds_utc(self) -> tuple[int, int]:
        """First and one-past-last UTC second of the period."""
        ends = local_to_utc(np.array([self.start_local, self.start_local + self.days * DAY]), self.tz)
        return int(ends[0]), int(ends[1])

    def iso_start(self) -> str:
        """First day of the period as ``YYYY-MM-DD``."""
        return str(pd.Timestamp(self.start_local, unit="s").date())


def local_to_utc(local: np.ndarray, tz: str) -> np.ndarray:
    """UTC epoch seconds of naive wall-clock seconds in ``tz``.

    Wall-clock times skipped by a spring-forward change move forward by the gap; repeated autumn times are
    read as the first (summer-time) occurrence.
    """
    local = np.asarray(local, dtype=np.int64)
    if tz in ("UTC", "utc", "Z", "") or len(local) == 0:
        return local.copy()
    hours, inverse = np.unique(local // 3600, return_inverse=True)
    try:
        stamps = pd.to_datetime(hours * 3600, unit="s").tz_localize(
            tz, ambiguous=np.ones(len(hours), dtype=bool), nonexistent="shift_forward"
        )
    except (KeyError, ValueError) as exc:  # pandas raises on unknown zone names
        raise ValueError(f"unknown time zone {tz!r} (use an IANA name such as Europe/Paris)") from exc
    utc_hours = (stamps - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)
    offsets = hours * 3600 - np.asarray(utc_hours, dtype=np.int64)
    return local - offsets[inverse]


def utc_offsets(utc: np.ndarray, tz: str) -> np.ndarray:
    """Offset of ``tz`` from UTC (seconds) at each instant."""
    return to_local_seconds(np.asarray(utc, dtype=np.int64), tz) - utc
