"""The results part of the report: grid tables, curves, heat-map, Pareto, ordinal equivalence, power law,
population extrapolation, risk by group, linkage attacks, anonymizability and the import report — each says so
when its inputs are absent."""

from __future__ import annotations

import math

import numpy as np

from privacy_studio.core.analyses import ComputedUtility, PopulationExtrapolation, RiskByGroup
from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.generalize import finest_first
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.measures.theory import sparsity_curves
from privacy_studio.core.naming import label_words, price_name, readable, spatial_short, temporal_short
from privacy_studio.core.numbers import count, number, one_in, share
from privacy_studio.core.report.amount import amount_section
from privacy_studio.core.report.anonymizability import anonymizability_section
from privacy_studio.core.report.attacks import attacks_section
from privacy_studio.core.report.attributes import attribute_section
from privacy_studio.core.report.content import (
    HeatmapFigure,
    Paragraph,
    PlotFigure,
    Section,
    Series,
    Table,
    absent,
)
from privacy_studio.core.report.evidence import ALL_POINTS_ABOVE, coverage
from privacy_studio.core.report.inputs import (
    MEASURE_NAMES,
    ReportInputs,
    format_measure,
    is_proportion,
    measure_cells,
    measure_columns,
)
from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.tradeoff import ordinal_equivalence
from privacy_studio.core.tradeoff.extrapolation import extrapolate
from privacy_studio.core.tradeoff.groups import GroupReport, read_attributes, risk_by_group_of
from privacy_studio.core.user_keys import project_salt
from privacy_studio.core.utility import COMPUTED_SCORES, utility_title


def results_section(inp: ReportInputs) -> Section:
    section = Section("Results", new_page=True)
    if inp.grid is None:
        section.add(Paragraph("Not available: the project has no risk results yet.", "warning"))
        section.subsections = [absent(t, "no risk results") for t in RESULT_TITLES]
    else:
        amount = amount_section(inp)
        section.subsections = [
            grid_section(inp),
            *([amount] if amount is not None else []),
            curves_section(inp),
            kanonymity_section(inp),
            theory_section(inp),
            pareto_section(inp),
            ordinal_section(inp),
            power_law_section(inp),
            extrapolation_section(inp),
            groups_section(inp),
            attribute_section(inp),
        ]
    analyses = inp.project.analyses
    section.subsections += [attacks_section(analyses), anonymizability_section(analyses), import_section(inp)]
    return section


#: The results subsections built from the risk grid, in report order (the worst-case analyses, which do not
#: need it, and the import report follow them).
RESULT_TITLES = [
    "Risk across the grid",
    "Unicity against p",
    "Full-fingerprint k-anonymity",
    "Sparsity theory",
    "Pareto analysis",
    "Ordinal equivalence",
    "Power law",
    "Population extrapolation",
    "Risk by group",
    "Attribute disclosure",
]


def grid_section(inp: ReportInputs) -> Section:
    grid = inp.grid
    assert grid is not None
    measures = [m for m in MEASURE_NAMES if np.isfinite(grid.values(m, inp.p)).any()]
    columns = ["Profile", "In file", "Covered", *measure_columns(measures), "Excluded"]
    rows = []
    for i, label in enumerate(grid.labels):
        entry = grid.entry(i, inp.p)
        rows.append(
            [
                label_words(label),
                count(grid.n_users[i]),
                count(coverage(inp, i, inp.p).eligible),
                *measure_cells(entry, measures),
                count(None if entry is None else entry.n_excluded),
            ]
        )
    at = "" if inp.p is None else f" at p = {inp.p}"
    table = Table(
        f"Table 1. Risk of every profile{at}.",
        columns,
        rows,
        "In file: people in the data. Covered: the people the risk figures describe (the people evaluated, "
        "all or a random sample, less those excluded). Excluded: people with fewer than p distinct points, "
        "who cannot be drawn from (counted, not hidden). Values marked ≥ are lower bounds. Each profile's d "
        "is in the appendix.",
    )
    return Section("Risk across the grid", [table, *heatmaps(inp)])


def heatmaps(inp: ReportInputs) -> list[HeatmapFigure]:
    """The chosen measure over spatial levels (rows) x temporal levels (columns), one per price choice."""
    grid = inp.grid
    assert grid is not None
    prices = list(dict.fromkeys(grid.price))
    if len(prices) == 1:
        return [heatmap(inp, prices[0])]
    return [heatmap(inp, price, f"{chr(ord('a') + k)}") for k, price in enumerate(prices)]


