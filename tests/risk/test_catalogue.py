"""The measure catalogue: one name per measure everywhere, `privacy-studio measures`, and old names read."""

from __future__ import annotations

import csv
import json
from dataclasses import fields

import pytest

from privacy_studio.cli import main
from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.risk.catalogue import CATALOGUE, MEASURE_NAMES, RISK_FIELDS, canonical, risk_field
from privacy_studio.core.risk.results import PResult, ProfileResult
from privacy_studio.core.risk.settings import RiskSettings


def test_every_entry_is_complete_and_consistent():
    p_fields = {f.name for f in fields(PResult)}
    profile_fields = {f.name for f in fields(ProfileResult)}
    for m in CATALOGUE:
        assert m.explanation in EXPLANATIONS, m.name
        assert m.unit in ("share", "nats", "count") and m.needs
        assert m.fields or m.profile_fields, m.name
        for f in m.fields:
            assert f.name in p_fields and (f.interval is None or f.interval in p_fields)
        assert set(m.profile_fields) <= profile_fields
        assert (m.summarize is None) == (not m.fields)
    assert len(set(RISK_FIELDS)) == sum(len(m.fields) for m in CATALOGUE)


def test_old_names_are_read_as_the_catalogue_names():
    old = ["unicity", "kdisc", "kanon", "em", "kl", "worst"]
    settings = RiskSettings(["raw"], ["all"], measures=old)
    settings.validate()
    assert settings.measures == [
        "unicity",
        "k_disclosure",
        "k_anonymity",
        "em_disclosure",
        "kl_disclosure",
        "worst_case",
    ]
    assert RiskSettings.from_dict(settings.to_dict()).measures == settings.measures
    assert canonical("records_at_risk") == "records_at_risk"
    with pytest.raises(ValueError, match="unknown measure"):
        RiskSettings(["raw"], ["all"], measures=["kdisk"]).validate()


def test_measures_json_lists_every_measure(capsys):
    assert main(["measures", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["measures"]
    assert [m["name"] for m in listed] == list(MEASURE_NAMES)
    by_name = {m["name"]: m for m in listed}
    assert {"records_at_risk", "highest_risk"} <= set(by_name)
    for m in listed:
        assert {"name", "fields", "unit", "label", "explanation"} <= set(m)
        assert m["explanation"] == EXPLANATIONS[m["name"]].text()
    assert by_name["records_at_risk"]["fields"] == ["records_at_risk"]
    assert by_name["worst_case"]["fields"] == ["worst_mean", "worst_share_at_1"]
    assert by_name["k_anonymity"]["fields"] == ["kanon"] and by_name["kl_disclosure"]["unit"] == "nats"


def test_measures_text_names_every_measure(capsys):
    assert main(["measures"]) == 0
    out = capsys.readouterr().out
    for m in CATALOGUE:
        assert out.count(f"{m.name} — {m.label}") == 1


def test_risk_command_takes_old_names_and_keeps_its_json_keys(tmp_path, capsys):
    data = tmp_path / "events.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["user", "time", "location"])
        for u, locs in enumerate([["a", "b"], ["a", "b"], ["a", "c"], ["b", "c", "d"]]):
            for i, loc in enumerate(locs):
                w.writerow([f"u{u}", f"2024-01-0{i + 1}T10:00:00Z", loc])
    out = tmp_path / "risk.json"
    argv = ["risk", str(data), "--spatial", "raw", "--temporal", "all", "--p", "1,2", "--exact"]
    argv += ["--measures", "unicity,kdisc,worst,records_at_risk,highest_risk", "--risk-k", "3"]
    assert main([*argv, "--engine", "numba", "--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert "k-disclosure" in table and "records at risk" in table and "EM" not in table.split()
    result = json.loads(out.read_text())
    assert result["settings"]["measures"] == [
        "unicity",
        "k_disclosure",
        "worst_case",
        "records_at_risk",
        "highest_risk",
    ]
    row = result["profiles"][0]["by_p"][0]
    for key in ("unicity", "unicity_ci", "k_disclosure", "worst_mean", "worst_share_at_1", "n_excluded"):
        assert key in row
    # p = 1 by hand: |E({a})| = 3, |E({b})| = 3, |E({c})| = 2, |E({d})| = 1
    assert row["highest_risk"] == 1.0
    assert row["records_at_risk"] == pytest.approx((0 + 0 + 1 / 2 + 2 / 3) / 4)
    assert row["em"] is None


def test_risk_field_takes_every_name_risk_measures_takes():
    """One vocabulary: a measure's name or alias stands for its first result field, a field for itself."""
    for m in CATALOGUE:
        for name in (m.name, *m.aliases):
            assert risk_field(name) == (m.fields[0].name if m.fields else name)
    for field_name in RISK_FIELDS:
        assert risk_field(field_name) == field_name
    assert risk_field("no_such_measure") == "no_such_measure"
