"""The decision derived from a grid: release criteria per profile, the recommendation among profiles meeting
them all (against a brute-force reference), the people behind each figure, evidence against the chosen
profile, and the guarded power law (fitted on 0 < risk < 1, quoted only inside the measured range)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.numbers import share as share_text
from privacy_studio.core.tradeoff import grid_table
from privacy_studio.core.tradeoff.analysis import analyse
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria
from privacy_studio.core.tradeoff.powerlaw import guarded_power_law, guarded_text


def _row(
    label: str, unicity: float, upper: float, worst: float, excluded: int, unique: float, d: int
) -> dict:
    spatial, temporal = label.split(" × ")
    return {
        "spatial": spatial,
        "temporal": temporal,
        "n_users": 100,
        "d": d,
        "kanon": {"k": 1, "share_below": {"2": unique, "5": 1.0}},
        "by_p": [
            {
                "p": 2,
                "unicity": unicity,
                "unicity_ci": [unicity / 2, upper],
                "worst_share_at_1": worst,
                "worst_exact": False,
                "n_sampled": 100,
                "n_excluded": excluded,
            },
            {"p": 4, "unicity": min(1.0, 2 * unicity), "unicity_ci": [unicity, min(1.0, 3 * unicity)]},
        ],
    }


def _reference_choice(rows: list[dict], utility: list[float], criteria: ReleaseCriteria) -> str | None:
    """Straight from the definition: keep profiles meeting every limit (unique whole traces and the worst
    case at most the ceiling unless given), take the most useful, ties to the lower upper bound, then the
    lower estimate, then grid order."""
    best = None
    for i, row in enumerate(rows):
        at2 = row["by_p"][0]
        limits = [(at2["unicity_ci"][1], criteria.ceiling)]
        unique_limit = criteria.ceiling if criteria.max_unique_traces is None else criteria.max_unique_traces
        unique_share = row["kanon"]["share_below"]["2"]
        limits.append((unique_share, unique_limit))
        worst_limit = criteria.ceiling if criteria.max_worst_share is None else criteria.max_worst_share
        limits.append((at2["worst_share_at_1"], worst_limit))
        # a searched worst case is a lower bound: it passes only if the people with a unique whole trace,
        # over the people covered, are within the limit too (nobody else can be at risk 1)
        covered = at2["n_sampled"] - at2["n_excluded"]
        most = min(1.0, unique_share * row["n_users"] / covered) if covered else math.inf
        limits.append((most, worst_limit))
        if criteria.max_excluded is not None:
            limits.append((at2["n_excluded"] / at2["n_sampled"], criteria.max_excluded))
        if all(value <= limit for value, limit in limits):
            key = (-utility[i], at2["unicity_ci"][1], at2["unicity"], i)
            best = key if best is None or key < best else best
    return None if best is None else f"{rows[best[3]]['spatial']} × {rows[best[3]]['temporal']}"


share = st.floats(0.0, 1.0, allow_nan=False)
limit = st.one_of(st.none(), st.floats(0.01, 0.99))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(share, share, share, st.integers(0, 100), share, st.floats(0, 10)), min_size=1, max_size=8
    ),
    st.floats(0.01, 0.99),
    limit,
    limit,
    limit,
)
def test_recommendation_equals_the_reference(values, ceiling, unique, worst, excluded):
    rows = [
        _row(f"grid:{i + 1} × 1h", u, max(u, up), w, ex, uq, 10 + i)
        for i, (u, up, w, ex, uq, _) in enumerate(values)
    ]
    utility = [v[5] for v in values]
    given_limits = {"max_unique_traces": unique, "max_worst_share": worst, "max_excluded": excluded}
    reasons = {key: "a reason" for key, value in given_limits.items() if value is not None}
    criteria = ReleaseCriteria(ceiling, unique, worst, excluded, reasons)
    result = analyse(grid_table(rows), np.asarray(utility), p=2, criteria=criteria)
    assert result.recommendation.label == _reference_choice(rows, utility, criteria)
    for i, label in enumerate(result.labels):
        assert result.passed(label) == all(c.passed for c in result.checks[i])
    if result.recommendation.label is None:
        assert "No profile of the grid meets the criteria" in result.recommendation.warning
        assert (
            "relax" not in result.recommendation.warning and "reconsider" not in result.recommendation.warning
        )
    else:
        assert result.passed(result.recommendation.label)
    doc = result.to_dict()
    assert json.loads(json.dumps(doc)) == doc


def test_worked_example_with_every_criterion():
    rows = [
        _row("zip × 1h", 0.30, 0.34, 0.20, 5, 0.90, 400),  # fails the ceiling
        _row("zip × 1w", 0.03, 0.04, 0.15, 10, 0.79, 60),  # under the ceiling, too many unique traces
        # passes everything: 5 % unique whole traces among the 70 people covered bound the worst case
        _row("district × 1w", 0.02, 0.03, 0.05, 30, 0.05, 12),
        _row("city × 1w", 0.01, 0.02, 0.01, 2, 0.08, 3),  # passes, less useful
    ]
    keys = ("max_unique_traces", "max_worst_share", "max_excluded")
    reasons = {k: "agreed with the recipient" for k in keys}
    criteria = ReleaseCriteria(0.05, 0.5, 0.1, 0.4, reasons)
    result = analyse(grid_table(rows), np.array([9.0, 7.0, 5.0, 2.0]), p=2, criteria=criteria)
    assert result.recommendation.label == "district × 1w"
    assert result.recommendation.meets_ceiling == ["zip × 1w", "district × 1w", "city × 1w"]
    assert [c.passed for c in result.checks[1]] == [True, False, False, True]
    rec = result.to_dict()["recommendation"]
    assert (rec["profile"], rec["eligible_people"], rec["excluded_people"]) == ("district × 1w", 70, 30)
    assert rec["criteria"][0]["name"] == "unicity at p = 2 (upper end of the 95 % interval)"
    assert [c["value"] for c in rec["criteria"]] == [0.03, 0.05, 0.05, 0.30]
    assert rec["criteria"][2]["upper"] == pytest.approx(0.05 * 100 / 70)
    # unique whole traces and the worst case are criteria now (values above), no longer evidence beside them
    assert [c["name"] for c in rec["criteria"][1:3]] == [
        "share of people with a unique whole trace",
        "share of people at worst-case risk 1 at p = 2",
    ]
    bounded = "a lower bound (searched); at most the people with a unique whole trace"
    assert result.checks[2][2].note == bounded
    evidence = " ".join(rec["evidence_against"])
    assert "unicity at p = 4 reaches 4.0%" in evidence
    assert "covers 70 of 100 people in the file; 30 excluded with fewer than 2 points (30.0%)" in evidence


def test_no_profile_passing_says_what_would_be_needed():
    rows = [_row("zip × 1h", 0.30, 0.34, 0.2, 5, 0.9, 400), _row("zip × 1w", 0.1, 0.12, 0.1, 5, 0.8, 60)]
    result = analyse(grid_table(rows), np.array([9.0, 7.0]), p=2, ceiling=0.05)
    assert result.recommendation.label is None
    text = result.decision_lines()[0]
    assert "No profile of the grid meets the criteria" in text
    assert "coarser" in text and "suppress" in text and "other protections" in text
    # issue #25: with no recommendation, every criterion is still given, at the least risky profile
    rec = result.to_dict()["recommendation"]
    assert rec["criteria_profile"] == "zip × 1w"
    assert [(c["value"], c["passed"]) for c in rec["criteria"]] == [(0.12, False), (0.8, False), (0.1, False)]


@pytest.mark.parametrize("bad", [0.0, 1.0, 2.0, -0.1, math.nan, "x"])
def test_limits_outside_zero_one_are_refused(bad):
    with pytest.raises(ValueError, match="between 0 and 1"):
        ReleaseCriteria(bad)
    with pytest.raises(ValueError, match="between 0 and 1"):
        ReleaseCriteria(0.05, max_excluded=bad)


def test_unknown_values_fail_their_criterion():
    row = _row("zip × 1h", 0.01, 0.02, 0.0, 0, 0.0, 4)
    del row["kanon"]
    result = analyse(grid_table([row]), np.array([5.0]), p=2, criteria=ReleaseCriteria(0.05))
    check = result.checks[0][1]
    assert (check.value, check.passed, check.note) == (None, False, "not measured")
    assert result.recommendation.label is None


def test_population_of_results_without_counts_is_said_unknown():
    result = analyse(grid_table([{"spatial": "zip", "temporal": "1h", "by_p": [{"p": 1, "unicity": 0.5}]}]),
                     np.array([1.0]), p=1)  # fmt: skip
    assert result.population[0].eligible is None
    assert "not recorded" in result.population[0].sentence()


# -- the guarded power law ---------------------------------------------------------------------------------


def test_fit_leaves_out_zero_and_one_and_stays_in_range():
    size = np.array([1.0, 10.0, 100.0, 1000.0, 5000.0])
    risk = np.array([1.0, 0.5, 0.2, 0.08, 0.0])
    law = guarded_power_law(list("abcde"), size, risk)
    assert law.fit.left_out == ["a", "e"] and law.n_used == 3
    assert law.measured_range == (10.0, 1000.0)
    assert law.predict(5.0) is None and law.predict(2000.0) is None
    assert 0.0 <= law.predict(10.0) <= 1.0
    assert law.size_for(0.001) is None  # beyond the measured range: no number
    text = guarded_text(law, 0.001, "ε", list("abcde"), size, risk)
    assert "beyond the measured range" in text and "e+" not in text


def test_fit_is_clipped_to_one():
    law = guarded_power_law(["a", "b"], np.array([1.0, 2.0]), np.array([0.9, 0.99]))
    assert law.fit.predict(2.0) > 0.98  # rising law reaches past 1 just outside
    assert law.predict(2.0) <= 1.0


def test_a_contradicted_measurement_is_named():
    size = np.array([1.0, 10.0, 100.0])
    risk = np.array([0.5, 0.04, 0.1])  # the middle profile is under 5 % while the line is not
    law = guarded_power_law(["a", "b", "c"], size, risk)
    assert [c[0] for c in law.contradictions(["a", "b", "c"], size, risk, 0.05)] == ["b"]
    assert "At b the fit gives" in guarded_text(law, 0.05, "ε", ["a", "b", "c"], size, risk)


def test_ranking_note_gives_each_profile_d_and_summed_em():
    fine = {"p": 1, "unicity": 0.9, "em": 0.01, "kl": 0.1}
    coarse = {"p": 1, "unicity": 0.1, "em": 0.2, "kl": 0.5}
    rows = [
        {"spatial": "zip", "temporal": "1h", "d": 400, "by_p": [fine]},
        {"spatial": "city", "temporal": "1w", "d": 3, "by_p": [coarse]},
    ]
    result = analyse(grid_table(rows), np.array([9.0, 1.0]), p=1, ceiling=0.5)
    note = result.ranking_note  # profiles in words: zip × 1h is postcode areas × 1 hour
    assert "postcode areas × 1 hour d = 400" in note and "cities × 1 week d = 3" in note
    assert "postcode areas × 1 hour: EM summed 4, KL summed 40" in note
    assert "cities × 1 week: EM summed 0.6, KL summed 1.5" in note


def test_the_conservative_figure_says_whom_it_evaluates_on_all_their_points():
    row = _row("zip × 1h", 0.3, 0.34, 0.2, 0, 0.9, 40)
    row["by_p"][0]["n_short"] = 25  # --short-traces all-points: nobody excluded, 25 on fewer than p points
    population = analyse(grid_table([row]), np.array([1.0]), p=2, ceiling=0.5).population[0]
    assert population.to_dict()["short_traces_included"] == 25 and population.excluded == 0
    assert population.sentence() == (
        "covers 100 of 100 people in the file, 25 of them with fewer than 2 points evaluated on all their "
        "points (the conservative figure); 0 excluded with fewer than 2 points (0.0%)"
    )


@pytest.mark.parametrize(("excluded", "shown"), [(30, True), (10, False)])
def test_the_all_points_figure_is_given_where_over_a_tenth_of_the_file_is_left_out(excluded, shown):
    """Issue #25: 30 of 100 people left out at p = 2 → the unicity with them judged on all their points is
    given beside the recommendation; 10 of 100 is not over a tenth."""
    row = _row("zip × 1w", 0.01, 0.02, 0.01, excluded, 0.01, 60)
    row["by_p"][0].update(n_excluded_in_file=excluded, unicity_all_points=0.125)
    result = analyse(grid_table([row]), np.array([5.0]), p=2, ceiling=0.05)
    assert result.recommendation.label == "zip × 1w"
    sentence = f"With the {excluded} people of fewer than 2 points judged on all their points"
    assert (
        any(sentence in line and f"is {share_text(0.125)}" in line for line in result.evidence_lines())
        is shown
    )
