"""The report as a decision record: the officer's texts, the people behind every headline, what speaks against
the recommended profile, worst cases called lower bounds, fingerprints and sign-off; level names in words."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.naming import knowledge_name, label_words, profile_name, spatial_name, temporal_name
from privacy_studio.core.numbers import share
from privacy_studio.core.project import Project, ProjectError
from privacy_studio.core.report import KeyFigures, build_report
from privacy_studio.core.report.content import Paragraph, Table
from privacy_studio.core.report.record import sign_details
from privacy_studio.core.report_details import DECISIONS, DEFAULT_P_RATIONALE, KEY, ReportDetails
from privacy_studio.core.risk.results import results_of


def _section(report, title):
    stack = list(report.sections)
    while stack:
        s = stack.pop(0)
        if s.title == title:
            return s
        stack.extend(s.subsections)
    raise AssertionError(title)


def _figures(section) -> dict[str, tuple[str, str]]:
    return {
        k.label: (k.value, k.detail) for b in section.blocks if isinstance(b, KeyFigures) for k in b.items
    }


def _criteria_lines(section) -> list[str]:
    """The summary's release criteria, one paragraph each (``✓ pass: …`` / ``✗ fail: …``)."""
    return [b.text for b in section.blocks if isinstance(b, Paragraph) and b.text[:1] in "✓✗"]


# --- level names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "words"),
    [
        ("grid:1", "1 km squares"),
        ("grid:2.5", "2.5 km squares"),
        ("raw", "exact locations (no spatial generalization)"),
        ("district", "districts"),
        ("antenna", "antennas (the mast that carried each call or text)"),
        ("ward", "'ward' units of the hierarchy file"),
    ],
)
def test_spatial_levels_in_words(level: str, words: str) -> None:
    assert spatial_name(level) == words


@pytest.mark.parametrize(
    ("width", "words"),
    [
        ("1h", "1-hour bins"),
        ("6h", "6-hour bins"),
        ("90min", "90-minute bins"),
        ("1d", "1-day bins"),
        ("1w", "1-week bins"),
        ("14d", "2-week bins"),
        ("all", "no time (one bin for the whole period)"),
    ],
)
def test_time_widths_in_words(width: str, words: str) -> None:
    assert temporal_name(width) == words


def test_knowledge_models_and_profiles_in_words() -> None:
    assert knowledge_name("uniform") == "p points picked at random from the person's trace"
    assert "most frequent" in knowledge_name("top")
    assert profile_name("grid:1", "6h") == "1 km squares, 6-hour bins"


# --- the officer's texts -----------------------------------------------------------------------------

_text = st.text(max_size=40)


@given(
    purpose=_text,
    recipient=_text,
    signer=_text,
    decision=st.sampled_from(DECISIONS),
)
def test_details_round_trip(purpose: str, recipient: str, signer: str, decision: str) -> None:
    details = ReportDetails(purpose=purpose, recipient=recipient, signer_name=signer, decision=decision)
    again = ReportDetails.from_dict(json.loads(json.dumps(details.to_dict())))
    assert again == details


@pytest.mark.parametrize(
    ("saved", "says"),
    [
        ({"decision": "maybe"}, "is not one of"),
        ({"purpose": 3}, "must be a text"),
        ({"colour": "red"}, "unknown report detail"),
        ({"version": 2}, "not supported"),
        ("text", "must be an object"),
    ],
)
def test_bad_details_are_refused_on_load(tmp_path, saved, says: str) -> None:
    project = Project(name="x")
    path = project.save(tmp_path / "x.psproj")
    doc = json.loads(path.read_text())
    doc["analyses"][KEY] = saved
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectError, match=says):
        Project.load(path)


def test_details_are_saved_with_the_project_and_printed(make_project, tmp_path) -> None:
    project = make_project()
    details = ReportDetails(
        purpose="Plan night buses",
        recipient="City transport office",
        release_format="district, week, count of calls",
        signer_name="A. Officer",
        signer_role="Data protection officer",
        sign_date="2026-11-23",
        decision="release approved with conditions",
        p_rationale="Bus drivers see four stops.",
    )
    sign_details(project, details).store(project.analyses)  # as the window and the command sign
    project.save(tmp_path / "p.psproj")
    text = build_report(Project.load(tmp_path / "p.psproj")).text()
    for words in (
        "Plan night buses",
        "City transport office",
        "district, week, count of calls",
        "A. Officer",
        "Data protection officer",
        "2026-11-23",
        "release approved with conditions",
        "Reference p = 4. Bus drivers see four stops.",
    ):
        assert words in text
    assert "Not stated" not in text
    assert DEFAULT_P_RATIONALE not in text


