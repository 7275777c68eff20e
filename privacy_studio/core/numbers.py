"""How every number a person reads is written, so the window, the command line and the report agree: shares
as percentages with sensible digits ("3.6%", "0.07%", "< 0.01%"), bounds rounded so they stay bounds, other
measurements in plain decimals and counts with thousands separators; never e-notation."""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal

#: Written for a value that is unknown (not computed, not a number).
DASH = "–"
#: The smallest percentage written as digits; a positive share below it is written "< 0.01%".
SMALLEST_PERCENT = Decimal("0.01")
#: Plain decimals stop at this many places; a non-zero value that rounds to 0 there is "< 0.000000001".
MAX_DECIMALS = 9


def _missing(value: float | None) -> bool:
    return value is None or not math.isfinite(value)


def _fixed(p: Decimal, decimals: int, down: bool) -> str:
    """``p`` with ``decimals`` places, rounded half up, or down for a lower bound (so it stays a bound)."""
    step = Decimal(1).scaleb(-decimals)
    return format(p.quantize(step, rounding=ROUND_FLOOR if down else ROUND_HALF_UP), "f")


def _percent_digits(p: Decimal, down: bool) -> str:
    """A percentage ``p`` (0-100) without its sign: one decimal from 1% to 99%, two significant digits below
    1%, more decimals just under 100% so a value below 100% never reads "100.0"; no e-notation."""
    if p <= 0 or p >= 100:
        return _fixed(p, 1, down)
    if p < 1:
        decimals = max(2, 1 - math.floor(math.log10(p)))
        text = _fixed(p, decimals, down)
        if Decimal(text) >= 1:
            return _fixed(p, 1, down)
        return text.rstrip("0").rstrip(".") if Decimal(text) > 0 else text
    text = _fixed(p, 1, down)
    if Decimal(text) >= 100:
        text = _fixed(p, 2, down)
    return text


def share(value: float | None, down: bool = False) -> str:
    """A proportion as a percentage ("12.3%", "0.07%", "< 0.01%", "> 99.99%"); a dash when unknown.

    With ``down`` the digits are rounded down, so a lower bound written this way is still a lower bound.
    The value is read as the shortest decimal that is the same float (0.29 is 29%, not 28.999…%).
    """
    if _missing(value):
        return DASH
    p = Decimal(repr(float(value))) * 100  # type: ignore[arg-type]
    if 0 < p < SMALLEST_PERCENT:
        return f"< {SMALLEST_PERCENT}%"
    if 100 - SMALLEST_PERCENT < p < 100 and not down:
        return f"> {100 - SMALLEST_PERCENT}%"
    return f"{_percent_digits(p, down)}%"


def lower_bound(value: float | None, exact: bool = False) -> str:
    """A share known only from below, "≥ 3.6%" (rounded down); an exact one, or a bound of 100% (a share
    cannot exceed it), without the sign."""
    if _missing(value):
        return DASH
    v = float(value)  # type: ignore[arg-type]
    if exact or v >= 1.0:
        return share(v)
    if 0 < Decimal(repr(v)) * 100 < SMALLEST_PERCENT:
        return "> 0%"
    return f"≥ {share(v, down=True)}"


def interval(ci: Sequence[float | None] | None) -> str:
    """A 95 % interval of proportions as "[10.2%, 14.5%]" (each end written as :func:`share` writes it, so
    "the upper end of the interval" reads the same everywhere); empty when unknown."""
    if not ci or len(ci) != 2 or _missing(ci[0]) or _missing(ci[1]):
        return ""
    return f"[{share(ci[0])}, {share(ci[1])}]"


def number(value: float | None, digits: int = 3) -> str:
    """A measurement with ``digits`` significant digits in plain decimals ("0.00426", "4.99", "11,093");
    whole digits are never dropped; a dash when unknown."""
    if _missing(value):
        return DASH
    v = float(value)  # type: ignore[arg-type]
    if v == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(v)))
    decimals = min(max(0, digits - 1 - magnitude), MAX_DECIMALS)
    exact = Context(prec=max(28, magnitude + decimals + 2))  # every whole digit of a huge value is kept
    rounded = Decimal(repr(v)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP, context=exact)
    text = format(rounded, ",f")  # rounded on the shortest decimal of the value, as share() is
    if float(text.replace(",", "")) == 0:
        tiny = f"{10.0**-MAX_DECIMALS:.{MAX_DECIMALS}f}"
        return f"< {tiny}" if v > 0 else f"> -{tiny}"
    return text.rstrip("0").rstrip(".") if decimals else text


def count(value: float | None) -> str:
    """A whole count with thousands separators ("12,345"); a dash when unknown."""
    return DASH if _missing(value) else f"{round(value):,}"  # type: ignore[arg-type]


def one_in(rate: float | None) -> str:
    """A small rate as "1 in 7,630" (three significant digits), a larger one as a percentage: a fill rate
    of 0.0000000687 reads "1 in 14,600,000"."""
    if _missing(rate) or float(rate) < 0:  # type: ignore[arg-type]
        return DASH
    r = float(rate)  # type: ignore[arg-type]
    if r == 0:
        return "none"
    if r >= 0.01:
        return share(r)
    n = 1.0 / r
    return f"1 in {count(float(f'{n:.3g}'))}"
