"""The risk map's aggregation: places binned into square cells, and risk classes that keep levels apart.

A city has tens of thousands of places; drawing each one is slow and unreadable at city scale. The map shows
square cells holding the risk of their riskiest place, coloured by class (quintiles of the places' risk, so
each colour covers a fifth of the places however skewed the values are), and each place only when zoomed in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.progress import TaskControl

#: Cells along the longer side of the map.
CELLS_ACROSS = 60
#: Risk classes: quintiles of the places' values.
N_CLASSES = 5


@dataclass(frozen=True)
class RiskClasses:
    """Class boundaries: class ``i`` holds values in ``[edges[i], edges[i + 1]]`` (the last one closed)."""

    edges: np.ndarray  # N_CLASSES + 1 ascending values (repeated when many places share a value)

    def of(self, values: np.ndarray) -> np.ndarray:
        """Class index of each value (0 = lowest risk); NaN gets -1."""
        values = np.asarray(values, dtype=float)
        inner = self.edges[1:-1]
        out = np.searchsorted(inner, values, side="right").astype(np.int64)
        out[~np.isfinite(values)] = -1
        return out

    def labels(self) -> list[str]:
        """``"0.012 – 0.034"`` per class, for the legend."""
        return [f"{self.edges[i]:.3g} – {self.edges[i + 1]:.3g}" for i in range(len(self.edges) - 1)]


def risk_classes(values: np.ndarray, n_classes: int = N_CLASSES) -> RiskClasses:
    """Quantile classes of the finite ``values`` (each class about 1/n of them)."""
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    if not finite.size:
        return RiskClasses(np.zeros(n_classes + 1))
    return RiskClasses(np.quantile(finite, np.linspace(0.0, 1.0, n_classes + 1)))


@dataclass(frozen=True)
class RiskCells:
    """Square cells of ``cell_km`` from ``(x0, y0)``: the highest risk of their places, and how many."""

    x0: float
    y0: float
    cell_km: float
    highest: np.ndarray  # (rows = north, columns = east); NaN where a cell holds no place
    places: np.ndarray  # number of places per cell
    classes: RiskClasses

    @property
    def shape(self) -> tuple[int, int]:
        return self.highest.shape  # type: ignore[return-value]


def bin_places(
    x: np.ndarray,
    y: np.ndarray,
    risk: np.ndarray,
    cells_across: int = CELLS_ACROSS,
    control: TaskControl | None = None,
) -> RiskCells:
    """Cells of equal size covering the places (``x``, ``y`` in km) with the maximum risk of each cell
    (``control`` only lets a worker run it: one vectorized pass, nothing to report)."""
    x, y, risk = (np.asarray(a, dtype=float) for a in (x, y, risk))
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(risk)
    x, y, risk = x[keep], y[keep], risk[keep]
    classes = risk_classes(risk)
    if not x.size:
        return RiskCells(0.0, 0.0, 1.0, np.full((0, 0), np.nan), np.zeros((0, 0), np.int64), classes)
    span = max(float(np.ptp(x)), float(np.ptp(y)), 1e-9)
    cell = span / cells_across
    columns = np.minimum(((x - x.min()) / cell).astype(np.int64), cells_across - 1)
    rows = np.minimum(((y - y.min()) / cell).astype(np.int64), cells_across - 1)
    shape = (int(rows.max()) + 1, int(columns.max()) + 1)
    flat = rows * shape[1] + columns
    highest = np.full(shape[0] * shape[1], -np.inf)
    np.maximum.at(highest, flat, risk)
    places = np.bincount(flat, minlength=highest.size)
    highest[places == 0] = np.nan
    return RiskCells(
        float(x.min()), float(y.min()), cell, highest.reshape(shape), places.reshape(shape), classes
    )
