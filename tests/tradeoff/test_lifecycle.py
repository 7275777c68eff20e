"""The headless project lifecycle: ``project new`` → ``project run`` → ``tradeoff``, on the bundled sample
and on the real Gowalla NYC check-ins (no expert scores: the decision weighs the computed utility)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from privacy_studio.cli import main
from privacy_studio.core.analyses import ComputedUtility, ProfileSizes, SeedSpread
from privacy_studio.core.naming import label_words
from privacy_studio.core.project import Project

ROOT = Path(__file__).resolve().parents[2]
GOWALLA = Path("/work/shared/real_data/gowalla_nyc/gowalla_events_nyc.tsv.gz")
CONTRACT_KEYS = {"measure", "p", "utility", "ceiling", "profiles", "pareto_front", "missing",
                 "ordinal_equivalence", "recommendation", "power_law", "power_law_text"}  # fmt: skip


@pytest.fixture(scope="module")
def gowalla_project(tmp_path_factory) -> Path:
    if not GOWALLA.exists():
        pytest.skip("the Gowalla NYC file of /work/shared/real_data is not on this machine")
    out = tmp_path_factory.mktemp("gowalla") / "gowalla.psproj"
    args = ["project", "new", str(GOWALLA), "--no-header", "--columns", "user,time,lat,lon,location",
            "--spatial", "grid:1,grid:5", "--temporal", "1w,all", "--p", "1,2,4", "--name", "Gowalla NYC",
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    assert main(["project", "run", str(out)]) == 0
    return out


def test_project_new_keeps_the_p_list_and_run_saves_results_and_computed_utility(gowalla_project):
    project = Project.load(gowalla_project)
    assert project.name == "Gowalla NYC"
    assert project.settings["p_values"] == [1, 2, 4]
    assert len(project.results) == 4 and project.import_report is not None
    computed = project.analysis(ComputedUtility)
    assert computed is not None and set(computed.scores) == {r.label for r in project.results}
    sizes = project.analysis(ProfileSizes)
    assert sizes is not None and sizes.unit_areas["grid:5"] == 25.0 and sizes.period_seconds > 0
    spread = project.analysis(SeedSpread)
    assert spread is not None and (spread.measure, spread.p) == ("unicity", 4)
    row = next(r for r in project.results if r.label == spread.profile)
    # Gowalla's recommended profile is counted exactly at p = 4: no seed can move it, so none is tried
    assert row.at(4).method == "exact" and spread.exact and spread.seeds == []
    words = label_words(spread.profile)
    assert spread.sentence() == (
        f"Unicity at p = 4 of {words} was computed exactly, over every subset of every trace: it does not "
        "depend on a seed."
    )


def test_the_seed_spread_samples_as_the_run_did(gowalla_project):
    """A p alone can be cheap enough to count exactly where the run (several p) sampled it: the spread must
    sample then too, or five identical exact values would pass for a stable estimate."""
    from dataclasses import replace

    from privacy_studio.core.project_run import RunPlan, seed_spread

    project = Project.load(gowalla_project)
    spread = project.analysis(SeedSpread)
    row = next(r for r in project.results if r.label == spread.profile)
    sampled = replace(row, by_p=[replace(e, method="sampled") if e.p == 4 else e for e in row.by_p])
    redone = seed_spread(RunPlan.of_project(project, None), project.load_dataset(), sampled, n_seeds=3)
    assert not redone.exact and redone.seeds == [0, 1, 2] and len(set(redone.values)) > 1
    assert "Over 3 seeds (0, 1, 2), unicity at p = 4 of" in redone.sentence()


def test_tradeoff_on_computed_utility_gives_a_front_and_a_decision(gowalla_project, tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(gowalla_project), "--ceiling", "0.05", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc) >= CONTRACT_KEYS
    assert doc["utility"] == "points_kept" and doc["pareto_front"]
    rec = doc["recommendation"]
    assert {"profile", "eligible_people", "excluded_people", "criteria"} <= set(rec)
    if rec["profile"] is None:
        assert "No profile of the grid meets the criteria" in rec["warning"]
    else:
        assert all(c["passed"] for c in rec["criteria"]) and rec["eligible_people"] > 0
        assert rec["eligible_people"] + rec["excluded_people"] <= 7115
    for profile in doc["profiles"]:
        population = profile["population"]
        assert population["eligible_people"] + population["excluded_people"] == population["evaluated_people"]
    if doc["power_law"] is not None:
        low, high = doc["power_law"]["measured_range"]
        assert 0 < low <= high


def test_bad_ceilings_are_refused_with_one_sentence(gowalla_project, capsys):
    for bad in ("2", "0", "-0.1", "1"):
        assert main(["tradeoff", str(gowalla_project), "--ceiling", bad]) == 2
        err = capsys.readouterr().err
        assert "strictly between 0 and 1" in err and "Traceback" not in err
    assert main(["tradeoff", str(gowalla_project), "--max-excluded", "1.5"]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err


def test_tradeoff_takes_a_measure_name_as_risk_measures_does(gowalla_project, tmp_path):
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(gowalla_project), "--measure", "em_disclosure", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["measure"] == "em"


def test_project_new_refuses_bad_input_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "x.psproj"
    assert main(["project", "new", str(tmp_path / "absent.csv"), "--spatial", "raw", "--temporal", "1h",
                 "--name", "x", "--out", str(out)]) == 2  # fmt: skip
    assert "no such data file" in capsys.readouterr().err and not out.exists()
    data = ROOT / "sample_data" / "events.csv"
    assert main(["project", "new", str(data), "--spatial", "raw", "--temporal", "1h", "--name", "x",
                 "--out", str(tmp_path / "x.json")]) == 2  # fmt: skip
    assert "must end in .psproj" in capsys.readouterr().err


def test_the_readme_tradeoff_command_works_on_a_fresh_sample(tmp_path, capsys):
    sample = tmp_path / "sample_data"
    shutil.copytree(ROOT / "sample_data", sample)
    assert not Project.load(sample / "sample.psproj").results  # as shipped: no results yet
    out = tmp_path / "out.json"
    args = ["tradeoff", str(sample / "sample.psproj"), "--ceiling", "0.05", "--json", str(out)]
    assert main(args) == 0
    doc = json.loads(out.read_text())
    assert doc["recommendation"]["criteria"] or doc["recommendation"]["profile"] is None
    assert not Project.load(sample / "sample.psproj").results  # not saved without --save


def test_report_and_tradeoff_json_give_the_same_decision(gowalla_project, tmp_path):
    from privacy_studio.core.report import build_report
    from privacy_studio.core.report.inputs import resolve_inputs

    out = tmp_path / "t.json"
    assert main(["tradeoff", str(gowalla_project), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    project = Project.load(gowalla_project)
    analysis = resolve_inputs(project).analysis
    assert analysis is not None
    decision = analysis.recommendation_dict()  # the JSON adds the recommended candidate (issue #29)
    assert decision == {key: doc["recommendation"][key] for key in decision}
    law = None if analysis.power_law is None else analysis.power_law.to_dict(analysis.ceiling)
    assert law == doc["power_law"]
    report = build_report(project)
    assert report.headline["recommended"] == doc["recommendation"]["profile"]
    text = report.text()
    assert doc["power_law_text"] in text
    assert project.analysis(SeedSpread).sentence() in text  # the seed stability the run measured
    assert not re.search(r"\de\+\d", text + json.dumps(doc)), "areas, times and people in plain digits"


def test_the_report_shows_the_computed_information_loss_and_a_stored_extrapolation(gowalla_project):
    from privacy_studio.core.analyses import PopulationExtrapolation
    from privacy_studio.core.report import build_report

    project = Project.load(gowalla_project)
    text = build_report(project).text()
    assert "Table 4b. Utility computed from the data for every profile" in text
    n = [700.0, 1400.0, 2800.0, 5600.0, 7115.0]
    project.store(
        PopulationExtrapolation("unicity", 4, "grid:5 × 1w", n, [0.6, 0.55, 0.5, 0.46, 0.45], 10**6)
    )
    text = build_report(project).text()
    assert "Bootstrap 95 % interval over the subsamples" in text
    assert "1,000,000 people is more than 10 times the 7,115 measured" in text
