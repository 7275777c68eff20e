"""Typed analyses in a project: versioned round trips, the unversioned forms older studios wrote, validation
on load with one clear sentence, and golden schema 1 and 2 files read into the same typed sections."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.analyses import (
    AnalysisError,
    ComputedUtility,
    PopulationExtrapolation,
    ProfileSizes,
    ReleaseHistory,
    RiskByGroup,
    SeedSpread,
    TradeoffChoice,
)
from privacy_studio.core.project import Project, ProjectError
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria
from privacy_studio.core.tradeoff.groups import risk_by_group

DATA = Path(__file__).parent / "data"

scores = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.dictionaries(st.sampled_from(["points_kept", "density_map", "od_matrix"]), st.floats(0, 10)),
    max_size=4,
)


@given(scores, st.dictionaries(st.text(max_size=5), st.text(max_size=10), max_size=2))
def test_computed_utility_round_trips_and_reads_the_old_form(values, problems):
    analysis = ComputedUtility(values, problems)
    assert ComputedUtility.from_dict(analysis.to_dict()) == analysis
    assert ComputedUtility.from_dict(values).scores == values  # studio 0.1: no version, no problems


def test_typed_analyses_survive_a_save(tmp_path):
    extrapolation = PopulationExtrapolation("unicity", 4, "zip × 1w", [100.0, 200.0], [0.5, 0.4], 10**6)
    attributes = pd.DataFrame({"gender": ["f", "m", "m"]}, index=["a", "b", "c"])
    groups = RiskByGroup("zip × 1w", risk_by_group(np.array(["a", "b", "c"]), np.ones(3), None, attributes))
    sizes = ProfileSizes({"zip": 2.5, "grid:1": 1.0}, 86400.0 * 7)
    project = Project(name="typed")
    for analysis in (extrapolation, groups, sizes, ComputedUtility({"zip × 1w": {"points_kept": 4.0}})):
        project.store(analysis)
    reasons = {"max_excluded": "frequent travellers only"}  # a changed limit carries its reason (issue #25)
    project.tradeoff = TradeoffChoice(
        criteria=ReleaseCriteria(0.05, max_excluded=0.3, reasons=reasons)
    ).to_dict()
    loaded = Project.load(project.save(tmp_path / "typed.psproj"))
    assert loaded.analysis(PopulationExtrapolation) == extrapolation
    assert loaded.analysis(ProfileSizes) == sizes
    again = loaded.analysis(RiskByGroup)
    assert again.report.odds_note == "n/a — everyone unique"
    assert [r.group for r in again.report.rows] == ["f", "m"] and math.isnan(again.report.rows[0].odds_ratio)
    assert loaded.choice().criteria == ReleaseCriteria(0.05, max_excluded=0.3, reasons=reasons)
    assert loaded.choice().criteria.reasons == reasons


def test_an_exact_seed_spread_round_trips_and_says_no_seed_moves_it():
    spread = SeedSpread("zip × 1w", "unicity", 4, [], [], exact=True)
    assert SeedSpread.from_dict(spread.to_dict()) == spread
    assert "computed exactly" in spread.sentence() and "does not depend on a seed" in spread.sentence()


def test_seed_spread_round_trips_and_states_its_range():
    spread = SeedSpread("zip × 1w", "unicity", 4, [0, 1, 2], [0.02, None, 0.03])
    assert SeedSpread.from_dict(spread.to_dict()) == spread
    assert (
        spread.sentence()
        == "Over 3 seeds (0, 1, 2), unicity at p = 4 of postcode areas × 1 week ranges from 2.0% to 3.0%."
    )
    with pytest.raises(ValueError, match="same length"):
        SeedSpread.from_dict({**spread.to_dict(), "values": [0.1]})


def test_everyone_unique_gives_no_odds_ratio_and_variation_gives_one():
    attributes = pd.DataFrame({"gender": ["f", "f", "m", "m"]}, index=list("abcd"))
    same = risk_by_group(np.array(list("abcd")), np.ones(4), None, attributes)
    assert same.odds_text(same.rows[0]) == "n/a — everyone unique"
    mixed = risk_by_group(np.array(list("abcd")), np.array([1.0, 1.0, 0.0, 1.0]), None, attributes)
    assert mixed.odds_note == "" and "[" in mixed.odds_text(mixed.rows[0])


def _golden(version: int) -> dict:
    return json.loads((DATA / f"v{version}_project.psproj").read_text())


@pytest.mark.parametrize("version", [1, 2])
def test_golden_files_read_into_typed_sections(version):
    project = Project.load(DATA / f"v{version}_project.psproj")
    assert project.choice() == TradeoffChoice()
    assert project.analysis(ComputedUtility) is None
    assert project.settings["p_values"] == _golden(version)["settings"]["p_values"]


@pytest.mark.parametrize("version", [1, 2])
def test_golden_files_with_old_analyses_are_migrated(tmp_path, version):
    doc = _golden(version)
    doc["analyses"] = {
        "information_loss": {"zip × 1h": {"points_kept": 7.5}},
        "population_extrapolation": {"measure": "unicity", "p": 4, "profile": "zip × 1h", "n": [10, 20],
                                     "risk": [0.9, 0.8], "model": "power", "population": 1000},
    }  # fmt: skip
    doc["settings"]["p_values"] = [1, 2, 4]
    path = tmp_path / "old.psproj"
    path.write_text(json.dumps(doc))
    project = Project.load(path)
    assert project.analysis(ComputedUtility).scores == {"zip × 1h": {"points_kept": 7.5}}
    assert project.analysis(PopulationExtrapolation).population == 1000
    assert project.settings["p_values"] == [1, 2, 4]
    saved = json.loads(project.save(tmp_path / "new.psproj").read_text())
    assert saved["analyses"]["information_loss"]["version"] == 1
    assert saved["settings"]["p_values"] == [1, 2, 4]


@pytest.mark.parametrize(
    ("section", "value", "message"),
    [
        ("tradeoff", {"ceiling": 2}, "strictly between 0 and 1"),
        ("tradeoff", {"ceiling": 0.05, "max_worst_share": 0}, "strictly between 0 and 1"),
        ("tradeoff", {"risk_measure": "fame"}, "risk_measure 'fame'"),
        ("tradeoff", {"risk_p": 0}, "risk_p must be a whole number"),
        ("tradeoff", {"colour": "red"}, "unknown choice"),
        ("settings", {"spatial": ["zip"], "temporal": ["1h"], "p_values": [0]}, "settings"),
        ("settings", {"spatial": ["zip"], "temporal": ["1h"], "speed": 3}, "unknown risk setting"),
        ("analyses", {"information_loss": {"zip": {"points_kept": 11}}}, "from 0 to 10"),
        ("analyses", {"population_extrapolation": {"n": [1], "risk": [], "population": 5}}, "same"),
        ("analyses", {"profile_sizes": {"unit_areas": {"zip": -1}}}, "unit_areas.zip"),
        ("analyses", {"release": [1]}, "release must be an object"),
    ],
)
def test_bad_sections_are_refused_on_load(tmp_path, section, value, message):
    doc = _golden(2)
    doc[section] = value
    path = tmp_path / "bad.psproj"
    path.write_text(json.dumps(doc))
    with pytest.raises(ProjectError, match=message) as info:
        Project.load(path)
    assert str(path) in str(info.value)


class _Manifest:
    """A record type that refuses every record, to see where a damaged one is said to lie."""

    @classmethod
    def from_dict(cls, d: dict) -> _Manifest:
        raise ValueError("not readable")


@pytest.mark.parametrize(
    ("analyses", "kind", "where"),
    [
        ({"release": {"created": "2021"}}, "rows", "release:"),
        (
            {"aggregate_releases": [{"created": "2022"}, {"created": "2020"}]},
            "aggregate",
            "aggregate_releases[1]:",
        ),
        (
            {"releases": {"version": 1, "releases": [{"kind": "rows", "record": {}}]}},
            "rows",
            "releases.releases[0]:",
        ),
    ],
)
def test_a_damaged_release_record_is_named_where_the_file_keeps_it(analyses, kind, where):
    """An older project's records lie under their old keys: the sentence names those, not the merged
    history's position (the oldest aggregate here is the file's second)."""
    with pytest.raises(AnalysisError, match=re.escape(where)):
        ReleaseHistory.of(analyses).of_kind(kind, _Manifest)
