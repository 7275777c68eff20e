"""Risk by group: Woolf odds ratios against scipy, group means against a plain loop, nothing dropped."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats.contingency import odds_ratio

from privacy_studio.core.tradeoff.groups import (
    MISSING,
    odds_ratio_woolf,
    read_attributes,
    risk_by_group,
    risk_by_group_of,
)


@given(st.lists(st.integers(1, 60), min_size=4, max_size=4))
def test_woolf_matches_scipy_sample_odds_ratio(cells):
    a, b, c, d = cells
    ref = odds_ratio([[a, b], [c, d]], kind="sample")
    ci = ref.confidence_interval(0.95)
    assert odds_ratio_woolf(a, b, c, d) == pytest.approx((ref.statistic, ci.low, ci.high), rel=1e-9)


def test_zero_cell_uses_half_correction_and_empty_side_is_undefined():
    assert odds_ratio_woolf(0, 5, 3, 7)[0] == pytest.approx((0.5 * 7.5) / (5.5 * 3.5))
    assert all(math.isnan(v) for v in odds_ratio_woolf(0, 0, 3, 7))


def test_groups_against_plain_loop(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("user_id,gender,income\nu1,f,high\nu2,f,low\nu3,m,high\nu4,m,\nu5,f,low\nghost,m,low\n")
    attrs = read_attributes(path)
    ids = np.array(["u1", "u2", "u3", "u4", "u5", "u6", "u7"])
    rate = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 1.0, np.nan])
    em = np.array([0.3, 0.1, 0.2, 0.0, 0.4, 0.5, np.nan])
    report = risk_by_group(ids, rate, em, attrs)
    assert (report.n_matched, report.n_without_attributes, report.n_without_risk) == (5, 1, 1)
    matched = {u: (r, e) for u, r, e in zip(ids, rate, em, strict=True) if u in attrs.index}
    rows = {(r.attribute, r.group): r for r in report.rows}
    assert set(rows) == {
        ("gender", "f"),
        ("gender", "m"),
        ("income", "high"),
        ("income", "low"),
        ("income", MISSING),
    }
    for (attribute, group), row in rows.items():
        members = [u for u in matched if (attrs.loc[u, attribute] or MISSING) == group]
        rest = [u for u in matched if u not in members]
        a = sum(matched[u][0] for u in members)
        c = sum(matched[u][0] for u in rest)
        assert row.n_users == len(members)
        assert row.mean_unique == pytest.approx(a / len(members))
        assert row.mean_em == pytest.approx(np.mean([matched[u][1] for u in members]))
        want = odds_ratio_woolf(a, len(members) - a, c, len(rest) - c)
        assert (row.odds_ratio, row.ci_low, row.ci_high) == pytest.approx(want, nan_ok=True)


def test_bad_attribute_files_give_one_message(tmp_path):
    dup = tmp_path / "dup.csv"
    dup.write_text("user,gender\na,f\na,m\n")
    with pytest.raises(ValueError, match="more than one row"):
        read_attributes(dup)
    lone = tmp_path / "lone.csv"
    lone.write_text("user\na\n")
    with pytest.raises(ValueError, match="at least one attribute"):
        read_attributes(lone)
    with pytest.raises(ValueError, match="cannot read"):
        read_attributes(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="one entry per user"):
        risk_by_group(np.array(["a"]), np.array([1.0, 0.0]), None, pd.DataFrame({"g": ["x"]}, index=["a"]))


def test_groups_from_a_risk_engine_result():
    from privacy_studio.core.events import build_event_table
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.runner import run_grid

    users = np.array(["a", "a", "b", "b", "c", "c", "d"])
    locs = np.array([1, 2, 1, 3, 1, 2, 4])
    events = build_event_table(users, np.arange(7) + 1_700_000_000, locs)
    settings = RiskSettings(
        spatial=["raw"], temporal=["all"], p_values=[1], measures=["unicity", "em"], exact=True, reference_p=1
    )
    result = next(iter(run_grid(events, settings)))
    attrs = pd.DataFrame({"gender": ["f", "m", "f", "m"]}, index=["a", "b", "c", "d"])
    report = risk_by_group_of(result.to_dict(), attrs)
    per_user = result.per_user
    want = risk_by_group(
        np.asarray(per_user["user_ids"]),
        np.asarray(per_user["unique_rate"]),
        np.asarray(per_user["em"]),
        attrs,
    )
    assert report == want and report.n_matched == 4
    # a: {1,2} -> 2 is shared with c: 0 unique; b: {1,3} -> 3 is b's only: 1/2; c like a; d: {4}: 1.
    rows = {r.group: r for r in report.rows}
    assert rows["f"].mean_unique == 0.0 and rows["m"].mean_unique == 0.75
    with pytest.raises(ValueError, match="no per-user risks"):
        risk_by_group_of({"spatial": "raw", "temporal": "all"}, attrs)
