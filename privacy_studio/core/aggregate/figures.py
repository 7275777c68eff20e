"""What the released cells are worth and what the bound cost, measured against the true aggregates.

These figures are computed on the true counts, so they carry none of the noise's protection: they are for
the officer's decision (manifest, report, dialog), not for publication with the file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privacy_studio.core.aggregate.cells import BoundedCounts
from privacy_studio.core.aggregate.footing import FinestScore

#: The computed utility score (docs/tradeoff.md) each kind of aggregate is judged by, and its name in words.
SCORE_OF_KIND = {"density": "density_map", "od": "od_matrix"}
SCORE_WORDS = {"density_map": "density map", "od_matrix": "origin–destination"}


def map_loss(true: np.ndarray, released: np.ndarray) -> float:
    """Normalized L1 distance Σ|released − true| / (Σ released + Σ true) over every cell, in [0, 1].

    It is the loss of docs/tradeoff.md's density-map and OD scores with nothing to spread back: the released
    cells are the true aggregate's own cells.
    """
    total = float(true.sum() + released.sum())
    return 0.0 if total == 0 else float(np.abs(released - true).sum()) / total


@dataclass(frozen=True)
class AggregateFigures:
    """The bound's cut, the observed error and the utility of the file, all against the true counts."""

    people: int  # people with at least one contribution
    people_cut: int  # people with more cells than the bound (some of their cells not counted)
    contributions: int  # (person, cell) pairs in the true aggregate
    contributions_cut: int  # of them, dropped by the bound
    cells: int
    mean_abs_error_true: float  # mean |released − true| per cell: noise and bound together
    mean_abs_error_bounded: float  # mean |released − bounded| per cell: the noise alone (after clamping)
    score: str  # density_map | od_matrix
    utility: float  # 10 × (1 − map_loss(true, released))
    utility_bound_only: float  # 10 × (1 − map_loss(true, bounded)): what the bound alone costs
    finest: str | None = None  # the grid's finest profile, which microdata candidates are scored against
    utility_vs_finest: float | None = None  # the density-map score against it, as a microdata candidate's
    vs_finest_problem: str = ""  # why there is no such score

    @classmethod
    def measure(
        cls, kind: str, counts: BoundedCounts, released: np.ndarray, vs_finest: FinestScore
    ) -> AggregateFigures:
        """The figures of ``released`` cells against the true and bounded counts of ``counts``."""
        n = len(released)
        return cls(
            counts.people,
            counts.people_cut,
            counts.contributions,
            counts.contributions_cut,
            n,
            float(np.abs(released - counts.true).mean()) if n else 0.0,
            float(np.abs(released - counts.bounded).mean()) if n else 0.0,
            SCORE_OF_KIND[kind],
            10.0 * (1.0 - map_loss(counts.true, released)),
            10.0 * (1.0 - map_loss(counts.true, counts.bounded)),
            vs_finest.finest,
            vs_finest.utility,
            vs_finest.problem,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