def heatmap(inp: ReportInputs, price: str = "none", suffix: str = "") -> HeatmapFigure:
    """The chosen measure over spatial levels (rows) x temporal levels (columns) at one price choice."""
    grid = inp.grid
    assert grid is not None
    rows, cols = finest_first(list(dict.fromkeys(grid.spatial)), list(dict.fromkeys(grid.temporal)))
    risk = inp.risk()
    values: list[list[float | None]] = [[None] * len(cols) for _ in rows]
    for i in range(len(grid.labels)):
        if grid.price[i] != price:
            continue
        value = float(risk[i])
        values[rows.index(grid.spatial[i])][cols.index(grid.temporal[i])] = (
            value if math.isfinite(value) else None
        )
    text = [[format_measure(inp.measure, v) for v in row] for row in values]
    amount = "" if not suffix else f", {price_name(price)}"
    caption = (
        f"Figure 1{suffix}. {inp.risk_label.capitalize()} over the grid{amount} (darker = riskier)."
        f"{left_out_note(inp)}"
    )
    row_words = [readable(spatial_short, r) for r in rows]
    col_words = [readable(temporal_short, c) for c in cols]
    return HeatmapFigure(caption, "places", "times", row_words, col_words, values, text)


def left_out_note(inp: ReportInputs) -> str:
    """The profiles leaving out more than 10 % of the file at p, each with the share left out and the unicity
    with those people judged on all their points (empty when none does)."""
    grid = inp.grid
    assert grid is not None
    wide = []
    for i, label in enumerate(grid.labels):
        cover = coverage(inp, i, inp.p)
        if not cover.excluded_share > ALL_POINTS_ABOVE:
            continue
        entry = grid.entry(i, inp.p)
        conservative = None if entry is None else entry.unicity_all_points
        judged = "" if conservative is None else f", {share(conservative)} with them on all their points"
        wide.append(f"{label_words(label)} leaves out {share(cover.excluded_share)}{judged}")
    if not wide:
        return ""
    return (
        f" More than 10 % of the people in the file have fewer than {inp.p} points and are left out at: "
        + "; ".join(wide)
        + " (unicity with them judged on all their points, as --short-traces all-points)."
    )


def curves_section(inp: ReportInputs) -> Section:
    grid = inp.grid
    assert grid is not None
    series = []
    for i, label in enumerate(grid.labels):
        entries = sorted(
            ((p, e) for p, e in grid.by_p[i].items() if p is not None and e.value(UNICITY) is not None),
            key=lambda pe: pe[0],
        )
        if not entries:
            continue
        cis = [e.unicity_ci or (None, None) for _, e in entries]
        series.append(
            Series(
                label_words(label),
                [float(p) for p, _ in entries],
                [float(e.value(UNICITY)) for _, e in entries],
                lo=[_float(c[0]) for c in cis],
                hi=[_float(c[1]) for c in cis],
            )
        )
    if not series:
        return absent("Unicity against p", "unicity was not computed for several values of p")
    figure = PlotFigure(
        "Figure 2. Unicity against the number p of known points, one curve per profile, with 95% bands.",
        "p (points known to the outsider)",
        UNICITY,
        series,
        percent_y=True,
    )
    text = Paragraph(
        "Each extra point the outsider knows makes people easier to single out; coarser profiles lower the "
        "curves. Read the curve at the number of points an outsider could plausibly know."
    )
    return Section("Unicity against p", [figure, text])


def kanonymity_section(inp: ReportInputs) -> Section:
    """Per profile: the dataset's k and the share of people in groups of identical traces below 2 … 100."""
    rows = []
    for r in inp.project.results:
        kanon = r.kanon
        if kanon:
            below = kanon.get("share_below", {})
            rows.append(
                [
                    label_words(r.label),
                    count(kanon.get("k")),
                    *(share(below.get(k)) for k in KANON_K),
                ]
            )
    if not rows:
        return absent("Full-fingerprint k-anonymity", "it was not among the measures computed.")
    table = Table(
        "Table 2. Full-fingerprint k-anonymity: the smallest group of people with identical traces (k), and "
        "the share of people in groups smaller than 2 (unique), 5, 10 and 100.",
        ["Profile", "k", *(f"in groups < {k}" for k in KANON_K)],
        rows,
    )
    return Section("Full-fingerprint k-anonymity", [table])


#: Group sizes for which the k-anonymity table gives the share of people in smaller groups.
KANON_K = ("2", "5", "10", "100")


