"""Power law of risk against coarseness (de Montjoye et al.): log ε_p = log c + k log(area x width).

Coarseness of a profile = mean spatial unit area (km²) x time-bin width (hours); see ``docs/tradeoff.md``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial import ConvexHull, QhullError

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import SpatialLevel, TemporalLevel, spatial_units
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number, share
from privacy_studio.core.progress import TaskControl


@dataclass(frozen=True)
class PowerLawFit:
    """Least-squares line in log-log space; ``r2`` is computed on the logs."""

    log_prefactor: float  # ln c
    exponent: float  # k
    r2: float
    n_used: int
    left_out: list[str]  # profiles without a positive risk or a known size

    @property
    def prefactor(self) -> float:
        return math.exp(self.log_prefactor) if self.log_prefactor < 700 else math.inf

    def predict(self, size: np.ndarray | float) -> np.ndarray:
        with np.errstate(over="ignore", divide="ignore"):  # extreme fits give inf / 0, not warnings
            return np.exp(self.log_prefactor + self.exponent * np.log(np.asarray(size, dtype=np.float64)))

    def size_for(self, ceiling: float) -> float:
        """Coarseness (km² x h) at which the fitted risk falls to ``ceiling``; NaN if risk does not fall."""
        if not (ceiling > 0) or self.exponent >= 0:
            return float("nan")
        with np.errstate(over="ignore"):
            return float(np.exp((math.log(ceiling) - self.log_prefactor) / self.exponent))


def unit_area_km2(level: SpatialLevel, unit_xy: np.ndarray | None, region_km2: float | None = None) -> float:
    """Mean area of one spatial unit: L² for a grid of side L, else the area of the region divided by the
    number of units. The region is ``region_km2`` (see :func:`region_area_km2`) or, if not given, the convex
    hull of the units' centres (which shrinks for a few large units); NaN when it cannot be known."""
    if level.kind == "grid":
        return float(level.km) ** 2
    if unit_xy is None or len(unit_xy) == 0:
        return float("nan")
    region = hull_area_km2(unit_xy) if region_km2 is None else region_km2
    return float(region / len(unit_xy))


def hull_area_km2(xy: np.ndarray) -> float:
    """Area of the convex hull of the finite points; NaN with fewer than three non-collinear points."""
    xy = np.asarray(xy, dtype=np.float64)
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 3:
        return float("nan")
    try:
        return float(ConvexHull(xy).volume)  # in 2-D, ``volume`` is the area
    except QhullError:
        return float("nan")


def region_area_km2(events: EventTable) -> float:
    """Area covered by the data: the convex hull of the known locations, else of the distinct coordinates."""
    if events.locations is not None:
        return hull_area_km2(np.column_stack([events.locations.x_km, events.locations.y_km]))
    if events.has_coordinates():
        return hull_area_km2(spatial_units(events, SpatialLevel("raw")).xy)
    return float("nan")


def unit_areas(events: EventTable, levels: list[str], hierarchy: Hierarchy | None = None) -> dict[str, float]:
    """Mean unit area (km²) of every spatial level label: the data's region shared by the level's units."""
    region = region_area_km2(events)
    out = {}
    for label in levels:
        level = SpatialLevel.parse(label)
        if level.kind == "grid":
            out[label] = unit_area_km2(level, None)
            continue
        try:
            n_units = spatial_units(events, level, hierarchy).n_units
        except ValueError:
            n_units = 0
        out[label] = region / n_units if n_units else math.nan
    return out


def dataset_unit_areas(dataset: Any, control: TaskControl | None = None) -> tuple[dict[str, float], float]:
    """Unit areas of every named spatial level a dataset offers (raw, its hierarchy levels) and its
    observation period in seconds: what the power law needs besides the risk results."""
    hierarchy = dataset.hierarchy
    levels = ["raw"] + ([hierarchy.location_level, *hierarchy.levels] if hierarchy is not None else [])
    start, end = dataset.events.period()
    return unit_areas(dataset.events, levels, hierarchy), float(end - start)


def width_hours(level: TemporalLevel, period_seconds: float) -> float:
    """Width of one time bin in hours; ``all`` counts as the whole observation period."""
    seconds = level.seconds if level.seconds is not None else period_seconds
    return float(seconds) / 3600.0


