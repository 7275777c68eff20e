"""Who a figure covers and what speaks against a profile: the facts the summary puts beside every headline so
that no figure hides the people it leaves out or the measures that disagree with it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.report.content import KeyFigure
from privacy_studio.core.report.inputs import ReportInputs
from privacy_studio.core.report.numbers import count, interval, share


@dataclass(frozen=True)
class Coverage:
    """The people behind one profile's figure at one p: evaluated (all, or a random sample), excluded for
    having fewer than p points, and the people in the file."""

    p: int | None
    evaluated: int | None
    excluded: int | None
    in_file: int | None

    @property
    def covered(self) -> int | None:
        return None if self.evaluated is None or self.excluded is None else self.evaluated - self.excluded

    def sentence(self) -> str:
        """``covers 968 of 1,000 people (a random sample of the 1,992 in the file); 32 excluded …``."""
        if self.covered is None or not self.evaluated:
            return "the people covered are not recorded in these results"
        sample = (
            f" (a random sample of the {self.in_file:,} in the file)"
            if self.in_file is not None and self.in_file > self.evaluated
            else ""
        )
        fewer = "" if self.p is None else f" with fewer than {self.p} points"
        return (
            f"covers {self.covered:,} of {self.evaluated:,} people{sample}; {self.excluded:,} excluded"
            f"{fewer} ({share(self.excluded / self.evaluated)})"
        )


def coverage(inp: ReportInputs, i: int, p: int | None) -> Coverage:
    """Who profile ``i``'s figures at ``p`` cover."""
    assert inp.grid is not None
    entry = inp.grid.by_p[i].get(p, {})
    n = inp.grid.n_users[i]
    evaluated, excluded = entry.get("n_sampled"), entry.get("n_excluded")
    return Coverage(
        p,
        None if evaluated is None else int(evaluated),
        None if excluded is None or evaluated is None else int(excluded),
        int(n) if np.isfinite(n) else None,
    )


def worst_is_exact(inp: ReportInputs, i: int, p: int | None) -> bool:
    """Whether profile ``i``'s worst-case figures at ``p`` are exact (else sampled lower bounds)."""
    assert inp.grid is not None
    return bool(inp.grid.by_p[i].get(p, {}).get("worst_exact", False))


def evidence_against(inp: ReportInputs, i: int) -> list[KeyFigure]:
    """What a reader of profile ``i``'s headline must also see: unique whole traces, the worst case, unicity
    at the highest p measured and the people excluded, each with the people it covers."""
    assert inp.grid is not None
    grid, p = inp.grid, inp.p
    out: list[KeyFigure] = []
    kanon = inp.project.results[i].get("kanon") or {}
    unique = (kanon.get("share_below") or {}).get("2")
    if unique is not None:
        out.append(
            KeyFigure(
                "Unique whole traces",
                share(unique),
                f"people whose full generalized trace matches nobody else; all {count(grid.n_users[i])} "
                "people in the file",
            )
        )
    entry = grid.by_p[i].get(p, {})
    worst = entry.get("worst_share_at_1")
    if worst is not None:
        exact = worst_is_exact(inp, i, p)
        value = share(worst) if exact else f"≥ {share(worst)}"
        kind = "exact" if exact else "a lower bound: not every choice of p points was tried"
        out.append(
            KeyFigure(
                f"Share at worst-case risk 1 (p = {p})",
                value,
                f"people some choice of {p} points pins down; {kind}; {coverage(inp, i, p).sentence()}",
            )
        )
    known = [q for q, e in grid.by_p[i].items() if q is not None and e.get("unicity") is not None]
    top = max(known, default=None)
    if top is not None and p is not None and top > p:
        high = grid.by_p[i][top]
        out.append(
            KeyFigure(
                f"Unicity at p = {top}",
                share(high["unicity"]),
                f"{interval(high.get('unicity_ci'))} if the outsider knows {top} points; "
                f"{coverage(inp, i, top).sentence()}".lstrip(),
            )
        )
    cover = coverage(inp, i, p)
    if cover.covered is not None and cover.evaluated:
        out.append(
            KeyFigure(
                f"Excluded at p = {p}",
                share(cover.excluded / cover.evaluated),
                f"{count(cover.excluded)} people with fewer than {p} points are left out of the figures at "
                f"p = {p}: their risk at this p is not measured",
            )
        )
    return out
