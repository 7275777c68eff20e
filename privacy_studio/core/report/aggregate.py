"""The Aggregate release part of the report: the differentially private tables written from the project
(the ``aggregate`` entries of its release history), what their guarantee covers and does not, what they
spend together with every other release of the same people, and their utility next to the microdata's."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from privacy_studio.core.aggregate import AggregateManifest
from privacy_studio.core.aggregate.budget import PrivacyLoss
from privacy_studio.core.aggregate.figures import SCORE_WORDS
from privacy_studio.core.aggregate.manifest import aggregate_releases, privacy_spent
from privacy_studio.core.aggregate.options import plain
from privacy_studio.core.analyses import AnalysisError, ComputedUtility
from privacy_studio.core.numbers import count
from privacy_studio.core.report.content import Paragraph, Section, Table, absent

if TYPE_CHECKING:
    from privacy_studio.core.project import Project
    from privacy_studio.core.report.inputs import ReportInputs

TITLE = "Aggregate release"
KIND_WORDS = {
    "density": "people per place and time bin",
    "od": "people moving from one place to the next, per time bin of the start",
}


def aggregate_section(inp: ReportInputs) -> Section:
    """Every aggregate the project recorded, the guarantee in plain words, its limits and its utility."""
    try:
        manifests = aggregate_releases(inp.project.analyses)
        loss = privacy_spent(inp.project.analyses)
    except AnalysisError as exc:
        return Section(
            TITLE, [Paragraph(f"The stored aggregate records could not be read ({exc}).", "warning")]
        )
    if not manifests:
        return absent(
            TITLE,
            "no differentially private aggregate was written from this project (privacy-studio aggregate …, "
            "or File › Export aggregate).",
        )
    return Section(
        TITLE,
        [
            *[_written(m) for m in manifests],
            _table(manifests),
            _guarantee(manifests),
            _not_covered(manifests, loss),
            _utility(inp, manifests),
        ],
    )


def _written(m: AggregateManifest) -> Paragraph:
    c = m.cells
    return Paragraph(
        f"{m.file} was written on {m.created}: {KIND_WORDS[m.options.kind]} at {m.options.profile.label}, "
        f"one row for every cell of the full grid ({count(c.n_cells)} cells: {count(c.n_units)} places"
        f"{' × ' + count(c.n_units) + ' places' if m.options.kind == 'od' else ''} × {count(c.n_bins)} "
        f"time bins starting {c.period}), empty cells included. Noise: {m.mechanism.describe()}. "
        f"SHA-256 {m.sha256}."
    )


def _table(manifests: list[AggregateManifest]) -> Table:
    rows = []
    for m in manifests:
        f, mech = m.not_private, m.mechanism
        rows.append(
            [
                m.file,
                f"{m.options.kind}, {m.options.profile.label}",
                plain(m.options.epsilon),
                plain(m.options.delta),
                count(m.options.max_points_per_person),
                f"{count(f.people_cut)} of {count(f.people)}",
                f"{plain(mech.expected_abs_error, 3)} (empty cell {plain(mech.expected_abs_error_empty, 3)})",
                f"±{count(mech.error_bound_95)}",
                plain(f.mean_abs_error_true, 3),
            ]
        )
    return Table(
        "Aggregates written: privacy loss, contribution bound and error per cell (in people)",
        [
            "file",
            "table",
            "ε",
            "δ",
            "cells per person at most",
            "people cut by the bound",
            "expected error",
            "95 % of cells within",
            "observed error vs the true counts",
        ],
        rows,
        "Expected error: the mean absolute noise per cell, known before the file is written (a cell whose "
        "true count is 0 and whose negative noise was clamped to 0 expects half of it; every other cell "
        "lies in between); 95 % of cells are within the bound. Clamping negative counts to 0 can only bring "
        "a cell closer to its true count. The observed error compares the file with the true counts, so it "
        "also includes what the bound cut.",
    )


def _guarantee(manifests: list[AggregateManifest]) -> Paragraph:
    first = manifests[0].options
    factor = math.exp(first.epsilon)
    return Paragraph(
        "What the guarantee covers. Each file is differentially private for every person in the data: "
        "whether a person's records are in the input or not changes the chance of any possible file by at "
        f"most a factor e^ε (about {plain(factor, 3)} for ε = {plain(first.epsilon)}), plus a small "
        "probability δ where δ is not zero. It holds whatever else the reader knows and however much a "
        "person travelled, because each person was first limited to a fixed number of cells, each counted "
        "once, and the noise, drawn by OpenDP, is calibrated to that limit for the whole file at once."
    )


def _not_covered(manifests: list[AggregateManifest], loss: PrivacyLoss) -> Paragraph:
    places = "; ".join(sorted({m.cells.places_from for m in manifests}))
    microdata = (
        " Rows of the same people were also released as microdata, which no ε covers: the guarantee "
        "bounds what the aggregates add, not what the microdata files reveal on their own."
        if loss.microdata
        else ""
    )
    budgets = sorted({m.budget for m in manifests if m.budget is not None})
    budget = f" They were held to a budget of ε = {plain(budgets[-1])}." if budgets else ""
    return Paragraph(
        "What it does not cover. (1) The list of places and the period are published as they are, without "
        f"noise ({places}; the bins run from the first to the last event). (2) Privacy losses add up, and "
        f"every file written counts, one written again under the same name too: {loss.describe()}.{budget}"
        f"{microdata} Every further release about the same people spends more. (3) The guarantee is for "
        "one person: people who always move together (a household of k people) are protected only at k "
        "times ε. (4) People who were in more cells than the bound are counted in only their most frequent "
        "ones, so busy cells are under-counted. (5) The manifest's part marked not private (people cut, "
        "observed error, utility) is computed on the true data and is not protected: keep it with the "
        "decision, not with the file. (6) Facts true of the whole population remain visible; that is the "
        "purpose of the table.",
        "note",
    )


def _utility(inp: ReportInputs, manifests: list[AggregateManifest]) -> Table:
    """The utility table for the report, with the recommendation the report derived."""
    rec = inp.recommendation.label if inp.recommendation is not None else None
    no_recommendation = "no risk results yet" if inp.grid is None else "no profile meets the criteria"
    return utility_table(inp.project, manifests, rec, no_recommendation)


def utility_table(
    project: Project, manifests: list[AggregateManifest], rec: str | None, no_recommendation: str
) -> Table:
    """Each aggregate's score next to the microdata's at the same profile and at the recommended one
    (``rec``; ``no_recommendation`` says why there is none): the report's and the Trade-off tab's table."""
    try:
        computed = project.analysis(ComputedUtility)
    except AnalysisError:
        computed = None

    def microdata(label: str | None, score: str) -> str:
        if label is None or computed is None:
            return "–"
        value = computed.scores.get(label, {}).get(score)
        return "–" if value is None else f"{plain(value, 3)} ({label})"

    def vs_finest(m: AggregateManifest) -> str:
        f = m.not_private
        return "–" if f.utility_vs_finest is None else f"{plain(f.utility_vs_finest, 3)} ({f.finest})"

    rows = [
        [
            f"{m.file} (ε = {plain(m.options.epsilon)})",
            SCORE_WORDS[m.not_private.score],
            f"{m.not_private.utility:.2f}",
            f"{m.not_private.utility_bound_only:.2f}",
            vs_finest(m),
            microdata(m.options.profile.label, m.not_private.score),
            microdata(rec, m.not_private.score) if rec else no_recommendation,
        ]
        for m in manifests
    ]
    return Table(
        "Utility (0–10) of each aggregate next to the microdata candidates",
        [
            "aggregate",
            "score",
            "vs the true counts at its profile",
            "the bound alone",
            "vs the finest profile",
            "microdata at the same profile",
            "recommended microdata profile",
        ],
        rows,
        "The scores are those of docs/tradeoff.md: 10 × (1 − normalized L1 distance). The first two compare "
        "the noisy file (then the bounded counts without noise) with the true counts at the aggregate's own "
        "profile: what the noise and the bound lose. The last three compare with the finest profile of the "
        "grid, as every microdata candidate is scored, so they can be read side by side: the aggregate loses "
        "what coarsening loses plus what the bound and the noise lose. Moves (origin–destination) are scored "
        "only against the true counts: the microdata's origin–destination score counts flows of events over "
        "the whole period, not people per time bin.",
    )
