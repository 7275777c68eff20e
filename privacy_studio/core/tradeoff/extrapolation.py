"""Population extrapolation: unicity depends on who else is in the file, so measure it on random subsets
of users (10 % … 100 %), fit the trend against n, and extrapolate to a population size — labelled as such."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.numbers import interval, number, share
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.tradeoff.powerlaw import line_fit

if TYPE_CHECKING:
    from privacy_studio.core.events import EventTable
    from privacy_studio.core.hierarchy import Hierarchy
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.risk.settings import RiskSettings

DEFAULT_FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: Trend models of ε against n, and what each one says.
MODELS: dict[str, str] = {
    "power": "ε = c · n^k (a straight line in log ε against log n)",
    "log": "ε = a + b · ln n, clipped to [0, 1]",
}


@dataclass(frozen=True)
class SubsampleCurve:
    """Risk measured on random user subsets: one row per (fraction, repeat)."""

    n: np.ndarray  # users in the subset
    risk: np.ndarray


@dataclass(frozen=True)
class TrendFit:
    """A fitted trend of risk against population size, and its quality on the fitted scale."""

    model: str
    a: float  # intercept on the fitted scale (ln c for "power")
    b: float  # slope against ln n
    r2: float

    def predict(self, n: np.ndarray | float) -> np.ndarray:
        x = np.log(np.asarray(n, dtype=np.float64))
        if self.model == "power":
            return np.clip(np.exp(self.a + self.b * x), 0.0, 1.0)
        return np.clip(self.a + self.b * x, 0.0, 1.0)

    def describe(self, population: int, measure: str = UNICITY) -> str:
        """One sentence with the extrapolated value, labelled as an extrapolation."""
        value = float(self.predict(population))
        return (
            f"Extrapolation (not a measurement): fitting {MODELS[self.model]} to the subsamples "
            f"(R² = {number(self.r2)}) gives {measure} ≈ {share(value)} for a population of {population:,} "
            "people."
        )


def subsample_curve(
    n_users: int,
    estimate: Callable[[np.ndarray], float],
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    *,
    repeats: int = 1,
    seed: int = 0,
    control: TaskControl | None = None,
) -> SubsampleCurve:
    """Call ``estimate(user_codes)`` on seeded random subsets of ``round(f * n_users)`` users per fraction."""
    if not fractions or any(not (0 < f <= 1) for f in fractions):
        raise ValueError(f"subsample fractions must lie in (0, 1], got {list(fractions)}")
    if repeats < 1:
        raise ValueError("repeats must be at least 1")
    rng = np.random.default_rng(seed)
    ns, risks = [], []
    steps = len(fractions) * repeats
    for i, f in enumerate(sorted(fractions)):
        size = max(1, round(f * n_users))
        for r in range(repeats):
            if control is not None:
                control.report((i * repeats + r) / steps, f"{size:,} users ({f:.0%})")
            keep = np.sort(rng.choice(n_users, size=size, replace=False))
            ns.append(size)
            risks.append(float(estimate(keep)))
    return SubsampleCurve(np.asarray(ns, dtype=np.float64), np.asarray(risks, dtype=np.float64))


def fit_trend(n: np.ndarray, risk: np.ndarray, model: str = "power") -> TrendFit:
    """Least-squares fit of ``model`` (see :data:`MODELS`) to risk against n."""
    if model not in MODELS:
        raise ValueError(f"unknown trend model {model!r}; use one of {', '.join(MODELS)}")
    n = np.asarray(n, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    use = np.isfinite(risk) & (n > 0) & ((risk > 0) if model == "power" else True)
    x = np.log(n[use])
    y = np.log(risk[use]) if model == "power" else risk[use]
    if len(np.unique(x)) < 2:
        raise ValueError(
            "the trend needs subsamples of at least two sizes" + (" with ε > 0" if model == "power" else "")
        )
    b, a, r2 = line_fit(x, y)
    return TrendFit(model, a, b, r2)


#: Beyond this multiple of the largest measured subsample, an extrapolation is flagged as far-fetched.
FAR_FACTOR = 10


@dataclass(frozen=True)
class Extrapolation:
    """The trend's value at ``population`` with a bootstrap 95 % interval over the subsamples."""

    fit: TrendFit
    population: int
    value: float
    low: float
    high: float
    measured_max: float  # the largest subsample measured

    @property
    def far(self) -> bool:
        """Whether the population lies more than :data:`FAR_FACTOR` times beyond what was measured."""
        return self.population > FAR_FACTOR * self.measured_max

    def describe(self, measure: str = UNICITY) -> str:
        """The extrapolation with its interval, labelled as such, and flagged when far beyond the data."""
        text = (
            f"{self.fit.describe(self.population, measure)} Bootstrap 95 % interval over the subsamples: "
            f"{interval([self.low, self.high])}."
        )
        if self.far:
            text += (
                f" {self.population:,} people is more than {FAR_FACTOR} times the {int(self.measured_max):,} "
                "measured: the trend may not hold that far, treat this as a rough indication only."
            )
        return text


def extrapolate(
    n: np.ndarray, risk: np.ndarray, population: int, model: str = "power", *, boot: int = 400, seed: int = 0
) -> Extrapolation:
    """Fit ``model`` to the subsamples and read it at ``population``; the interval is the 2.5-97.5 %
    percentiles of the same read-out over ``boot`` resamplings (with replacement) of the subsamples."""
    n = np.asarray(n, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    fit = fit_trend(n, risk, model)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(boot):
        pick = rng.integers(0, len(n), len(n))
        try:
            values.append(float(fit_trend(n[pick], risk[pick], model).predict(population)))
        except ValueError:  # a resample with a single subsample size has no trend
            continue
    low, high = np.percentile(values, [2.5, 97.5]) if values else (np.nan, np.nan)
    return Extrapolation(
        fit, population, float(fit.predict(population)), float(low), float(high), float(n.max())
    )


def runner_estimator(
    data: Dataset | EventTable,
    settings: RiskSettings,
    measure: str = UNICITY,
    p: int | None = 4,
    hierarchy: Hierarchy | None = None,
) -> Callable[[np.ndarray], float]:
    """An ``estimate`` for :func:`subsample_curve`: the risk engine on the first profile of ``settings``.

    ``data`` is a Dataset (its hierarchy is used) or an EventTable with ``hierarchy``.
    """
    from privacy_studio.core.runner import run_grid

    events = getattr(data, "events", data)
    levels = hierarchy if hierarchy is not None else getattr(data, "hierarchy", None)
    one = replace(settings, cells=[settings.cell_labels()[0]], price=settings.price[:1])

    def estimate(keep: np.ndarray) -> float:
        result = next(iter(run_grid(events.subset_users(keep), one, levels)))
        entry = next((e for e in result.to_dict()["by_p"] if e.get("p") == p), None)
        if entry is None or entry.get(measure) is None:
            raise ValueError(f"the risk engine returned no {measure} at p = {p}")
        return float(entry[measure])

    return estimate
