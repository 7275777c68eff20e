"""Privacy-utility trade-off (metrics.md §7): Pareto front, ordinal equivalence, recommendation, and the
analyses beyond the grid (power law, population extrapolation, risk by group)."""

from __future__ import annotations

from privacy_studio.core.tradeoff.grid import GridTable, grid_table
from privacy_studio.core.tradeoff.ordinal import OrdinalTable, ordinal_equivalence
from privacy_studio.core.tradeoff.pareto import ParetoResult, pareto
from privacy_studio.core.tradeoff.recommend import Recommendation, recommend

__all__ = [
    "GridTable",
    "OrdinalTable",
    "ParetoResult",
    "Recommendation",
    "grid_table",
    "ordinal_equivalence",
    "pareto",
    "recommend",
]
