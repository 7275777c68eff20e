"""Reader options (the same for every command and the import dialog) and the column roles they map."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

FORMATS = ("auto", "events", "cdr", "transactions", "sessions")

#: Column names recognized without a mapping, per role (compared case-insensitively).
ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "user": ("user", "user_id", "uid", "userid"),
    "time": ("time", "timestamp", "datetime", "date"),
    "start": ("start", "start_time", "begin"),
    "end": ("end", "end_time", "stop"),
    "location": ("location", "antenna_id", "location_id", "antenna", "cell_id"),
    "lat": ("lat", "latitude"),
    "lon": ("lon", "lng", "longitude"),
    "x_km": ("x_km",),
    "y_km": ("y_km",),
    "merchant": ("shop", "merchant", "shop_id", "merchant_id"),
    "amount": ("price", "amount"),
    "interaction": ("interaction",),
    "direction": ("direction",),
    "duration": ("call_duration", "duration"),
    "correspondent": ("correspondent_id", "correspondent"),
}
ROLES = tuple(ROLE_ALIASES)


@dataclass
class ReaderOptions:
    """How to read an input: format, CSV dialect, column roles, time zone and the side files.

    ``monthfirst`` lets the user state that ambiguous slashed dates are mm/dd (``dayfirst`` states dd/mm);
    with neither, ambiguous dates are refused rather than guessed.
    """

    format: str = "auto"
    delimiter: str | None = None
    header: bool = True
    columns: list[str] | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    tz: str = "UTC"
    dayfirst: bool = False
    antennas: str | None = None
    hierarchy: str | None = None
    locations: str | None = None
    use_cache: bool = True
    monthfirst: bool = False
    place_tolerance_m: float = 0.0  # coordinate-only places closer than this are one place (0: identical)

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; use one of {', '.join(FORMATS)}")
        unknown = sorted(set(self.mapping) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown column role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        if self.dayfirst and self.monthfirst:
            raise ValueError("dayfirst and monthfirst exclude each other")
        tol = self.place_tolerance_m
        if isinstance(tol, bool) or not isinstance(tol, int | float) or not 0 <= tol < float("inf"):
            raise ValueError(f"the place tolerance must be a number of metres ≥ 0, got {tol!r}")
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise ValueError(f"the delimiter must be one character, got {self.delimiter!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (for project files and cache keys)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReaderOptions:
        """Inverse of :meth:`to_dict`; unknown keys are refused so typos in project files surface."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown reader option(s): {', '.join(unknown)}")
        return cls(**data)
