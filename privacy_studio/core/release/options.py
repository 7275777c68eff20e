"""What the user asks of a release: profile, row layout, extra columns and the suppression thresholds."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from privacy_studio.core.generalize import PriceLevel, Profile
from privacy_studio.core.release_error import ReleaseError

__all__ = ["ReleaseError", "ReleaseOptions", "parse_profile"]

#: ``points``: a row per (person, spatial unit, time bin), with its event count only when ``counts`` is set;
#: ``events``: a row per event (the number of rows of a point is then its event count).
ROW_KINDS = ("points", "events")
#: Event columns that may be released with per-event rows (the reader's role names, so they read back).
EXTRA_COLUMNS = ("interaction", "direction", "amount", "duration", "merchant")


def parse_profile(text: str) -> Profile:
    """``district:1w`` or ``grid:2:6h`` (the time width is after the last colon), optionally followed by
    ``:price/3`` (amount bins per factor of ten), as a :class:`Profile`."""
    rest, sep, last = text.strip().rpartition(":")
    if sep and last.strip().lower().startswith("price/"):
        base = parse_profile(rest)
        try:
            return Profile(base.spatial, base.temporal, PriceLevel.parse(last.strip()[len("price/") :]))
        except ValueError as exc:
            raise ReleaseError(f"profile {text!r}: {exc}") from None
    spatial, sep, temporal = text.strip().rpartition(":")
    if not sep or not spatial.strip() or not temporal.strip():
        raise ReleaseError(f"profile {text!r}: expected SPATIAL:TEMPORAL, e.g. district:1w or grid:2:6h")
    try:
        return Profile.parse(spatial, temporal)
    except ValueError as exc:
        raise ReleaseError(f"profile {text!r}: {exc}") from None


def _positive_or_none(name: str, value: int | None, smallest: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < smallest:
        raise ReleaseError(f"{name} must be a whole number of at least {smallest}, got {value!r}")


@dataclass
class ReleaseOptions:
    """The profile (``spatial``, ``temporal`` labels), the row layout and the suppression choices."""

    spatial: str
    temporal: str
    rows: str = "points"
    columns: list[str] = field(default_factory=list)
    centres: bool = False
    counts: bool = False  # a ``count`` column on per-point rows (suppression then works on (point, count))
    min_people_per_point: int | None = None
    k_anonymity: int | None = None
    max_points_per_person: int | None = None
    price: str = "none"  # price bins per factor of ten: the amount is published as its bin's range

    @property
    def profile(self) -> Profile:
        profile = parse_profile(f"{self.spatial}:{self.temporal}")
        try:
            return Profile(profile.spatial, profile.temporal, PriceLevel.parse(self.price))
        except ValueError as exc:
            raise ReleaseError(str(exc)) from None

    @property
    def publishes_counts(self) -> bool:
        """Whether the file tells each point's event count (a column, or the number of per-event rows)."""
        return self.counts or self.rows == "events"

    @property
    def suppresses(self) -> bool:
        return any(
            v is not None for v in (self.min_people_per_point, self.k_anonymity, self.max_points_per_person)
        )

    def validate(self) -> None:
        """Raise :class:`ReleaseError` for an impossible choice (before any data is touched)."""
        if self.rows not in ROW_KINDS:
            raise ReleaseError(f"rows must be one of {', '.join(ROW_KINDS)}, got {self.rows!r}")
        unknown = [c for c in self.columns if c not in EXTRA_COLUMNS]
        if unknown:
            raise ReleaseError(
                f"unknown column(s) {', '.join(unknown)}; the columns that can be released are "
                f"{', '.join(EXTRA_COLUMNS)}"
            )
        if self.columns and self.rows != "events":
            raise ReleaseError("extra columns describe single events: choose one row per event to add them")
        if self.counts and self.rows != "points":
            raise ReleaseError("a count column goes with one row per point (per-event rows already count)")
        _positive_or_none("the minimum number of people per point", self.min_people_per_point, 1)
        _positive_or_none("k (k-anonymity)", self.k_anonymity, 1)
        _positive_or_none("the maximum number of points per person", self.max_points_per_person, 1)
        if self.profile.price is not None and "amount" in self.columns:
            raise ReleaseError(
                "with price bins the amount is released as its bin's range (the amount column): the exact "
                "amount cannot be added as well"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReleaseOptions:
        """Inverse of :meth:`to_dict`; unknown keys are refused so a damaged record surfaces. Records made
        before ``counts`` existed wrote a count column with every per-point row."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ReleaseError(f"unknown release option(s): {', '.join(unknown)}")
        counts = d.get("counts", d.get("rows", "points") == "points")
        return cls(**{**d, "columns": list(d.get("columns") or []), "counts": bool(counts)})
