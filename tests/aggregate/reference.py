"""Slow, obviously correct aggregates from a list of (user, utc seconds, place) events, with dicts and sets.

Places are named by their ids, time bins by the local calendar day (zoneinfo); every person is counted once
per cell; the bound keeps each person's N most frequent cells (ties: the earlier cell in (place, day) order,
origin before destination for moves).
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo


def local_day(utc: int, tz: str) -> date:
    return datetime.fromtimestamp(utc, ZoneInfo(tz)).date()


def day_text(day: date, tz: str) -> str:
    """The local midnight starting ``day`` with its UTC offset, as the file writes it."""
    return datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(tz)).isoformat()


def all_cells(rows: list[tuple[str, int, str]], tz: str, kind: str) -> list[tuple]:
    """Every cell of the full grid: (day text, place) or (day text, origin, destination)."""
    places = sorted({p for _, _, p in rows})
    days = [local_day(t, tz) for _, t, _ in rows]
    first, last = min(days), max(days)
    texts = [day_text(first + timedelta(d), tz) for d in range((last - first).days + 1)]
    if kind == "density":
        return [(t, p) for t in texts for p in places]
    return [(t, a, b) for t in texts for a in places for b in places]


def person_cells(rows: list[tuple[str, int, str]], tz: str, kind: str) -> dict[str, Counter]:
    """Person -> Counter of cells (how many events, or how many moves, fall in each)."""
    by_person: dict[str, list[tuple[int, int, str]]] = {}
    for i, (user, t, place) in enumerate(rows):
        by_person.setdefault(user, []).append((t, i, place))
    cells: dict[str, Counter] = {}
    for user, events in by_person.items():
        events.sort()  # time order; equal times keep the input order
        visits: list[tuple[str, date]] = []
        for t, _, place in events:
            point = (place, local_day(t, tz))
            if kind == "density" or not visits or visits[-1] != point:
                visits.append(point)
        counter = Counter()
        if kind == "density":
            for place, day in visits:
                counter[(day_text(day, tz), place)] += 1
        else:
            for (a, day), (b, _) in pairwise(visits):
                counter[(day_text(day, tz), a, b)] += 1
        cells[user] = counter
    return cells


def counts(rows: list[tuple[str, int, str]], tz: str, kind: str, bound: int | None) -> dict[tuple, int]:
    """People per cell of the full grid, each person in at most ``bound`` cells (None: no bound)."""
    result = dict.fromkeys(all_cells(rows, tz, kind), 0)
    for counter in person_cells(rows, tz, kind).values():
        # "earlier cell": place (or origin, destination) first, then the day
        ranked = sorted(counter, key=lambda c: (-counter[c], c[1:], c[0]))
        for cell in ranked if bound is None else ranked[:bound]:
            result[cell] += 1
    return result