def test_empty_details_say_what_is_missing_and_use_sourced_defaults(make_project) -> None:
    text = build_report(make_project()).text()
    assert "Not stated: fill this in" in text and "report --purpose" in text
    assert DEFAULT_P_RATIONALE in text and "Noriega-Campero" in text and "source 0" not in text
    assert "studio's defaults" in text


def test_attacker_model_names_what_is_not_assessed(make_project) -> None:
    project = make_project()
    text = "\n".join(p.text for p in _section(build_report(project), "Attacker model").blocks)
    for gap in (
        "linkage",
        "repeated",
        "insiders",
        "matching and profiling attacks (not run",
        "anonymizability",
    ):
        assert gap in text
    project.analyses["attacks"] = {"matching": {}}
    text = "\n".join(p.text for p in _section(build_report(project), "Attacker model").blocks)
    assert "attacks (not run" not in text


def test_fingerprints_hash_the_settings_and_the_inputs(make_project, tmp_path) -> None:
    project = make_project()
    data = tmp_path / "events.csv"
    data.write_text("user,time,lat,lon\n")
    project.add_source(data, {})
    table = _section(build_report(project), "Fingerprints").blocks[0]
    chosen = {"settings": project.settings, "tradeoff": project.tradeoff, "engine": project.engine}
    canonical = json.dumps(chosen, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert table.rows[0][1] == hashlib.sha256(canonical.encode()).hexdigest()
    assert table.rows[1] == ["events.csv (events)", hashlib.sha256(data.read_bytes()).hexdigest()]


# --- the summary does not hide contrary evidence -----------------------------------------------------


def test_summary_shows_whom_each_headline_covers_and_the_evidence_against(make_project) -> None:
    project = make_project()
    report = build_report(project)
    summary = _section(report, "Summary for decision makers")
    figures = _figures(summary)
    assert not any("People in the dataset" in label for label in figures)
    rec = report.headline["recommended"]
    row = next(r for r in project.results if r.label == rec)
    at4 = row.at(4)
    covered = at4.n_sampled - at4.n_excluded
    assert f"covers {covered:,} of {at4.n_sampled:,} people" in figures["Recommended profile"][1]
    # issue #25: unique whole traces and the worst case are release criteria, listed with their values
    lines = _criteria_lines(summary)
    unique = share(row.kanon["share_below"]["2"])
    assert any("share of people with a unique whole trace: " + unique in line for line in lines)
    assert any("share of people at worst-case risk 1 at p = 4: " + share(at4.worst_share_at_1) in line
               for line in lines)  # fmt: skip
    assert figures["Excluded at p = 4"][0] == share(at4.n_excluded / at4.n_sampled)


def test_unicity_at_a_higher_p_is_shown_beside_the_recommendation(make_project) -> None:
    project = make_project()
    project.tradeoff["risk_p"] = 2
    report = build_report(project)
    figures = _figures(_section(report, "Summary for decision makers"))
    row = next(r for r in project.results if r.label == report.headline["recommended"])
    assert figures["Unicity at p = 4"][0] == share(row.value("unicity", 4))


@pytest.mark.parametrize("exact", [True, False])
def test_sampled_worst_case_is_called_a_lower_bound(make_project, exact: bool) -> None:
    project = make_project()
    for row in project.results:
        for entry in row.by_p:
            entry.worst_mean, entry.worst_share_at_1, entry.worst_exact = 0.3, 0.25, exact
    report = build_report(project)
    (line,) = [x for x in _criteria_lines(_section(report, "Summary for decision makers")) if "worst" in x]
    assert ("25.0%" if exact else "≥ 25.0%") in line
    assert ("lower bound" in line) is not exact
    table = _section(report, "Risk across the grid").blocks[0]
    column = table.columns.index("share at worst-case risk 1")
    assert {r[column] for r in table.rows} == {"25.0%" if exact else "≥ 25.0%"}
    assert "lower bound" in _section(report, "Worst-case risk").blocks[2].text


def test_residual_risk_when_no_profile_meets_the_criteria(make_project) -> None:
    report = build_report(make_project(ceiling=0.001))
    residual = _section(report, "Residual risk after release")
    assert "covers no release" in residual.blocks[0].text and residual.blocks[0].style == "warning"
    least = _section(report, "Summary for decision makers")
    assert "the least risky profile" in report.text()
    assert any("unique whole trace" in line for line in _criteria_lines(least))


def test_report_and_tradeoff_json_give_the_same_power_law_and_decision(make_results, tmp_path) -> None:
    """Grid levels have known unit areas, so the fit needs no data: the report must print exactly the
    power law and recommendation ``privacy-studio tradeoff --json`` gives for the same project."""
    from privacy_studio.cli import main

    spatial, temporal = ["grid:1", "grid:2", "grid:5"], ["1h", "6h", "1d"]
    project = Project(name="Grid levels")
    project.results = results_of(make_results(spatial, temporal), "fake results")
    project.settings = {"spatial": spatial, "temporal": temporal, "p_values": [1, 2, 3, 4], "seed": 1}
    labels = [r.label for r in project.results]
    project.utility = {
        "domains": ["planning"],
        "scores": {lab: {"planning": 9.0 - i} for i, lab in enumerate(labels)},
    }
    project.tradeoff = {"risk_measure": "unicity", "risk_p": 4, "utility": "planning", "ceiling": 0.2}
    path = project.save(tmp_path / "g.psproj")
    assert main(["tradeoff", str(path), "--json", str(tmp_path / "t.json")]) == 0
    printed = json.loads((tmp_path / "t.json").read_text())
    report = build_report(Project.load(path))
    analysis = report_inputs(path).analysis
    assert analysis is not None and analysis.power_law is not None
    assert json.loads(json.dumps(analysis.power_law.to_dict(analysis.ceiling))) == printed["power_law"]
    assert printed["power_law"]["exponent"] < 0
    assert report.headline["recommended"] == printed["recommendation"]["profile"]
    assert analysis.power_law_text in report.text()
    (criteria,) = [b for b in _section(report, "Release criteria").blocks if isinstance(b, Table)]
    passing = {row[0] for row in criteria.rows if row[-1] == "yes"}
    assert passing == {label_words(p["label"]) for p in printed["profiles"] if p["passes_criteria"]}


def report_inputs(path):
    from privacy_studio.core.report.inputs import resolve_inputs

    return resolve_inputs(Project.load(path))


def test_command_line_fills_in_the_record_and_saves_it(make_project, tmp_path) -> None:
    from privacy_studio.cli import main

    project = make_project()
    data = tmp_path / "events.csv"
    data.write_text("user,time,lat,lon\n")
    project.add_source(data, {})
    data.unlink()  # the report is made from the saved results; the data is not needed
    path = project.save(tmp_path / "p.psproj")
    args = ["report", str(path), "--pdf", str(tmp_path / "r.pdf"), "--text", str(tmp_path / "r.txt")]
    details = ["--purpose", "Plan night buses", "--recipient", "Transport office", "--release-format",
               "district, week", "--signer", "A. Officer", "--decision", "release refused"]  # fmt: skip
    assert main([*args, *details, "--save"]) == 0
    text = (tmp_path / "r.txt").read_text()
    for words in ("Plan night buses", "Transport office", "district, week", "A. Officer", "release refused"):
        assert words in text
    saved = ReportDetails.of(Project.load(path).analyses)
    assert (saved.purpose, saved.signer_name, saved.decision) == (
        "Plan night buses",
        "A. Officer",
        "release refused",
    )


def test_command_line_refuses_an_unknown_decision(make_project, tmp_path, capsys) -> None:
    from privacy_studio.cli import main

    path = make_project().save(tmp_path / "p.psproj")
    with pytest.raises(SystemExit):
        main(["report", str(path), "--pdf", str(tmp_path / "r.pdf"), "--decision", "maybe"])
    assert "invalid choice" in capsys.readouterr().err
    assert not (tmp_path / "r.pdf").exists()


def test_seed_stability_shows_every_seed_when_measured(make_project) -> None:
    from privacy_studio.core.analyses import SeedSpread

    project = make_project()
    text = "\n".join(b.text for b in _section(build_report(project), "Seed stability").blocks)
    assert "Not measured" in text and "seed 5" in text
    project.store(SeedSpread("district × 1d", "unicity", 4, [0, 1, 2], [0.02, 0.031, None]))
    section = _section(build_report(project), "Seed stability")
    assert (
        section.blocks[0].text
        == "Over 3 seeds (0, 1, 2), unicity at p = 4 of districts × 1 day ranges from 2.0% to 3.1%."
    )
    assert section.blocks[1].rows == [["0", "2.0%"], ["1", "3.1%"], ["2", "–"]]


def test_heat_map_and_headline_give_the_all_points_figure_where_over_a_tenth_is_left_out(make_project):
    """Issue #25: district profiles leave out 30 of 100 people at p = 4; the summary's heat-map caption and
    headline then give the unicity with them judged on all their points; antenna profiles (0 left out)
    are not named."""
    project = make_project()
    for row in project.results:
        for entry in row.by_p:
            entry.n_excluded_in_file = 30 if row.spatial == "district" else 0
            entry.unicity_all_points = 0.0625
    report = build_report(project)
    summary = _section(report, "Summary for decision makers")
    caption = summary.blocks[-1].caption
    assert f"districts × 1 day leaves out 30.0%, {share(0.0625)} with them on all their points" in caption
    assert "antenna" not in caption.partition("left out at:")[2]
    lowest = _figures(summary)["Lowest unicity at p = 4"][1]
    assert "with the 30 people of fewer than 4 points judged on all their points" in lowest
