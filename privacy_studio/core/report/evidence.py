"""Who a figure covers and what speaks against a profile: the facts the summary puts beside every headline so
that no figure hides the people it leaves out or the measures that disagree with it."""

from __future__ import annotations

import math

from privacy_studio.core.numbers import count, interval, lower_bound, share
from privacy_studio.core.report.content import KeyFigure
from privacy_studio.core.report.inputs import ReportInputs
from privacy_studio.core.risk.catalogue import UNICITY, limited_search
from privacy_studio.core.tradeoff.grid import ALL_POINTS_ABOVE, Population


def coverage(inp: ReportInputs, i: int, p: int | None) -> Population:
    """Who profile ``i``'s figures at ``p`` cover (people evaluated, excluded, in the file)."""
    assert inp.grid is not None
    return inp.grid.population(p)[i]


def all_points_text(inp: ReportInputs, i: int) -> str:
    """``; with them judged on all their points: 2.94 %`` where more than 10 % of the file is left out."""
    assert inp.grid is not None
    cover = coverage(inp, i, inp.p)
    entry = inp.grid.entry(i, inp.p)
    conservative = None if entry is None else entry.unicity_all_points
    if conservative is None or not cover.excluded_share > ALL_POINTS_ABOVE:
        return ""
    return (
        f"; with the {count(cover.excluded)} people of fewer than {inp.p} points judged on all their points "
        f"(short traces: all-points), unicity is {share(conservative)}"
    )


def evidence_against(inp: ReportInputs, i: int, criteria_shown: bool = False) -> list[KeyFigure]:
    """What a reader of profile ``i``'s headline must also see: unique whole traces and the worst case (unless
    ``criteria_shown``: they are release criteria, listed with their checks), unicity at the highest p
    measured and the people excluded, each with the people it covers."""
    assert inp.grid is not None
    grid, p = inp.grid, inp.p
    out: list[KeyFigure] = []
    unique = float(grid.unique_traces()[i])
    if math.isfinite(unique) and not criteria_shown:
        out.append(
            KeyFigure(
                "Unique whole traces",
                share(unique),
                f"people whose full generalized trace matches nobody else; all {count(grid.n_users[i])} "
                "people in the file",
            )
        )
    entry = grid.entry(i, p)
    worst = None if entry is None else entry.worst_share_at_1
    if worst is not None and not criteria_shown:
        exact = grid.worst_exact(p)[i]
        value = lower_bound(worst, exact=exact)
        kind = worst_kind(exact, *grid.search_cut(p)[i])
        out.append(
            KeyFigure(
                f"Share at worst-case risk 1 (p = {p})",
                value,
                f"people some choice of {p} points pins down; {kind}; {coverage(inp, i, p).sentence()}",
            )
        )
    known = [q for q, e in grid.by_p[i].items() if q is not None and e.value(UNICITY) is not None]
    top = max(known, default=None)
    if top is not None and p is not None and top > p:
        high = grid.by_p[i][top]
        out.append(
            KeyFigure(
                f"Unicity at p = {top}",
                share(high.value(UNICITY)),
                f"{'exact' if high.method == 'exact' else interval(high.unicity_ci)} if the "
                f"outsider knows {top} points; "
                f"{coverage(inp, i, top).sentence()}".lstrip(),
            )
        )
    cover = coverage(inp, i, p)
    if cover.eligible is not None:
        out.append(
            KeyFigure(
                f"Excluded at p = {p}",
                share(cover.excluded_share),
                f"{count(cover.excluded)} people with fewer than {p} points are left out of the figures at "
                f"p = {p}: their risk at this p is not measured",
            )
        )
    return out


def worst_kind(exact: bool, n_cut: int, n_sampled: int) -> str:
    """What a worst-case figure is: exact, a lower bound from a targeted search, or from a limited one."""
    if exact:
        return "exact"
    if n_cut:
        return limited_search(n_cut, n_sampled)
    return "a lower bound from a targeted search: not every choice of p points was tried"