def theory_section(inp: ReportInputs) -> Section:
    """The Bernoulli sparsity model at each profile's n, d and fill rate, beside the measured uniqueness."""
    rows, first = [], None
    for r in inp.project.results:
        n, d, q = r.n_users, r.d, r.fill_rate
        if not (n and d and isinstance(q, float) and math.isfinite(q)):
            continue
        first = first or (int(n), float(q), int(d), label_words(r.label))
        curve = sparsity_curves(int(n), q, [d])
        unique = (r.kanon or {}).get("share_below", {}).get("2")
        rows.append(
            [
                label_words(r.label),
                count(n),
                count(d),
                one_in(q),
                share(float(curve["p_unique"][0])),
                share(float(curve["p_2anon"][0])),
                share(unique),
            ]
        )
    if first is None:
        return absent("Sparsity theory", "the results keep no dimension d and fill rate.")
    n, q, d, label = first
    ds = np.unique(np.geomspace(1, max(10.0 * d, 10.0), 80).round())
    curve = sparsity_curves(n, q, ds)
    figure = PlotFigure(
        f"Figure 3. Sparsity theory for n = {n:,} people and fill rate q = {one_in(q)} (profile {label}): "
        f"chance that a random record is unique, and that the whole dataset is 2-anonymous, against d; the "
        f"profile's own d = {d:,} is marked.",
        "d (spatial units x time bins)",
        "probability",
        [
            Series("P(unique)", ds.tolist(), curve["p_unique"].tolist()),
            Series("P(2-anonymous)", ds.tolist(), curve["p_2anon"].tolist(), mode="dashed"),
            Series(
                "this profile",
                [float(d)],
                [float(sparsity_curves(n, q, [d])["p_unique"][0])],
                labels=[label],
                mode="points",
            ),
        ],
        log_x=True,
        percent_y=True,
    )
    table = Table(
        "Table 3. The model at every profile's own n, d and fill rate q, beside the share of people whose "
        "whole trace is unique in the data.",
        ["Profile", "n", "d", "q", "model: P(unique)", "model: P(2-anonymous)", "measured: unique"],
        rows,
        EXPLANATIONS["sparsity_theory"].not_what,
    )
    return Section("Sparsity theory", [figure, table])


def _float(value: object) -> float:
    return float("nan") if value is None else float(value)  # type: ignore[arg-type]


def pareto_section(inp: ReportInputs) -> Section:
    """The Pareto plot and table of the decision's front (never recomputed), and the information loss."""
    grid = inp.grid
    assert grid is not None
    if inp.utility is None:
        return absent(
            "Pareto analysis",
            "no utility scores: enter expert scores per profile, or run the project's analysis (Run in the "
            "studio, privacy-studio project run), which computes every profile's information loss.",
        )
    assert inp.analysis is not None  # the utility comes from the decision
    risk, result = inp.analysis.risk, inp.analysis.pareto  # derived once, as the window and tradeoff do
    known = [i for i, label in enumerate(grid.labels) if label not in result.missing]
    front = [grid.labels.index(label) for label in result.front]
    rows = [
        [
            label_words(grid.labels[i]),
            format_measure(inp.measure, risk[i]),
            number(inp.utility[i], 3),
            "yes" if i in front else "no",
            ", ".join(map(label_words, result.dominated_by.get(grid.labels[i], []))) or "–",
        ]
        for i in known
    ]
    table = Table(
        "Table 4. Pareto analysis: which profiles dominate which.",
        ["Profile", inp.risk_label, "Utility", "On the front", "Dominated by"],
        rows,
        f"Left out (risk or utility unknown): {', '.join(map(label_words, result.missing))}."
        if result.missing
        else "",
    )
    figure = _pareto_plot(inp, front, [i for i in known if i not in front])
    return Section("Pareto analysis", [figure, table, *information_loss_blocks(inp)])


def _pareto_plot(inp: ReportInputs, front: list[int], dominated: list[int]) -> PlotFigure:
    """Figure 4: utility across (reversed), risk up, the front joined and the ceiling dashed."""
    assert inp.grid is not None and inp.analysis is not None and inp.utility is not None
    labels, risk, utility = inp.grid.labels, inp.analysis.risk, inp.utility
    series = [
        Series(
            "dominated",
            [float(utility[i]) for i in dominated],
            [float(risk[i]) for i in dominated],
            labels=[label_words(labels[i]) for i in dominated],
            mode="points",
        ),
        Series(
            "Pareto front",
            [float(utility[i]) for i in front],
            [float(risk[i]) for i in front],
            labels=[label_words(labels[i]) for i in front],
            mode="line",
        ),
    ]
    if math.isfinite(inp.ceiling):
        span = [float(np.nanmin(utility)), float(np.nanmax(utility))]
        series.append(Series("risk ceiling", span, [inp.ceiling, inp.ceiling], mode="dashed"))
    return PlotFigure(
        f"Figure 4. Pareto plot, oriented as in the studio's trade-off tab: utility ({inp.utility_title}) "
        f"across, more useful to the left, and {inp.risk_label} up, so the bottom-left is best; the front is "
        "joined.",
        f"utility: {inp.utility_title} (reversed: more useful to the left)",
        inp.risk_label,
        series,
        reverse_x=True,
        percent_y=is_proportion(inp.measure),
    )


