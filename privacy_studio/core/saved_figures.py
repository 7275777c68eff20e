"""Range checks for risk figures read back from a project file: a share outside [0, 1], an interval that
does not hold its estimate or a negative count is refused, since the window and the report would show it."""

from __future__ import annotations

import math
from typing import Any

#: Figures that are shares of people or of draws.
SHARE_KEYS = ("unicity", "k_disclosure", "worst_share_at_1", "fill_rate")
#: Figures that are non-negative amounts (divergences, mean worst-case risk).
AMOUNT_KEYS = ("em", "kl", "worst_mean")
#: Figures that count people, draws or cells.
COUNT_KEYS = ("n_sampled", "n_excluded", "n_draws", "em_users", "n_users", "d", "nnz", "n_events")


def check_saved_result(result: dict[str, Any], where: str) -> None:
    """ValueError naming ``where`` and the figure when one of ``result``'s figures is out of its range."""
    _check_figures(result, where)
    for i, row in enumerate(result.get("by_p") or []):
        if not isinstance(row, dict):
            raise ValueError(f"{where}.by_p[{i}] is not an object")
        _check_figures(row, f"{where}.by_p[{i}]")


def _check_figures(d: dict[str, Any], where: str) -> None:
    for key in SHARE_KEYS:
        for label, value in _values(d, key, where):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{where}.{label} is {value}, but a share lies between 0 and 1")
    for key in AMOUNT_KEYS:
        for label, value in _values(d, key, where):
            if value < 0 or math.isinf(value):
                raise ValueError(f"{where}.{label} is {value}, expected a finite number ≥ 0")
    for key in COUNT_KEYS:
        value = d.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{where}.{key} is {value!r}, expected a whole number ≥ 0")
    _check_interval(d, where)


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


def _check_interval(d: dict[str, Any], where: str) -> None:
    ci = d.get("unicity_ci")
    if ci is None:
        return
    if (
        not isinstance(ci, list | tuple)
        or len(ci) != 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in ci)
    ):
        raise ValueError(f"{where}.unicity_ci is {ci!r}, expected [lower, upper]")
    low, high = float(ci[0]), float(ci[1])
    estimate = d.get("unicity")
    slack = 1e-9  # the estimate and its bounds are rounded separately
    numeric = isinstance(estimate, int | float)
    inside = not numeric or low - slack <= estimate <= high + slack
    if not (0.0 <= low <= high <= 1.0) or not inside:
        raise ValueError(
            f"{where}.unicity_ci is [{low}, {high}], which must lie within [0, 1] and hold the unicity "
            f"{estimate}"
        )
