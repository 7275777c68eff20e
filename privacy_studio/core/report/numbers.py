"""How the report writes numbers: one formatter per kind, so tests format the core's values the same way."""

from __future__ import annotations

import math
from collections.abc import Sequence


def _missing(value: float | None) -> bool:
    return value is None or not math.isfinite(value)


def share(value: float | None) -> str:
    """A proportion as a percentage with one decimal ("12.3%"); a dash when unknown."""
    return "–" if _missing(value) else f"{100.0 * value:.1f}%"


def interval(ci: Sequence[float | None] | None) -> str:
    """A 95 % interval of proportions as "[10.2%, 14.5%]"; empty when unknown."""
    if not ci or len(ci) != 2 or _missing(ci[0]) or _missing(ci[1]):
        return ""
    return f"[{share(ci[0])}, {share(ci[1])}]"


def number(value: float | None, digits: int = 4) -> str:
    """A measurement with ``digits`` significant digits ("0.004213"); a dash when unknown."""
    return "–" if _missing(value) else f"{value:.{digits}g}"


def count(value: float | None) -> str:
    """A whole count with thousands separators ("12,345"); a dash when unknown."""
    return "–" if _missing(value) else f"{round(value):,}"