def information_loss_blocks(inp: ReportInputs) -> list:
    """The computed utility of every profile (0-10, 10 = as useful as the finest profile) saved with the
    analysis, and the profiles it could not score with the reason; nothing when it was not computed."""
    computed = inp.project.analysis(ComputedUtility)  # validated when the project was read
    if computed is None:
        return []
    grid = inp.grid
    assert grid is not None
    scored = {name for row in computed.scores.values() for name in row}
    names = [name for name in COMPUTED_SCORES if name in scored]  # amount_kept: card grids with a price axis
    rows = [
        [label_words(label), *(number(computed.scores.get(label, {}).get(name), 3) for name in names)]
        for label in grid.labels
    ]
    table = Table(
        "Table 4b. Utility computed from the data for every profile, 0-10 (10 = as useful as the finest "
        "profile of the grid); see the definitions below.",
        ["Profile", *map(utility_title, names)],
        rows,
    )
    blocks: list = [
        table,
        *(Paragraph(f"{utility_title(name)}: {COMPUTED_SCORES[name]}", "note") for name in names),
    ]
    blocks += [
        Paragraph(f"Not scored: {label_words(label)} — {why}", "note")
        for label, why in computed.problems.items()
    ]
    return blocks


def ordinal_section(inp: ReportInputs) -> Section:
    grid = inp.grid
    assert grid is not None
    # the decision's table; without one (no utility scores) the rankings are compared here
    table = inp.analysis.ordinal if inp.analysis is not None else ordinal_equivalence(grid.measures(inp.p))
    if len(table.names) < 2:
        return absent("Ordinal equivalence", "fewer than two risk measures were computed.")
    names = [MEASURE_NAMES[n] for n in table.names]
    rows = [[names[i], *(number(table.tau[i, j], 3) for j in range(len(names)))] for i in range(len(names))]
    at = "" if inp.p is None else f" at p = {inp.p}"
    return Section(
        "Ordinal equivalence",
        [
            Table(
                f"Table 5. Kendall's tau between the profile rankings of the risk measures{at}.",
                ["", *names],
                rows,
            ),
            Paragraph(table.message()),
            *([Paragraph(inp.analysis.ranking_note)] if inp.analysis and inp.analysis.ranking_note else []),
        ],
    )


def power_law_section(inp: ReportInputs) -> Section:
    """The guarded power law of the decision (the one ``privacy-studio tradeoff --json`` prints): measured
    profiles, the fitted line drawn only over the measured range and clipped to [0, 1]."""
    a = inp.analysis
    if a is None:
        return absent("Power law", "there is no trade-off analysis for this project (see the notes).")
    law = a.power_law
    if law is None:
        return absent("Power law", a.power_law_text)
    sizes, risk = a.coarseness, a.risk
    use = np.isfinite(sizes) & np.isfinite(risk) & (sizes > 0) & (risk > 0)
    low, high = law.measured_range
    xs = np.geomspace(low, high, 30) if high > low else np.asarray([low])
    fitted = [law.predict(float(x)) for x in xs]
    figure = PlotFigure(
        f"Figure 5. {inp.risk_label.capitalize()} against coarseness (unit area x bin width), log-log, with "
        f"the power law fitted on the {law.n_used} profiles with risk strictly between 0 and 1 (R² = "
        f"{number(law.r2, 3)}), drawn only over the measured range.",
        "unit area x bin width (km²·h)",
        inp.risk_label,
        [
            Series(
                "profiles",
                sizes[use].tolist(),
                risk[use].tolist(),
                labels=[label_words(x) for x in np.array(a.labels)[use].tolist()],
                mode="points",
            ),
            Series("fit (measured range only)", xs.tolist(), [_float(v) for v in fitted], mode="dashed"),
        ],
        log_x=True,
        log_y=True,
        percent_y=is_proportion(inp.measure),
    )
    blocks = [figure, Paragraph(a.power_law_text)]
    if law.fit.left_out:
        blocks.append(
            Paragraph(
                "Left out of the fit (risk 0 or 1, or unknown size): "
                f"{', '.join(map(label_words, law.fit.left_out))}.",
                "note",
            )
        )
    return Section("Power law", blocks)


