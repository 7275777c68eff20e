"""Risk results as the plots read them: the JSON records of ``ProfileResult.to_dict()``.

The window keeps results typed (the project's ``ProfileResult`` list; the Decide step reads them so); the
plots read their records. Live results and results read back from a project file take the same form, so
every plot reads one shape and the saved project reproduces the window exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from privacy_studio.core.naming import price_short, priced_profile_name, profile_short
from privacy_studio.core.risk.results import ProfileResult

Record = dict[str, Any]


def records_of(results: list[ProfileResult]) -> list[Record]:
    """The records of a project's typed results, as the plots and tables read them."""
    return [r.to_dict() for r in results]


@dataclass(frozen=True)
class ArrivedResult:
    """A profile a run has just finished, with its record made in the run's worker (off the GUI thread)."""

    result: ProfileResult
    record: Record


class RecordCache:
    """The records of typed results, each made once: a result is replaced when it changes, never mutated,
    so its record stays right while the result is kept (making the records of all 12 results of a grid
    again at each arrival took the GUI thread 24 ms at the end of a run)."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[ProfileResult, Record]] = {}  # by id; the result is held, so ids stay

    def seed(self, result: ProfileResult, record: Record) -> None:
        """Use ``record``, made elsewhere, as ``result``'s record."""
        self._made[id(result)] = (result, record)

    def records(self, results: list[ProfileResult]) -> list[Record]:
        """The records of ``results``, in order; results no longer listed are forgotten."""
        pairs = [self._made.get(id(r)) or (r, r.to_dict()) for r in results]
        self._made = {id(r): (r, record) for r, record in pairs}
        return [record for _r, record in pairs]


def profile_label(rec: Record | ProfileResult) -> str:
    """The profile's key (``grid:5 × 1h``): what results are matched and exported by (a typed result is
    read as is, not turned into its record first)."""
    if isinstance(rec, ProfileResult):
        return rec.label or f"{rec.spatial} × {rec.temporal}"
    return str(rec.get("label") or f"{rec['spatial']} × {rec['temporal']}")


def profile_title(rec: Record) -> str:
    """The profile as legends, axes and choosers show it (``5 km squares × 1h``); its key if unreadable."""
    try:
        title = profile_short(str(rec["spatial"]), str(rec["temporal"]))
        price = str(rec.get("price") or "none")
        return title if price == "none" else f"{title} × {price_short(price)}"
    except (KeyError, ValueError):
        return profile_label(rec)


def profile_tooltip(rec: Record) -> str:
    """The profile in words (``districts, 1-week bins``), for tooltips."""
    try:
        return priced_profile_name(str(rec["spatial"]), str(rec["temporal"]), str(rec.get("price") or "none"))
    except (KeyError, ValueError):
        return profile_label(rec)


def by_p(rec: Record, p: int | None) -> Record | None:
    """The entry of ``rec['by_p']`` for knowledge size ``p`` (or the only entry for explicit knowledge)."""
    entries = rec.get("by_p") or []
    for entry in entries:
        if entry.get("p") == p or entry.get("p") is None:
            return entry
    return None


def series(rec: Record, key: str) -> tuple[list[float], list[float]]:
    """Pairs (p, value) of one measure across p, skipping entries where it was not computed."""
    ps, values = [], []
    for entry in rec.get("by_p") or []:
        value = entry.get(key)
        if entry.get("p") is not None and isinstance(value, int | float) and not math.isnan(value):
            ps.append(float(entry["p"]))
            values.append(float(value))
    return ps, values


def p_values(records: list[Record]) -> list[int]:
    """Every knowledge size present in the records, ascending."""
    return sorted({int(e["p"]) for r in records for e in r.get("by_p") or [] if e.get("p") is not None})
