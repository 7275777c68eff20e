"""The risk results of a grid as plain per-profile arrays, from ``ProfileResult`` objects or their JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from privacy_studio.core.risk.catalogue import RISK_FIELDS

#: Risk measures of a ``by_p`` entry (higher = riskier, the catalogue's fields) and the key of their interval.
RISK_MEASURES: dict[str, str | None] = {name: f.interval for name, f in RISK_FIELDS.items()}


@dataclass
class GridTable:
    """One row per profile: label, levels, and the ``by_p`` entries of the risk engine's results."""

    labels: list[str]
    spatial: list[str]
    temporal: list[str]
    n_users: np.ndarray
    by_p: list[dict]  # per profile: {p: by_p entry}

    def p_values(self) -> list:
        """The p values present in every profile (``None`` for explicit knowledge), ascending."""
        if not self.by_p:
            return []
        common = set.intersection(*(set(d) for d in self.by_p))
        return sorted(common, key=lambda p: -1 if p is None else p)

    def values(self, measure: str, p: int | None) -> np.ndarray:
        """The measure's value per profile at ``p``; NaN where that profile lacks it."""
        _check_measure(measure)
        return np.asarray([_number(d.get(p, {}).get(measure)) for d in self.by_p], dtype=np.float64)

    def upper(self, measure: str, p: int | None) -> np.ndarray | None:
        """Upper ends of the measure's 95 % intervals per profile, or None if the measure has none."""
        key = RISK_MEASURES[_check_measure(measure)]
        if key is None:
            return None
        rows = [d.get(p, {}).get(key) for d in self.by_p]
        return np.asarray([_number(r[1]) if r else np.nan for r in rows], dtype=np.float64)

    def measures(self, p: int | None) -> dict[str, np.ndarray]:
        """Every risk measure that at least one profile has at ``p``."""
        out = {m: self.values(m, p) for m in RISK_MEASURES}
        return {m: v for m, v in out.items() if np.isfinite(v).any()}


def grid_table(profiles: Iterable) -> GridTable:
    """Build from ``ProfileResult`` objects or their ``to_dict()`` (the ``profiles`` list of the JSON)."""
    rows = [p.to_dict() if hasattr(p, "to_dict") else p for p in profiles]
    labels, spatial, temporal, n_users, by_p = [], [], [], [], []
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or "spatial" not in row or "temporal" not in row:
            raise ValueError(f"profile entry {i + 1} has no 'spatial' and 'temporal' keys: not a risk result")
        spatial.append(str(row["spatial"]))
        temporal.append(str(row["temporal"]))
        labels.append(str(row.get("label") or f"{row['spatial']} × {row['temporal']}"))
        n_users.append(_number(row.get("n_users")))
        by_p.append({entry.get("p"): entry for entry in row.get("by_p", [])})
    if len(set(labels)) != len(labels):
        raise ValueError("the results list the same profile twice")
    return GridTable(labels, spatial, temporal, np.asarray(n_users, dtype=np.float64), by_p)


def _check_measure(measure: str) -> str:
    if measure not in RISK_MEASURES:
        raise ValueError(f"unknown risk measure {measure!r}; use one of {', '.join(RISK_MEASURES)}")
    return measure


def _number(value: object) -> float:
    return np.nan if value is None else float(value)  # type: ignore[arg-type]
