"""Report content: every section present, absent inputs said so, numbers equal to the core's."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.naming import label_words, spatial_short, temporal_short
from privacy_studio.core.numbers import count, interval, number, share
from privacy_studio.core.project import Project
from privacy_studio.core.report import HeatmapFigure, KeyFigures, PlotFigure, Section, Table, build_report
from privacy_studio.core.risk.results import results_of
from privacy_studio.core.tradeoff import grid_table, pareto, recommend

SECTIONS = [
    "Summary for decision makers",
    "Decision record",
    "Method",
    "Results",
    "Protection search: profiles with suppression",
    "Release",
    "Aggregate release",
    "Limitations",
    "Appendix: per-profile details",
]
RESULT_SUBSECTIONS = [
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
    "Linkage attacks",
    "Anonymizability",
    "Import report",
]


def _section(report, title: str) -> Section:
    """A top-level section, or a subsection of Results (the Method part reuses some titles)."""
    results = next(s for s in report.sections if s.title == "Results")
    found = [s for s in [*report.sections, *results.subsections] if s.title == title]
    assert len(found) == 1, title
    return found[0]


def _blocks(section: Section, kind: type) -> list:
    return [b for b in section.blocks if isinstance(b, kind)]


def test_every_section_is_there_in_order(make_project) -> None:
    report = build_report(make_project())
    assert [s.title for s in report.sections] == SECTIONS
    assert [s.title for s in _section(report, "Results").subsections] == RESULT_SUBSECTIONS
    text = report.text()
    for title in SECTIONS + RESULT_SUBSECTIONS:
        assert title in text


def test_absent_inputs_are_said_not_hidden(make_project) -> None:
    report = build_report(make_project())
    for title in (
        "Power law",
        "Population extrapolation",
        "Risk by group",
        "Attribute disclosure",
        "Linkage attacks",
        "Anonymizability",
        "Import report",
        "Protection search: profiles with suppression",
    ):
        section = _section(report, title)
        assert not section.available
        assert section.blocks[0].text.startswith("Not available:")


def test_project_without_results_still_has_every_section() -> None:
    report = build_report(Project(name="empty"))
    assert [s.title for s in report.sections] == SECTIONS
    assert [s.title for s in _section(report, "Results").subsections] == RESULT_SUBSECTIONS
    assert "No risk results" in report.text()


def test_headline_and_recommendation_equal_the_core(make_project) -> None:
    project = make_project(ceiling=0.2)
    report = build_report(project)
    grid = grid_table(project.results)
    risk, upper = grid.values("unicity", 4), grid.upper("unicity", 4)
    utility = np.asarray([project.utility["scores"][label]["transport"] for label in grid.labels])
    expected = recommend(grid.labels, risk, utility, 0.2, upper)
    assert report.headline["recommended"] == expected.label == "district × 1d"
    assert report.headline["max"] == risk.max() and report.headline["min"] == risk.min()
    assert report.headline["max_label"] == grid.labels[int(np.argmax(risk))]
    figures = _blocks(_section(report, "Summary for decision makers"), KeyFigures)[0].items
    values = {f.label: f.value for f in figures}
    assert values["Recommended profile"] == label_words(expected.label)
    assert values["Highest unicity at p = 4"] == share(risk.max())
    assert values["Profiles under the ceiling"] == f"{len(expected.meets_ceiling)} of {len(grid.labels)}"


def test_ceiling_that_cannot_be_met_gives_a_warning(make_project) -> None:
    report = build_report(make_project(ceiling=0.01))
    summary = _section(report, "Summary for decision makers")
    assert report.headline["recommended"] is None
    assert any(
        b.style == "warning" and "No profile of the grid" in b.text
        for b in summary.blocks
        if hasattr(b, "style")
    )


def test_without_utility_no_recommendation_and_no_pareto(make_project) -> None:
    report = build_report(make_project(with_utility=False))
    assert "recommended" not in report.headline
    assert "No recommendation" in report.text()
    assert not _section(report, "Pareto analysis").available


def test_computed_information_loss_can_be_the_utility(make_project) -> None:
    project = make_project(with_utility=False)
    labels = [r.label for r in project.results]
    project.analyses["information_loss"] = {
        label: {"points_kept": 10.0 - i} for i, label in enumerate(labels)
    }
    project.tradeoff["utility"] = "points_kept"
    report = build_report(project)
    table = _blocks(_section(report, "Pareto analysis"), Table)[0]
    assert [r[2] for r in table.rows] == [number(10.0 - i, 3) for i in range(len(labels))]
    assert report.headline["recommended"] is not None


def test_grid_table_and_heatmap_carry_the_results(make_project) -> None:
    project = make_project()
    report = build_report(project)
    grid = grid_table(project.results)
    section = _section(report, "Risk across the grid")
    table = _blocks(section, Table)[0]
    assert [r[0] for r in table.rows] == [label_words(label) for label in grid.labels]
    col = table.columns.index("unicity")
    assert [r[col] for r in table.rows] == [share(v) for v in grid.values("unicity", 4)]
    assert [r[col + 1] for r in table.rows] == [interval(e[4].unicity_ci) for e in grid.by_p]
    heat = _blocks(section, HeatmapFigure)[0]
    for label, s, t, v in zip(
        grid.labels, grid.spatial, grid.temporal, grid.values("unicity", 4), strict=True
    ):
        row, col = heat.row_labels.index(spatial_short(s)), heat.col_labels.index(temporal_short(t))
        assert heat.values[row][col] == v, label


def test_pareto_figure_and_table_match_the_core(make_project) -> None:
    project = make_project()
    report = build_report(project)
    grid = grid_table(project.results)
    utility = np.asarray([project.utility["scores"][label]["transport"] for label in grid.labels])
    expected = pareto(grid.labels, grid.values("unicity", 4), utility)
    section = _section(report, "Pareto analysis")
    figure = _blocks(section, PlotFigure)[0]
    front = next(s for s in figure.series if s.name == "Pareto front")
    words = [label_words(label) for label in expected.front]
    assert front.labels == words and figure.reverse_x  # utility across, reversed, as in the window
    table = _blocks(section, Table)[0]
    assert {r[0] for r in table.rows if r[3] == "yes"} == set(words)
    assert {r[0]: r[4] for r in table.rows if r[3] == "no"} == {
        label_words(k): ", ".join(map(label_words, v)) for k, v in expected.dominated_by.items()
    }


def test_unicity_curves_have_one_series_per_profile_with_bands(make_project) -> None:
    project = make_project()
    figure = _blocks(_section(build_report(project), "Unicity against p"), PlotFigure)[0]
    assert [s.name for s in figure.series] == [label_words(r.label) for r in project.results]
    first = project.results[0].by_p
    assert figure.series[0].y == [e.unicity for e in first]
    assert figure.series[0].hi == [e.unicity_ci[1] for e in first]


def test_kanonymity_table_carries_the_results(make_project) -> None:
    project = make_project()
    table = _blocks(_section(build_report(project), "Full-fingerprint k-anonymity"), Table)[0]
    for row, result in zip(table.rows, project.results, strict=True):
        assert row[0] == label_words(result.label) and row[1] == count(result.kanon["k"])
        assert row[2:] == [share(result.kanon["share_below"][k]) for k in ("2", "5", "10", "100")]


def test_sparsity_theory_matches_the_plain_formula(make_project) -> None:
    project = make_project()
    section = _section(build_report(project), "Sparsity theory")
    table = _blocks(section, Table)[0]
    for row, r in zip(table.rows, project.results, strict=True):
        n, d, q = r.n_users, r.d, r.fill_rate
        p_unique = (1 - (q * q + (1 - q) ** 2) ** d) ** (n - 1)
        p_2anon = (1 - p_unique) ** n
        assert row[4:] == [share(p_unique), share(p_2anon), share(r.kanon["share_below"]["2"])]
    curve = next(s for s in _blocks(section, PlotFigure)[0].series if s.name == "P(unique)")
    first = project.results[0]
    q, n = first.fill_rate, first.n_users
    for d, value in zip(curve.x, curve.y, strict=True):
        assert value == pytest.approx((1 - (q * q + (1 - q) ** 2) ** d) ** (n - 1), rel=1e-9, abs=1e-300)


def test_saved_extrapolation_is_fitted_and_labelled(make_project) -> None:
    project = make_project()
    n = [100.0, 200.0, 400.0, 800.0]
    project.analyses["population_extrapolation"] = {
        "measure": "unicity", "p": 4, "profile": "zip × 1h", "n": n, "risk": [0.8, 0.6, 0.45, 0.34],
        "model": "power", "population": 10000,
    }  # fmt: skip
    section = _section(build_report(project), "Population extrapolation")
    assert section.available
    assert (
        "Extrapolation (not a measurement)" in section.blocks[1].text and "10,000" in section.blocks[1].text
    )


def test_missing_p_falls_back_and_says_so(make_project) -> None:
    project = make_project()
    project.tradeoff["risk_p"] = 7
    report = build_report(project)
    assert report.headline["p"] == 4
    assert "No results at p = 7" in report.text()


def test_method_lists_parameters_and_reproduction_command(make_project) -> None:
    text = build_report(make_project()).text()
    assert "Random seed | 5" in text
    assert "privacy-studio risk INPUT --spatial antenna,zip,district --temporal 1h,6h,1d --p 1,2,3,4" in text
    assert "What it does not mean" in text
    assert "Risk engine | numba (in memory)" in text and "--engine numba --json OUT.json" in text


def test_method_names_the_engine_and_its_options(make_project) -> None:
    project = make_project()
    project.engine = {"name": "duckdb", "memory_limit": "8GB", "temp_dir": "/scratch", "spark_master": None}
    text = build_report(project).text()
    assert "Risk engine | DuckDB (out of core); memory limit 8GB, spill folder /scratch" in text
    assert "--engine duckdb --memory-limit 8GB --temp-dir /scratch --json OUT.json" in text


@given(
    n_spatial=st.integers(1, 3),
    n_temporal=st.integers(1, 4),
    p_max=st.integers(1, 5),
    drop=st.lists(st.integers(0, 11), max_size=3),
)
def test_any_grid_gives_a_consistent_report(
    make_results, n_spatial: int, n_temporal: int, p_max: int, drop: list[int]
) -> None:
    results = make_results(
        ["antenna", "zip", "district"][:n_spatial], ["1h", "6h", "1d", "1w"][:n_temporal], p_max
    )
    for i in drop:  # some profiles lack some measures
        if i < len(results):
            for e in results[i]["by_p"]:
                e["kl"] = None
    project = Project(results=results_of(results, "fake results"))
    report = build_report(project)
    grid = grid_table(results)
    p = report.headline["p"]
    risk = grid.values("unicity", p)
    assert report.headline["max"] == pytest.approx(np.nanmax(risk))
    heat = _blocks(_section(report, "Risk across the grid"), HeatmapFigure)[0]
    cells = [v for row in heat.values for v in row if v is not None]
    assert sorted(cells) == sorted(float(v) for v in risk if math.isfinite(v))
    appendix = _section(report, "Appendix: per-profile details")
    assert len(_blocks(appendix, Table)) == len(results)


def test_power_law_uses_the_trade_off_panels_unit_areas(make_project) -> None:
    from privacy_studio.core.tradeoff.analysis import coarseness
    from privacy_studio.core.tradeoff.powerlaw import unit_areas

    sample = Project.load(Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj")
    dataset = sample.load_dataset()
    project = make_project()
    section = _section(build_report(project, dataset), "Power law")
    assert section.available
    grid = grid_table(project.results)
    start, end = dataset.events.period()
    sizes = coarseness(
        grid, unit_areas(dataset.events, ["antenna", "zip", "district"], dataset.hierarchy), end - start
    )
    figure = _blocks(section, PlotFigure)[0]
    points, fit = figure.series
    assert points.labels == [label_words(label) for label in grid.labels]
    assert points.x == pytest.approx(sizes.tolist())
    assert figure.percent_y and max(fit.y) <= 1.0


def test_limitations_count_people_evaluated_on_fewer_than_p_points(make_project) -> None:
    from privacy_studio.core.report.content import Paragraph

    project = make_project()
    for profile in project.results:
        for entry in profile.by_p:
            entry.n_short = 7 if profile.spatial == "zip" and entry.p == 4 else 0
    project.settings["short_traces"] = "all-points"
    notes = [b.text for b in _blocks(_section(build_report(project), "Limitations"), Paragraph)]
    short = [t for t in notes if "evaluated on all the points they have" in t]
    assert len(short) == 1
    assert "postcode areas × 1 hour: 7" in short[0] and "antenna" not in short[0]


def test_attribute_disclosure_is_said_in_plain_words(make_project) -> None:
    """The recommended (else first) profile's homogeneity in a sentence, every profile in the table."""
    from privacy_studio.core.measures.attributes import AttributeFigures

    project = make_project()
    figures = [
        AttributeFigures("income_band", "trace", True, 100, 0, 0.31, 0.5, 0.9, 0.2, 1, 1.0, 0.4, 3, 0.2),
        AttributeFigures("income_band", "set", True, 80, 20, 0.05, 0.1, 0.8, 0.1, 1, 1.0, 0.3, 3, 0.2, 4, 7),
    ]
    for result in project.results:
        result.attributes = list(figures)
    section = _section(build_report(project), "Attribute disclosure")
    text = " ".join(getattr(b, "text", "") for b in section.blocks)
    assert (
        "For 31.0% of people, everyone who shares their whole trace has the same income band (100 people)."
        in text
    )
    assert (
        "For 5.0% of people, everyone whose trace fits 4 of their points known to an outsider has the "
        "same income band (80 people sampled, 7 of them without a value, counted as unknown; 20 with fewer "
        "than 4 points left out)." in text
    )
    headline = next(r for r in project.results if text.startswith(f"Profile {r.label}:"))
    alone = headline.kanon["share_below"]["2"]
    assert (
        f"Someone alone with their whole trace counts as homogeneous: {100 * alone:.1f}% of people are."
        in text
    )
    table = next(b for b in section.blocks if hasattr(b, "rows"))
    assert len(table.rows) == 2 * len(project.results)
    assert table.rows[0][4:6] == ["31.0%", "50.0%"]
