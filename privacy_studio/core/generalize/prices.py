"""Price bins: amounts by magnitude class, N classes per factor of ten, with edges computed in decimal so
every engine compares amounts with the very same numbers."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext
from functools import lru_cache

import numpy as np

from privacy_studio.core.generalize.levels import PriceLevel


@lru_cache(maxsize=4096)
def price_edge(k: int, per_decade: int) -> float:
    """The lower edge 10^(k / per_decade) of magnitude class ``k``, correctly rounded to a double (computed in
    decimal, so every engine compares amounts with the very same numbers)."""
    with localcontext() as ctx:
        ctx.prec = 50
        return float(Decimal(10) ** (Decimal(k) / Decimal(per_decade)))


def price_edges(lo: int, hi: int, per_decade: int) -> np.ndarray:
    """Edges of the magnitude classes ``lo..hi`` (inclusive) as an array."""
    return np.asarray([price_edge(k, per_decade) for k in range(lo, hi + 1)], dtype=np.float64)


def magnitude_classes(magnitude: np.ndarray, per_decade: int) -> np.ndarray:
    """The class k of every positive ``magnitude``: ``price_edge(k) <= magnitude < price_edge(k + 1)``.

    floor(per_decade · log10 m) is only a guess (log10 may be one unit in the last place off next to an
    edge, differently in numpy, DuckDB and Spark); comparing with the exact edges settles it.
    """
    if not len(magnitude):
        return np.zeros(0, dtype=np.int64)
    guess = np.floor(per_decade * np.log10(magnitude)).astype(np.int64)
    lo = int(guess.min()) - 1
    edges = price_edges(lo, int(guess.max()) + 2, per_decade)
    below = magnitude < edges[guess - lo]
    above = magnitude >= edges[guess - lo + 1]
    return guess - below + above


@dataclass(frozen=True)
class PriceBins:
    """The price bin of every event and what each bin covers.

    Bins run along the number line: refunds (negative amounts) from the largest down, then zero (its own
    bin) if any amount is 0, then positive amounts from the smallest class up. A refund's class is its
    magnitude's; the classes between the smallest and largest seen of each sign are all counted (as time
    bins between the first and the last event), classes of no event included.
    """

    bins: np.ndarray  # int64 bin of every event, 0..n_bins-1
    layout: PriceLayout

    @property
    def n_bins(self) -> int:
        return self.layout.n_bins


@dataclass(frozen=True)
class PriceLayout:
    """Which bins a price axis has: refund classes ``neg_lo..neg_hi``, zero, positive ``pos_lo..pos_hi``."""

    per_decade: int
    neg: tuple[int, int] | None  # (smallest, largest) magnitude class of the refunds; None without any
    zero: bool
    pos: tuple[int, int] | None

    @property
    def n_negative(self) -> int:
        return 0 if self.neg is None else self.neg[1] - self.neg[0] + 1

    @property
    def n_bins(self) -> int:
        n_pos = 0 if self.pos is None else self.pos[1] - self.pos[0] + 1
        return max(1, self.n_negative + int(self.zero) + n_pos)

    def bin_text(self, b: int) -> str:
        """Bin ``b`` as released: ``16–49`` (4 significant digits), ``0``, refunds ``-49–-16``."""
        lo, hi = self.bin_range(b)
        if lo == hi == 0:
            return "0"
        return f"{plain_number(lo)}–{plain_number(hi)}"

    def bin_range(self, b: int) -> tuple[float, float]:
        """The amounts of bin ``b`` as [low, high) (refunds: (low, high] with low = -upper edge)."""
        if b < self.n_negative:
            k = self.neg[1] - b  # type: ignore[index]
            return -price_edge(k + 1, self.per_decade), -price_edge(k, self.per_decade)
        b -= self.n_negative
        if self.zero:
            if b == 0:
                return 0.0, 0.0
            b -= 1
        k = self.pos[0] + b  # type: ignore[index]
        return price_edge(k, self.per_decade), price_edge(k + 1, self.per_decade)


def plain_number(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits without an exponent or thousands separator (``21.54``)."""
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(np.floor(np.log10(abs(x)))))
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if decimals else text


def price_layout(amount: np.ndarray, per_decade: int) -> tuple[PriceLayout, np.ndarray]:
    """The layout of the amounts' bins and every amount's magnitude class (0 for amounts of 0)."""
    magnitude = np.abs(amount)
    k = np.zeros(len(amount), dtype=np.int64)
    nonzero = magnitude > 0
    k[nonzero] = magnitude_classes(magnitude[nonzero], per_decade)

    def span(mask: np.ndarray) -> tuple[int, int] | None:
        return (int(k[mask].min()), int(k[mask].max())) if mask.any() else None

    layout = PriceLayout(per_decade, span(amount < 0), bool((amount == 0).any()), span(amount > 0))
    return layout, k


def price_bins(amount: np.ndarray | None, level: PriceLevel) -> PriceBins:
    """Log-spaced price bin of every event (see :class:`PriceBins`); ``ValueError`` without an amount on
    every event."""
    if amount is None:
        raise ValueError("price bins need an amount column (card transactions: a price or amount column)")
    amount = np.asarray(amount, dtype=np.float64)
    if not np.isfinite(amount).all():
        raise ValueError("price bins need an amount on every event; some events have none")
    layout, k = price_layout(amount, level.per_decade)
    bins = np.empty(len(amount), dtype=np.int64)
    neg, pos = amount < 0, amount > 0
    if layout.neg is not None:
        bins[neg] = layout.neg[1] - k[neg]
    bins[amount == 0] = layout.n_negative
    if layout.pos is not None:
        bins[pos] = layout.n_negative + int(layout.zero) + k[pos] - layout.pos[0]
    return PriceBins(bins, layout)
