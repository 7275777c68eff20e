"""The worst-case parts of the report: linkage attacks and anonymizability, built from hand-made analyses in
the layouts the attack requests, the Anonymizability page and the ``anonymizability`` command store."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.measures.anonymizability import AnonymizabilityResult
from privacy_studio.core.measures.attacks.requests import describe
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.project import Project
from privacy_studio.core.report import Paragraph, PlotFigure, Section, Table, build_report

MATCHING = {
    "attack": "matching", "profile": "zip × 6h", "c": 0.5, "n_identified": 30, "n_anonymous": 20,
    "n_true_pairs": 20, "assigned": 20, "assigned_correct": 14,
    "curve": [
        {"epsilon": 0.0, "matched": 16, "correct": 13, "precision": 13 / 16, "recall": 13 / 20},
        {"epsilon": 2.0, "matched": 0, "correct": 0, "precision": None, "recall": 0.0},
    ],
}  # fmt: skip
PROFILING = {
    "attack": "profiling", "distance": "js", "spatial": "antenna", "hour_of_week": True, "n_identified": 50,
    "n_anonymous": 48, "n_true_pairs": 45,
    "curve": [
        {"population": 10, "accuracy": 0.9, "correct": 9, "top_1": 0.85, "top_5": 1.0, "top_10": 1.0},
        {"population": 48, "accuracy": 0.625, "correct": 30, "top_1": 0.6, "top_5": 0.8, "top_10": 0.875},
    ],
}  # fmt: skip
LINKAGE = {
    "attack": "linkage", "n_records": 40, "n_attributes": 3,
    "distances": {"euclidean": {"percent_correct": 37.5, "correct": 15.0},
                  "mahalanobis": {"percent_correct": 61.25, "correct": 24.5}},
    "information_loss": {"means": 0.01, "variances": 0.2, "covariances": 0.05, "correlations": 0.04,
                         "score": 0.075},
}  # fmt: skip
TRANSPARENCY = {
    "attack": "transparency", "window_ranks": 2, "n_records": 10, "records": [], "pinned_share": 0.3,
    "mean_candidates": 2.4, "empty_share": 0.0, "true_in_candidates_share": 1.0,
    "linkage_percent_correct": 55.0,
}  # fmt: skip
ATTACKS = {"transparency": TRANSPARENCY, "matching": MATCHING, "linkage": LINKAGE, "profiling": PROFILING}
RAW = {2: [0.0, 0.1, 0.1, 0.3, 0.5, 0.9], 5: [0.2, 0.25, 0.3, 0.45, 0.7, 0.95]}
COARSE = {2: [0.0, 0.0, 0.05, 0.2, 0.3, 0.6], 5: [0.1, 0.1, 0.2, 0.3, 0.5, 0.8]}


def anonymizability_result(deltas: dict[int, list[float]], level: str) -> AnonymizabilityResult:
    """A result as the core makes it, for six people; only Δ matters to the report."""
    ks = tuple(deltas)
    n = len(deltas[ks[0]])
    other = np.full((len(ks), n), np.nan)
    return AnonymizabilityResult(
        ks=ks, users=np.arange(n), user_ids=np.array([f"u{i}" for i in range(n)]),
        delta=np.array([deltas[k] for k in ks]), spatial_gini=other, temporal_gini=other, spatial_tail=other,
        temporal_tail=other, ratio=other, neighbours=np.zeros((n, max(ks) - 1), dtype=np.int64),
        neighbour_distance=np.zeros((n, max(ks) - 1)), level=level, n_candidates=n,
    )  # fmt: skip


def studio_state() -> list[dict]:
    """What the Anonymizability page keeps in the project: one ``to_dict`` per level, raw first."""
    return [anonymizability_result(RAW, "raw").to_dict(), anonymizability_result(COARSE, "5km/2h").to_dict()]


def command_json() -> dict:
    """What ``privacy-studio anonymizability --json`` writes: the raw level with an ``aggregation`` list."""
    raw = anonymizability_result(RAW, "raw").to_dict()
    del raw["neighbours"], raw["neighbour_distance"]
    coarse = anonymizability_result(COARSE, "5km/2h").to_dict()
    return {
        **raw,
        "targets": None,
        "seed": 0,
        "aggregation": [{"level": "5km/2h", "results": coarse["results"]}],
    }


def _results(project: Project) -> Section:
    return next(s for s in build_report(project).sections if s.title == "Results")


def _sub(project: Project, title: str) -> Section:
    return next(s for s in _results(project).subsections if s.title == title)


def _blocks(section: Section, kind: type) -> list:
    return [b for b in section.blocks if isinstance(b, kind)]


def quantile(values: list[float], q: float) -> float:
    """Plain linear-interpolation quantile (position q·(n-1) in the sorted values)."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


def test_sections_follow_the_grid_results_and_precede_the_import_report(make_project) -> None:
    titles = [s.title for s in _results(make_project()).subsections]
    assert titles[-3:] == ["Linkage attacks", "Anonymizability", "Import report"]


@pytest.mark.parametrize("with_results", [True, False])
def test_absent_analyses_are_said(make_project, with_results: bool) -> None:
    project = make_project() if with_results else Project(name="empty")
    for title in ("Linkage attacks", "Anonymizability"):
        section = _sub(project, title)
        assert not section.available and section.blocks[0].text.startswith("Not available:")


