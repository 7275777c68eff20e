"""Range checks for risk figures read back from a project file: a share outside [0, 1], an interval that
does not hold its estimate or a negative count is refused, since the window and the report would show it.

The measure catalogue says which figures are shares (``proportion``) and which are amounts (the other
units), so a new measure is checked without being listed here; the result types say which are counts."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

from privacy_studio.core.risk.catalogue import RISK_FIELDS
from privacy_studio.core.risk.results import PResult, ProfileResult

#: Figures that are shares of people or of draws: the catalogue's proportions and the results' own shares.
SHARE_KEYS = (*(name for name, f in RISK_FIELDS.items() if f.proportion), "unicity_all_points", "fill_rate")
#: Rounding a share may take it this far past 0 or 1 (a mean of weighted draws summing to 1 + 2e-16).
SLACK = 1e-9
#: Figures that are non-negative amounts (divergences, disclosure): the catalogue's other fields.
AMOUNT_KEYS = tuple(name for name, f in RISK_FIELDS.items() if not f.proportion)
#: Figures that count people, draws or cells: the whole-number fields of the result types.
COUNT_KEYS = tuple(
    f.name
    for cls in (PResult, ProfileResult)
    for f in fields(cls)
    if f.type in ("int", "int | None") and f.name != "p"
)


def check_saved_result(result: dict[str, Any], where: str) -> None:
    """ValueError naming ``where`` and the figure when one of ``result``'s figures is out of its range."""
    _check_figures(result, where)
    if not isinstance(result.get("by_p") or [], list):
        raise ValueError(f"{where}.by_p is not a list")
    for i, row in enumerate(result.get("by_p") or []):
        if not isinstance(row, dict):
            raise ValueError(f"{where}.by_p[{i}] is not an object")
        _check_figures(row, f"{where}.by_p[{i}]")


def _check_figures(d: dict[str, Any], where: str) -> None:
    for key in SHARE_KEYS:
        for label, value in _values(d, key, where):
            if not -SLACK <= value <= 1.0 + SLACK:
                raise ValueError(f"{where}.{label} is {value}, but a share lies between 0 and 1")
    for key in AMOUNT_KEYS:
        for label, value in _values(d, key, where):
            if value < 0 or math.isinf(value):
                raise ValueError(f"{where}.{label} is {value}, expected a finite number ≥ 0")
    for key in COUNT_KEYS:
        value = d.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{where}.{key} is {value!r}, expected a whole number ≥ 0")
    _check_intervals(d, where)


def _values(d: dict[str, Any], key: str, where: str) -> list[tuple[str, float]]:
    """The numbers stored under ``key``: one number, or a {p: number} object (older schemas)."""
    value = d.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        items = [(None, value)]
    out = []
    for sub, number in items:
        label = key if sub is None else f"{key}[{sub}]"
        if number is None:
            continue
        if isinstance(number, bool) or not isinstance(number, int | float) or math.isnan(number):
            raise ValueError(f"{where}.{label} is {number!r}, expected a number")
        out.append((label, float(number)))
    return out


def _check_intervals(d: dict[str, Any], where: str) -> None:
    """Every catalogue field's 95 % interval: [lower, upper] within [0, 1] holding its estimate."""
    for name, f in RISK_FIELDS.items():
        if f.interval is None or d.get(f.interval) is None:
            continue
        ci, key = d[f.interval], f.interval
        if (
            not isinstance(ci, list | tuple)
            or len(ci) != 2
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in ci)
        ):
            raise ValueError(f"{where}.{key} is {ci!r}, expected [lower, upper]")
        low, high = float(ci[0]), float(ci[1])
        estimate = d.get(name)
        numeric = isinstance(estimate, int | float)
        inside = not numeric or low - SLACK <= estimate <= high + SLACK  # rounded separately
        if not (0.0 <= low <= high <= 1.0) or not inside:
            raise ValueError(
                f"{where}.{key} is [{low}, {high}], which must lie within [0, 1] and hold the {f.label} "
                f"{estimate}"
            )
