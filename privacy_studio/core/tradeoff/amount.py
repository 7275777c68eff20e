"""What releasing the amount adds to the risk of card transactions: per places-and-times profile, the risk
with the amount in price bins against the same profile with the amount not released (docs/measures.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from privacy_studio.core.tradeoff.grid import GridTable

#: de Montjoye et al., "Unique in the shopping mall" (Science, 2015): knowing the approximate amount of
#: each transaction raised unicity by 22 % on average (relative), with bins growing by a factor of ~3.
SOURCE_RELATIVE_RISE = 0.22


@dataclass(frozen=True)
class AmountEffect:
    """One (places, times, price choice) profile's risk beside the same places and times without amount."""

    spatial: str
    temporal: str
    price: str  # bins per factor of ten
    label: str
    without: float  # risk with the amount not released (NaN: not computed)
    with_amount: float  # risk with the amount in price bins (NaN: not computed)

    @property
    def absolute(self) -> float:
        """The rise in risk (a share: 0.05 = 5 percentage points of unicity)."""
        return self.with_amount - self.without

    @property
    def relative(self) -> float:
        """The rise relative to the risk without the amount (0.22 = 22 %); NaN when that risk is 0."""
        return self.absolute / self.without if self.without > 0 else math.nan


def amount_effects(grid: GridTable, measure: str, p: int | None) -> list[AmountEffect]:
    """Every priced profile of ``grid`` whose places and times were also evaluated without the amount, in
    grid order; profiles without that baseline are left out (nothing to compare with)."""
    values = grid.values(measure, p)
    out = []
    for i, price in enumerate(grid.price):
        base = grid.without_amount(i)
        if price == "none" or base is None:
            continue
        out.append(
            AmountEffect(
                grid.spatial[i],
                grid.temporal[i],
                price,
                grid.labels[i],
                float(values[base]),
                float(values[i]),
            )
        )
    return out
