"""The report's Aggregate release section: the manifest's facts, the guarantee and its limits in words."""

from __future__ import annotations

import json
import re
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.aggregate.options import plain
from privacy_studio.core.project import Project
from privacy_studio.core.report import build_report


def _section_text(content, title: str) -> str:
    text = content.text()
    start = text.index(f"\n# {title}\n")
    return text[start : text.index("\n# ", start + 1)]


def test_no_aggregate_yet_says_so(sample_project: Path):
    text = _section_text(build_report(Project.load(sample_project)), "Aggregate release")
    assert "Not available: no differentially private aggregate was written" in text


def test_the_section_repeats_every_manifest_and_adds_up_the_budget(sample_project: Path):
    folder = sample_project.parent
    base = ["aggregate", str(sample_project), "--profile", "district:1w", "--max-points-per-person", "10"]
    assert cli.main([*base, "--epsilon", "1", "--out", str(folder / "d.csv")]) == 0
    assert (
        cli.main(
            [*base, "--kind", "od", "--epsilon", "0.5", "--delta", "1e-6", "--out", str(folder / "o.csv")]
        )
        == 0
    )
    text = _section_text(build_report(Project.load(sample_project)), "Aggregate release")
    for name, kind in (("d.csv", "density"), ("o.csv", "od")):
        manifest = json.loads((folder / f"{name}.manifest.json").read_text())
        f, m = manifest["not_private"], manifest["mechanism"]
        assert manifest["sha256"] in text
        assert f"{name} | {kind}, district × 1w |" in text
        expected = (
            f"{plain(m['expected_abs_error'], 3)} (empty cell {plain(m['expected_abs_error_empty'], 3)})"
        )
        error = f"{expected} | ±{m['error_bound_95']}"
        assert f"| {f['people_cut']:,} of {f['people']:,} | {error} |" in text
        assert f"{f['utility']:.2f} | {f['utility_bound_only']:.2f} |" in text
        if kind == "density":  # beside the microdata's score at the same profile, against the same finest
            assert f"| {plain(f['utility_vs_finest'], 3)} ({f['finest']}) |" in text
        else:
            assert f["utility_vs_finest"] is None and "moves" in f["vs_finest_problem"]
    assert "2 aggregates of these people spend ε = 1.5, δ = 0.000001 together." in text
    assert "microdata" not in text.split("What it does not cover.")[1].split("(3)")[0]
    assert "What the guarantee covers." in text and "What it does not cover." in text
    assert not re.search(r"\de-\d", text) and "not_private" not in text and "density_map" not in text
    assert "the units of level district in the hierarchy file" in text


def test_a_damaged_record_is_a_warning_not_a_crash(sample_project: Path):
    project = Project.load(sample_project)
    project.analyses["aggregate_releases"] = [{"format": "privacy-studio-aggregate-manifest", "version": 1}]
    text = _section_text(build_report(project), "Aggregate release")
    assert "could not be read" in text


def test_the_microdata_score_at_the_same_profile_stands_beside_it(sample_project: Path):
    from privacy_studio.core.analyses import ComputedUtility

    out = sample_project.parent / "d.csv"
    base = ["aggregate", str(sample_project), "--profile", "district:1w", "--max-points-per-person", "10"]
    assert cli.main([*base, "--epsilon", "1", "--out", str(out)]) == 0
    project = Project.load(sample_project)
    project.store(ComputedUtility({"district × 1w": {"density_map": 0.7832}}))
    text = _section_text(build_report(project), "Aggregate release")
    assert "| 0.783 (district × 1w) | no risk results yet" in text


def test_rows_released_beside_the_aggregates_are_named_as_not_covered(sample_project: Path):
    folder = sample_project.parent
    rows = ["release", str(sample_project), "--profile", "district:1w", "--k-anonymity", "2"]
    assert cli.main([*rows, "--out", str(folder / "r.csv")]) == 0
    base = ["aggregate", str(sample_project), "--profile", "district:1w", "--max-points-per-person", "10"]
    assert cli.main([*base, "--epsilon", "1", "--out", str(folder / "d.csv")]) == 0
    manifest = json.loads((folder / "d.csv.manifest.json").read_text())
    assert manifest["before"] == {"epsilon": 0.0, "delta": 0.0, "aggregates": 0, "microdata": ["r.csv"]}
    text = _section_text(build_report(Project.load(sample_project)), "Aggregate release")
    assert "released as microdata (r.csv), no ε bounds them." in text
    assert "not what the microdata files reveal on their own" in text
