"""The axes of a generalization profile: spatial levels, time widths and price bins per factor of ten, and
the finest-first order a grid is generalized in."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

#: 1970-01-05 00:00 was a Monday: bins are aligned to local midnight and to Monday by counting from it.
MONDAY_EPOCH = 4 * 86400

_UNIT_SECONDS = {"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_WIDTH_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|m|h|d|w)\s*$", re.IGNORECASE)


#: Grid squares from 1 m to the Earth's circumference (finer overflows cell numbers, coarser is one cell).
MIN_GRID_KM, MAX_GRID_KM = 0.001, 40_075.0
#: Time bins up to 1000 years: wider ones cover every supported time in one bin (and 64-bit seconds).
MAX_WIDTH_SECONDS = 1000 * 366 * 86400


@dataclass(frozen=True)
class SpatialLevel:
    """``raw`` (the location itself), ``grid`` (squares of ``km`` side) or a named hierarchy level."""

    kind: str  # "raw" | "grid" | "level"
    km: float | None = None
    name: str | None = None

    @classmethod
    def parse(cls, text: str) -> SpatialLevel:
        """Read ``raw``, ``grid:2.5`` (km) or a hierarchy level name such as ``district``."""
        t = text.strip()
        if not t:
            raise ValueError("empty spatial level")
        if t.lower() == "raw":
            return cls("raw")
        if t.lower().startswith("grid:"):
            try:
                km = float(t.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"grid size in {text!r} is not a number of km (e.g. grid:2)") from None
            if not MIN_GRID_KM <= km <= MAX_GRID_KM:
                raise ValueError(
                    f"grid size in {text!r} must be a positive, finite number of km "
                    f"from {MIN_GRID_KM:g} (1 m) to {MAX_GRID_KM:g}"
                )
            return cls("grid", km=km)
        return cls("level", name=t)

    @property
    def label(self) -> str:
        if self.kind == "raw":
            return "raw"
        if self.kind == "grid":
            return f"grid:{self.km:g}"
        return str(self.name)


@dataclass(frozen=True)
class TemporalLevel:
    """Time bins of a fixed width in seconds, or ``None`` for one bin covering the whole period."""

    seconds: int | None

    @classmethod
    def parse(cls, text: str) -> TemporalLevel:
        """Read ``all``, ``30min``, ``1h``, ``6h``, ``1d``, ``1w`` … (``m`` means minutes)."""
        t = text.strip().lower()
        if t in ("all", "none", "*"):
            return cls(None)
        m = _WIDTH_RE.match(t)
        if not m:
            raise ValueError(f"time width {text!r} not understood (use e.g. 15min, 1h, 6h, 1d, 1w or all)")
        seconds = float(m.group(1)) * _UNIT_SECONDS[m.group(2).lower()]
        if not 1 <= seconds <= MAX_WIDTH_SECONDS:
            raise ValueError(f"time width {text!r} must be positive: from 1 second to 1000 years (or all)")
        seconds = round(seconds)
        return cls(int(seconds))

    @property
    def label(self) -> str:
        if self.seconds is None:
            return "all"
        for unit, size in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("min", 60)):
            if self.seconds % size == 0:
                return f"{self.seconds // size}{unit}"
        return f"{self.seconds}s"


#: Price bins per factor of ten: 1 (one bin per decade) up to 100 (amounts to about 2 %).
MAX_PER_DECADE = 100


@dataclass(frozen=True)
class PriceLevel:
    """Log-spaced price bins: ``per_decade`` bins for every factor of ten of the amount (docs/measures.md)."""

    per_decade: int = 4

    @classmethod
    def parse(cls, text: object) -> PriceLevel | None:
        """Read ``none`` (the amount is not released: None) or a number of bins per factor of ten (1-100)."""
        t = str(text).strip().lower()
        if t in ("none", "no", "off", "0", ""):
            return None
        try:
            per_decade = int(t)
        except ValueError:
            raise ValueError(
                f"price level {text!r} not understood: give none or a number of bins per factor of ten "
                "(e.g. none,3,1)"
            ) from None
        if not 1 <= per_decade <= MAX_PER_DECADE:
            raise ValueError(
                f"price level {text!r}: bins per factor of ten must be from 1 to {MAX_PER_DECADE}"
            )
        return cls(per_decade)

    @property
    def label(self) -> str:
        return f"price/{self.per_decade}"


def price_label(level: PriceLevel | None) -> str:
    """The price axis value as settings and results write it: ``none`` or the bins per factor of ten."""
    return "none" if level is None else str(level.per_decade)


@dataclass(frozen=True)
class Profile:
    """One cell of the generalization grid."""

    spatial: SpatialLevel
    temporal: TemporalLevel
    price: PriceLevel | None = None

    @classmethod
    def parse(cls, spatial: str, temporal: str, price_per_decade: int | str | None = None) -> Profile:
        """A profile from its levels; the price is ``None``/``none`` or the bins per factor of ten."""
        level = None if price_per_decade is None else PriceLevel.parse(price_per_decade)
        return cls(SpatialLevel.parse(spatial), TemporalLevel.parse(temporal), level)

    @property
    def label(self) -> str:
        parts = [self.spatial.label, self.temporal.label]
        if self.price is not None:
            parts.append(self.price.label)
        return " × ".join(parts)


def finest_first(spatial: list[str], temporal: list[str]) -> tuple[list[str], list[str]]:
    """The grid's levels ordered from fine to coarse where the order is known: time widths by length (the
    whole period last), grid squares by size in the places they hold; raw and hierarchy levels keep the
    user's order, since a square and a district do not compare. Unreadable labels keep their place."""

    def seconds(label: str) -> float:
        try:
            width = TemporalLevel.parse(label).seconds
        except ValueError:
            return math.nan
        return math.inf if width is None else float(width)

    def km(label: str) -> float:
        try:
            level = SpatialLevel.parse(label)
        except ValueError:
            return math.nan
        return level.km if level.kind == "grid" and level.km is not None else math.nan

    return _sorted_in_place(spatial, km), _sorted_in_place(temporal, seconds)


def _sorted_in_place(labels: list[str], key: Callable[[str], float]) -> list[str]:
    """``labels`` with those of a finite or infinite key sorted by it among the slots they occupy."""
    keys = [key(label) for label in labels]
    slots = [i for i, k in enumerate(keys) if not math.isnan(k)]
    ordered = sorted(slots, key=lambda i: keys[i])
    out = list(labels)
    for slot, source in zip(slots, ordered, strict=True):
        out[slot] = labels[source]
    return out