def fit_power_law(labels: list[str], size: np.ndarray, risk: np.ndarray) -> PowerLawFit:
    """Fit ``risk = c * size**k`` over profiles with positive risk and size (at least two sizes needed)."""
    size = np.asarray(size, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    use = np.isfinite(size) & np.isfinite(risk) & (size > 0) & (risk > 0)
    x, y = np.log(size[use]), np.log(risk[use])
    if len(np.unique(x)) < 2:
        raise ValueError(
            "the power law needs profiles of at least two different coarseness with a positive risk"
        )
    k, logc, r2 = line_fit(x, y)
    left_out = [label for label, u in zip(labels, use, strict=True) if not u]
    return PowerLawFit(logc, k, r2, int(use.sum()), left_out)


def line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares slope, intercept and R² of y against x (R² = 1 when y is constant)."""
    dx, dy = x - x.mean(), y - y.mean()
    slope = (dx * dy).sum() / (dx * dx).sum()
    intercept = y.mean() - slope * x.mean()
    spread = (dy * dy).sum()
    r2 = 1.0 - ((dy - slope * dx) ** 2).sum() / spread if spread > 0 else 1.0
    return float(slope), float(intercept), float(r2)


@dataclass(frozen=True)
class GuardedPowerLaw:
    """A power law fitted only on profiles with risk strictly between 0 and 1, quoted only inside the
    range of coarseness it was fitted on, and clipped to [0, 1]."""

    fit: PowerLawFit
    measured_range: tuple[float, float]  # smallest and largest coarseness fitted (km² x h)

    @property
    def exponent(self) -> float:
        return self.fit.exponent

    @property
    def r2(self) -> float:
        return self.fit.r2

    @property
    def n_used(self) -> int:
        return self.fit.n_used

    def to_dict(self, ceiling: float) -> dict[str, Any]:
        """JSON form: the fit, its quality, the range it may speak for, and the size for ``ceiling`` (null
        when that lies beyond the measured range)."""
        return {
            "log_prefactor": self.fit.log_prefactor,
            "exponent": self.fit.exponent,
            "r2": self.fit.r2,
            "n_used": self.fit.n_used,
            "left_out": self.fit.left_out,
            "measured_range": list(self.measured_range),
            "coarseness_for_ceiling": self.size_for(ceiling),
        }

    def inside(self, size: float) -> bool:
        low, high = self.measured_range
        return bool(low <= size <= high)

    def predict(self, size: float) -> float | None:
        """Fitted risk at ``size`` clipped to [0, 1]; None beyond the measured range (no number there)."""
        if not (math.isfinite(size) and self.inside(size)):
            return None
        return float(np.clip(self.fit.predict(size), 0.0, 1.0))

    def size_for(self, ceiling: float) -> float | None:
        """Coarseness where the fitted risk reaches ``ceiling``, only when it lies in the measured range."""
        target = self.fit.size_for(ceiling)
        return target if math.isfinite(target) and self.inside(target) else None

    def contradictions(
        self, labels: list[str], size: np.ndarray, risk: np.ndarray, ceiling: float
    ) -> list[tuple[str, float, float]]:
        """Measured profiles on the other side of ``ceiling`` than the fit: (label, measured, fitted)."""
        out = []
        for label, s, r in zip(labels, size, risk, strict=True):
            fitted = self.predict(float(s))
            if fitted is not None and math.isfinite(r) and (r <= ceiling) != (fitted <= ceiling):
                out.append((label, float(r), fitted))
        return out


def guarded_power_law(labels: list[str], size: np.ndarray, risk: np.ndarray) -> GuardedPowerLaw:
    """Fit :func:`fit_power_law` on the profiles whose risk lies strictly between 0 and 1 (0 and 1 have no
    logarithm on the curve's scale: they are listed in ``left_out``); ``ValueError`` if fewer than two
    distinct sizes remain."""
    size = np.asarray(size, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    inner = np.where((risk > 0) & (risk < 1), risk, np.nan)
    fit = fit_power_law(labels, size, inner)
    used = np.isfinite(size) & np.isfinite(inner) & (size > 0)
    return GuardedPowerLaw(fit, (float(size[used].min()), float(size[used].max())))


def guarded_text(
    law: GuardedPowerLaw,
    ceiling: float,
    measure: str,
    labels: list[str],
    size: np.ndarray,
    risk: np.ndarray,
) -> str:
    """What the guarded fit says about ``ceiling`` in words, never quoting a size beyond the measured range
    and naming every measured profile it contradicts (the measurement holds there)."""
    fit = law.fit
    low, high = law.measured_range
    lines = [
        f"The fit {measure} ≈ {number(fit.prefactor)} × (km² × h)^{number(fit.exponent)} (clipped to [0, 1]) "
        f"has R² = {number(fit.r2)} over {fit.n_used} profiles with {measure} strictly between 0 and 1, "
        f"measured from {number(low)} to {number(high)} km²·h."
    ]
    target = law.size_for(ceiling)
    if fit.exponent >= 0:
        lines.append("It does not decrease with coarseness, so it predicts no coarsening for the ceiling.")
    elif target is not None:
        lines.append(
            f"Inside that range it reaches {share(ceiling)} at about {number(target)} km²·h; this is a "
            "trend read off the grid, not a measurement."
        )
    elif fit.size_for(ceiling) > high:
        lines.append(
            f"It stays above {share(ceiling)} over the measured range: reaching it is beyond the measured "
            "range."
        )
    else:
        lines.append(f"It is at or below {share(ceiling)} over the whole measured range.")
    for label, measured, fitted in law.contradictions(labels, size, risk, ceiling):
        lines.append(
            f"At {label_words(label)} the fit gives {share(fitted)} but the measurement is "
            f"{share(measured)}, on the other side of the ceiling: the measured value holds."
        )
    return " ".join(lines)