def extrapolation_section(inp: ReportInputs) -> Section:
    try:
        saved = inp.project.analysis(PopulationExtrapolation)
    except ValueError as exc:
        return absent("Population extrapolation", str(exc))
    if saved is None:
        return absent(
            "Population extrapolation",
            "not run for this project (privacy-studio report --population N, or the studio's trade-off "
            "panel).",
        )
    n, risk, population = np.asarray(saved.n), np.asarray(saved.risk), saved.population
    what = f"{MEASURE_NAMES.get(saved.measure, 'unicity')} at p = {saved.p if saved.p is not None else inp.p}"
    try:
        result = extrapolate(n, risk, population, saved.model)
    except ValueError as exc:
        return absent("Population extrapolation", str(exc))
    xs = np.geomspace(max(n.min(), 1.0), max(population, n.max()), 40)
    figure = PlotFigure(
        f"Figure 6. {what.capitalize()} on random subsets of the users ({label_words(saved.profile)}), and "
        f"the fitted trend extended to {population:,} people (EXTRAPOLATION).",
        "number of people n",
        what,
        [
            Series("measured on subsets", n.tolist(), risk.tolist(), mode="points"),
            Series("trend (extrapolated)", xs.tolist(), result.fit.predict(xs).tolist(), mode="dashed"),
        ],
        log_x=True,
        percent_y=True,
    )
    return Section("Population extrapolation", [figure, Paragraph(result.describe(what), "warning")])


def _group_report(inp: ReportInputs, row: ProfileResult) -> GroupReport | str:
    """Risk by group measured on ``row``'s per-user risks, or why it cannot be."""
    source = inp.project.attributes_source()
    if source is None:
        return "the project has no user-attributes file (gender, age band, …)."
    if not source.exists():
        return f"the user-attributes file {source.path} was not found."
    per_user = row.per_user or {}
    if not per_user.get("unique_rate"):
        return f"the results of {label_words(row.label)} keep no per-user risk."
    try:
        salt = project_salt(inp.project.analyses) if per_user.get("user_keys") else None
        return risk_by_group_of(row, read_attributes(source.path), salt)
    except ValueError as exc:
        return str(exc)


def groups_section(inp: ReportInputs) -> Section:
    """Risk by user group of the recommended (else first) profile: the analysis the window or ``tradeoff
    --attributes`` stored for it, else measured from the project's attributes file and per-user results."""
    grid = inp.grid
    assert grid is not None
    rec = inp.recommendation
    label = rec.label if rec is not None and rec.label is not None else grid.labels[0]
    row = inp.project.results[grid.labels.index(label)]
    stored = inp.project.analysis(RiskByGroup)
    report = stored.report if stored is not None and stored.profile == label else _group_report(inp, row)
    if isinstance(report, str):
        return absent("Risk by group", report)
    rows = [
        [
            r.attribute,
            r.group,
            count(r.n_users),
            share(r.mean_unique),
            number(r.mean_em),
            report.odds_text(r),
        ]
        for r in report.rows
    ]
    at = row.reference_p
    table = Table(
        f"Table 6. Risk by group for profile {label_words(label)}"
        + ("" if at is None else f" at p = {at}")
        + ": mean uniqueness rate and odds ratio of being unique against everyone else (95% interval).",
        ["Attribute", "Group", "Users", "Unique (mean)", "EM (mean)", "Odds ratio [95%]"],
        rows,
        f"{count(report.n_matched)} sampled users matched to the attributes file; "
        f"{count(report.n_without_attributes)} without attributes; "
        f"{count(report.n_without_risk)} listed in it without a risk value (not sampled or excluded).",
    )
    return Section("Risk by group", [table, Paragraph(EXPLANATIONS["risk_by_group"].not_what, "note")])


def import_section(inp: ReportInputs) -> Section:
    saved = inp.project.import_report
    report = ImportReport.from_dict(saved) if saved else (inp.dataset.report if inp.dataset else None)
    if report is None:
        return absent("Import report", "the project keeps no import report and the data was not loaded.")
    rows = [
        [reason, count(r.count), r.where()]
        for reason, r in sorted(report.rejected.items(), key=lambda kv: -kv[1].count)
    ]
    blocks: list = [
        Paragraph(
            f"{report.source}: {count(report.rows_read)} rows read, {count(report.rows_kept)} kept, "
            f"{count(report.rows_rejected)} rejected."
        )
    ]
    if rows:
        blocks.append(
            Table("Table 7. Rejected rows by reason (first line numbers).", ["Reason", "Rows", "Where"], rows)
        )
    blocks.extend(Paragraph(f"Note: {n}", "note") for n in report.notes)
    return Section("Import report", blocks)
