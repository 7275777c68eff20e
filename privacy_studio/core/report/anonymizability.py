"""The anonymizability part of the report: per level and k the quartiles of Δₐᵏ and its CDF, from the
results stored in the project (``analyses["anonymizability"]``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privacy_studio.core.analyses import AnonymizabilityResults, read_analysis
from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.report.content import Paragraph, PlotFigure, Section, Series, Table, absent

TITLE = "Anonymizability"


@dataclass
class LevelDeltas:
    """Δₐᵏ of every target person at one aggregation level (``raw`` first), one array per k."""

    level: str
    deltas: dict[int, np.ndarray]


def stored_levels(stored: list[dict] | dict) -> list[LevelDeltas]:
    """The levels of the studio's state (``AnonymizabilityResult.to_dict()`` per level) or of the command's
    JSON (the raw level with its ``aggregation`` list); undefined values (``null``) are left out."""
    entries = [stored, *stored.get("aggregation", [])] if isinstance(stored, dict) else list(stored)
    return [
        LevelDeltas(
            str(entry["level"]),
            {
                int(r["k"]): np.asarray([v for v in r["delta"] if v is not None], dtype=np.float64)
                for r in entry["results"]
            },
        )
        for entry in entries
    ]


def anonymizability_section(analyses: dict[str, Any]) -> Section:
    """Quartiles of Δₐᵏ per level and k, the CDF per k on the raw data, and per level at the smallest k."""
    saved = read_analysis(analyses, AnonymizabilityResults)
    stored = saved.content if saved is not None else None
    if not stored:
        return absent(
            TITLE,
            "anonymizability was not computed for this project (privacy-studio anonymizability …, or the "
            "studio's Anonymizability page).",
        )
    try:
        levels = stored_levels(stored)
    except (KeyError, TypeError, ValueError) as exc:
        return absent(TITLE, f"the stored anonymizability results could not be read ({exc!r}); run it again.")
    explanation = EXPLANATIONS["anonymizability"]
    blocks: list = [
        Paragraph(f"{explanation.what} What it does not mean: {explanation.not_what}"),
        *_parameters(stored),
        _table(levels),
        _cdf(
            "Figure A1. Share of people whose Δₐᵏ is at most x on the raw data, one curve per k "
            "(further right = harder to hide among k people).",
            {f"k = {k}": d for k, d in levels[0].deltas.items()},
        ),
    ]
    if len(levels) > 1 and levels[0].deltas:
        k = min(levels[0].deltas)
        blocks.append(
            _cdf(
                f"Figure A2. The same CDF at k = {k} on the raw data and on each aggregation level (coarser "
                "space and time).",
                {lv.level: lv.deltas[k] for lv in levels if k in lv.deltas},
            )
        )
    blocks.append(Paragraph(f"Formula: {explanation.formula}", "note"))
    return Section(TITLE, blocks)


def _parameters(stored: list[dict] | dict) -> list[Paragraph]:
    """The distance parameters and the number of people compared, when stored."""
    raw = stored if isinstance(stored, dict) else stored[0]
    params = raw.get("params") or {}
    if not params:
        return []
    text = (
        f"Sample distance: weights {number(params.get('ws'), 3)} (space) and "
        f"{number(params.get('wt'), 3)} (time), saturating at {number(params.get('smax_km'), 3)} km and "
        f"{number(params.get('tmax_h'), 3)} h; each target person compared with "
        f"{count(raw.get('n_candidates'))} people"
    )
    if raw.get("users_without_samples"):
        text += f" ({count(raw['users_without_samples'])} people without any sample left out)"
    return [Paragraph(text + ".", "note")]


def _table(levels: list[LevelDeltas]) -> Table:
    rows = []
    for lv in levels:
        for k, d in lv.deltas.items():
            q1, med, q3 = np.quantile(d, [0.25, 0.5, 0.75]) if len(d) else (None, None, None)
            zero = float(np.mean(d == 0)) if len(d) else None
            rows.append(
                [lv.level, str(k), count(len(d)), number(q1, 3), number(med, 3), number(q3, 3), share(zero)]
            )
    return Table(
        "Table A1. Δₐᵏ per aggregation level and k: lower quartile, median and upper quartile over the "
        "people measured, and the share already hidden among k (Δ = 0).",
        ["Level", "k", "People", "Lower quartile", "Median", "Upper quartile", "Δ = 0"],
        rows,
    )


def _cdf(caption: str, curves: dict[str, np.ndarray]) -> PlotFigure:
    """Empirical CDFs as step curves (each value is reached at the share of people at or below it)."""
    series = []
    for name, d in curves.items():
        x = np.sort(d)
        y = np.arange(1, len(x) + 1) / max(len(x), 1)
        steps_x = np.repeat(x, 2)[1:].tolist()
        steps_y = np.repeat(y, 2)[:-1].tolist()
        series.append(Series(name, steps_x, steps_y))
    return PlotFigure(caption, "Δₐᵏ", "share of people with Δₐᵏ ≤ x", series, percent_y=True)
