"""The report's subsection on card transactions' amounts: how much releasing the amount in price bins adds
to the risk of each places-and-times profile, next to the source's average rise of 22 %."""

from __future__ import annotations

import math

from privacy_studio.core.naming import price_name, profile_name
from privacy_studio.core.numbers import share
from privacy_studio.core.report.content import Paragraph, Section, Table
from privacy_studio.core.report.inputs import ReportInputs
from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.tradeoff.amount import SOURCE_RELATIVE_RISE, amount_effects

TITLE = "What the amount adds"


def amount_section(inp: ReportInputs) -> Section | None:
    """The rise in risk the amount brings per places-and-times profile; None for a grid without price."""
    grid = inp.grid
    if grid is None or all(price == "none" for price in grid.price):
        return None
    effects = amount_effects(grid, UNICITY, inp.p)  # the source's figure is about unicity
    what = UNICITY if inp.p is None else f"unicity at p = {inp.p}"
    if not effects:
        return Section(
            TITLE,
            [
                Paragraph(
                    "The grid releases the amount but evaluates no profile of the same places and times "
                    "without it, so what the amount adds cannot be measured: add the price choice none.",
                    "warning",
                )
            ],
        )
    rows = [
        [
            profile_name(e.spatial, e.temporal),
            price_name(e.price),
            share(e.without),
            share(e.with_amount),
            _points(e.absolute),
            _percent(e.relative),
        ]
        for e in effects
    ]
    table = Table(
        f"Table 1b. {what.capitalize()} with and without the amount, per places-and-times profile.",
        ["Places and times", "Amount", "Without amount", "With amount", "Added (points)", "Added (relative)"],
        rows,
        "Added (points): the difference in percentage points. Added (relative): that difference as a share "
        "of the risk without the amount. Both figures of a row come from the same run and the same sampled "
        "people; those with fewer than p points are left out of each figure separately (see Table 1).",
    )
    rises = [e.relative for e in effects if math.isfinite(e.relative)]
    mean = sum(rises) / len(rises) if rises else math.nan
    text = (
        f"On average over these {len(rises)} comparisons the amount raises {what} by "
        f"{_percent(mean)} of its value without the amount. For comparison, de Montjoye et al. (Unique in "
        "the shopping mall, Science, 2015) found that knowing the approximate amount raised unicity by "
        f"{SOURCE_RELATIVE_RISE:.0%} on average on 1.1 million card holders over 3 months, with bins about a "
        "factor of 3 wide; a smaller file, other bins or other shops give other figures."
    )
    return Section(TITLE, [table, Paragraph(text)])


def _points(value: float) -> str:
    """A difference of shares in percentage points (``+4.2 points``); a dash when unknown."""
    return "–" if not math.isfinite(value) else f"{100 * value:+.1f} points"


def _percent(value: float) -> str:
    """A relative change as a signed percentage (``+22.0%``); a dash when unknown."""
    return "–" if not math.isfinite(value) else f"{100 * value:+.1f}%"