def test_each_attack_is_described_with_its_numbers(make_project) -> None:
    project = make_project()
    project.analyses["attacks"] = ATTACKS
    section = _sub(project, "Linkage attacks")
    assert section.available
    assert [s.title for s in section.subsections] == [
        "Matching attack", "Profiling attack", "Record linkage", "Transparency attack",
    ]  # fmt: skip
    for sub, (kind, key) in zip(
        section.subsections,
        [("matching", "matching_attack"), ("profiling", "profiling_attack"), ("linkage", "record_linkage"),
         ("transparency", "transparency_attack")],
        strict=True,
    ):  # fmt: skip
        assert sub.blocks[0].text == describe(kind, ATTACKS[kind])
        assert EXPLANATIONS[key].not_what in sub.blocks[-1].text
    matching, profiling, linkage, transparency = (_blocks(s, Table)[0] for s in section.subsections)
    assert matching.rows == [
        ["0", "16", "13", share(13 / 16), share(13 / 20)],
        ["2", "0", "0", "–", share(0.0)],
    ]
    assert profiling.columns == ["People", "Accuracy", "Top-1", "Top-5", "Top-10"]
    assert profiling.rows[-1] == ["48", "62.5%", "60.0%", "80.0%", "87.5%"]
    assert linkage.rows == [["euclidean", "37.5%", "15"], ["mahalanobis", "61.3%", "24.5"]]
    assert "score 0.075" in linkage.note
    values = dict(transparency.rows)
    assert values["Pinned to a single masked record"] == "30.0%"
    assert values["Re-identified by linkage inside the candidates"] == "55.0%"
    assert values["Candidates per record (mean)"] == "2.4"


def test_attacks_are_reported_without_risk_results() -> None:
    project = Project(name="attacks only", analyses={"attacks": {"linkage": LINKAGE}})
    section = _sub(project, "Linkage attacks")
    assert section.available and section.subsections[0].blocks[0].text == describe("linkage", LINKAGE)


def test_unreadable_or_unknown_attacks_are_said_not_dropped() -> None:
    broken = {k: v for k, v in MATCHING.items() if k != "curve"}
    project = Project(analyses={"attacks": {"matching": broken, "telepathy": {}}})
    section = _sub(project, "Linkage attacks")
    assert any(p.style == "warning" and "telepathy" in p.text for p in _blocks(section, Paragraph))
    matching = section.subsections[0]
    assert matching.blocks[0].style == "warning" and "could not be read" in matching.blocks[0].text


@pytest.mark.parametrize("stored", [studio_state, command_json], ids=["studio", "command"])
def test_anonymizability_quartiles_and_cdf(stored) -> None:
    project = Project(analyses={"anonymizability": stored()})
    section = _sub(project, "Anonymizability")
    assert section.available
    assert EXPLANATIONS["anonymizability"].what in section.blocks[0].text
    table = _blocks(section, Table)[0]
    expected = [
        [level, str(k), count(len(d)), *(number(quantile(d, q), 3) for q in (0.25, 0.5, 0.75)),
         share(sum(v == 0 for v in d) / len(d))]
        for level, deltas in (("raw", RAW), ("5km/2h", COARSE))
        for k, d in deltas.items()
    ]  # fmt: skip
    assert table.rows == expected
    per_k, per_level = _blocks(section, PlotFigure)
    assert [s.name for s in per_k.series] == ["k = 2", "k = 5"]
    assert [s.name for s in per_level.series] == ["raw", "5km/2h"]
    for series, d in [*zip(per_k.series, RAW.values(), strict=True), (per_level.series[1], COARSE[2])]:
        top = {}
        for x, y in zip(series.x, series.y, strict=True):
            top[x] = max(top.get(x, 0.0), y)
        assert top == pytest.approx({x: sum(v <= x for v in d) / len(d) for x in d})


def test_anonymizability_without_aggregation_has_one_figure() -> None:
    project = Project(analyses={"anonymizability": studio_state()[:1]})
    section = _sub(project, "Anonymizability")
    assert len(_blocks(section, PlotFigure)) == 1 and len(_blocks(section, Table)[0].rows) == 2


def test_unreadable_anonymizability_is_said() -> None:
    section = _sub(Project(analyses={"anonymizability": [{"level": "raw"}]}), "Anonymizability")
    assert not section.available and "could not be read" in section.blocks[0].text


@pytest.mark.gui
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) not installed")
def test_pdf_holds_the_worst_case_sections(make_project, tmp_path: Path) -> None:
    from privacy_studio.rendering import export_report
    from tests.report.test_report_pdf import assert_pages_not_blank, pdf_text

    project = make_project()
    project.analyses.update(attacks=ATTACKS, anonymizability=studio_state())
    out = export_report(project, tmp_path / "report.pdf")
    text = " ".join(pdf_text(out).split())
    titles = ["Linkage attacks", "Matching attack", "Profiling attack", "Record linkage",
              "Transparency attack", "Anonymizability", "Table A1.", "Figure A1.", "Figure A2."]  # fmt: skip
    for title in titles:
        assert title in text, title
    for kind, result in ATTACKS.items():
        assert " ".join(describe(kind, result).split()) in text, kind
    for row in _blocks(_sub(project, "Anonymizability"), Table)[0].rows:
        assert " ".join(row) in text
    assert_pages_not_blank(out, tmp_path)
