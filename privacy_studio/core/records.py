"""Versioned records as a project file keeps them: the validation every ``from_dict`` of the typed analyses
and the trade-off's records shares (one clear sentence per problem, naming the field)."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any


class AnalysisError(ValueError):
    """A saved analysis that does not have the expected shape; the message names the field."""


def number_in(value: Any, where: str, low: float = -math.inf, high: float = math.inf) -> float:
    """``value`` as a float when it is a number from ``low`` to ``high``; AnalysisError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not (low <= value <= high):
        raise AnalysisError(f"{where} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def whole(value: Any, where: str, low: int = 0) -> int:
    """``value`` when it is a whole number of at least ``low``; AnalysisError otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise AnalysisError(f"{where} must be a whole number ≥ {low}, got {value!r}")
    return value


def p_value(value: Any, where: str) -> int | None:
    """A number of known points (≥ 1), or None for explicit knowledge."""
    return None if value is None else whole(value, where, 1)


def check_version(d: dict[str, Any], cls: type, where: str) -> None:
    version = d.get("version", 1)
    if version != cls.VERSION:
        raise AnalysisError(f"{where}: version {version!r} is not one this studio reads ({cls.VERSION})")


def versioned(analysis: Any) -> dict[str, Any]:
    """A flat analysis dataclass as JSON, with its version first."""
    return {"version": analysis.VERSION, **asdict(analysis)}


def paired_lists(d: dict[str, Any], a: str, b: str, where: str) -> tuple[list[Any], list[Any]]:
    """Two lists of ``d`` that go together, one entry per item: ``AnalysisError`` unless they do."""
    first, second = d.get(a), d.get(b)
    if not isinstance(first, list) or not isinstance(second, list) or len(first) != len(second):
        raise AnalysisError(f"{where}: {a!r} and {b!r} must be lists of the same length")
    return first, second


def json_object(d: Any, where: str) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise AnalysisError(f"{where} must be an object, got {type(d).__name__}")
    return d


def finite_or_none(value: Any) -> Any:
    """``value`` with NaN and infinities as None (JSON has neither)."""
    return None if isinstance(value, float) and not math.isfinite(value) else value
