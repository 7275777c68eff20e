"""The worst-case release criterion on a searched (lower-bound) share: it fails over the limit, passes only
when the people with a unique whole trace bound it within the limit, and otherwise says it cannot be shown.
The bound itself is checked against the brute-force worst case of random small files."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.tradeoff import grid_table
from privacy_studio.core.tradeoff.candidates import check_from_dict
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria, check_profiles
from tests.risk import reference
from tests.risk.helpers import table_from_sets

WORST = "share of people at worst-case risk 1 at p = 2"


def _row(worst: float, unique: float, *, exact: bool = False, excluded: int = 20, cut: int = 0) -> dict:
    """One profile of 100 people, all evaluated, ``excluded`` of them with fewer than 2 points."""
    return {
        "spatial": "zip",
        "temporal": "1w",
        "n_users": 100,
        "kanon": {"k": 1, "share_below": {"2": unique}},
        "by_p": [
            {
                "p": 2,
                "unicity": 0.01,
                "unicity_ci": [0.0, 0.02],
                "worst_share_at_1": worst,
                "worst_exact": exact,
                "worst_search_cut": cut,
                "n_sampled": 100,
                "n_excluded": excluded,
            }
        ],
    }


def _worst(row: dict, limit: float = 0.1):
    criteria = ReleaseCriteria(0.1)
    (checks,) = check_profiles(grid_table([row]), criteria, "unicity", 2, "unicity at p = 2")
    (check,) = [c for c in checks if c.name == WORST]
    assert check.limit == limit
    return check


def test_a_searched_share_within_the_limit_passes_only_when_unique_traces_bound_it():
    # 6 of 80 people covered have a unique whole trace: at most 7.5 % can be at risk 1
    proven = _worst(_row(0.04, 0.06))
    assert proven.passed and proven.lower_bound and proven.upper == pytest.approx(0.075)
    assert proven.value_text() == "≥ 4.0%, ≤ 7.5%"
    assert proven.note == "a lower bound (searched); at most the people with a unique whole trace"
    # 12 of 80: up to 15 % may be at risk 1, so 4 % found by the search shows nothing
    open_ = _worst(_row(0.04, 0.12))
    assert not open_.passed and open_.upper == pytest.approx(0.15)
    assert "cannot show it is within the limit: up to 15.0%" in open_.note
    # a limited search says so
    assert _worst(_row(0.04, 0.12, cut=3)).note.startswith("a lower bound (limited search), which cannot")


def test_a_searched_share_over_the_limit_fails_and_an_exact_one_is_judged_as_it_is():
    assert not _worst(_row(0.2, 0.01)).passed
    exact = _worst(_row(0.04, 0.9, exact=True))
    assert exact.passed and not exact.lower_bound and exact.upper is None and exact.note == "exact"


def test_without_whole_traces_measured_a_searched_share_cannot_pass():
    row = _row(0.0, 0.0)
    del row["kanon"]
    check = _worst(row)
    assert not check.passed and "k-anonymity, which bounds it from above, was not measured" in check.note


def test_nobody_covered_gives_no_bound():
    check = _worst(_row(0.0, 0.0, excluded=100))
    assert not check.passed and check.upper is None
    assert "the people it covers were not counted in the file" in check.note


def test_models_that_match_visit_counts_get_no_bound_from_whole_traces():
    """Pairs of people share the same two places, visited 2 + 12 and 1 + 13 times: their whole traces are
    the same set, yet knowing "2 visits to the first place" singles out one of each pair (review)."""
    users, places = [], []
    for k in range(20):
        for name, first, second in ((f"p{k}", 2, 12), (f"q{k}", 1, 13)):
            users += [name] * (first + second)
            places += [f"a{k}"] * first + [f"b{k}"] * second
    events = build_event_table(np.asarray(users), np.arange(len(users), dtype=np.int64), np.asarray(places))
    measures = ["unicity", "k_anonymity", "worst_case"]
    records = RiskSettings(["raw"], ["all"], p_values=[2], measures=measures, knowledge="records", samples=40)
    (result,) = run_grid(events, records)
    grid = grid_table([result])
    assert grid.unique_traces()[0] == 0.0  # nobody's whole trace is unique, as sets
    (bound, why) = grid.worst_upper(2)[0]
    assert np.isnan(bound) and "records model matches visit counts or order" in why
    (checks,) = check_profiles(grid, ReleaseCriteria(0.5), "unicity", 2, "unicity at p = 2")
    worst = next(c for c in checks if c.name == WORST)
    if worst.lower_bound:  # a searched share within the limit cannot pass on a bound that does not hold
        assert not worst.passed and "records model matches visit counts" in worst.note
    else:
        assert worst.note == "exact"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sets(st.integers(0, 6), min_size=1, max_size=6), min_size=2, max_size=10),
    st.integers(1, 4),
    st.one_of(st.none(), st.integers(1, 10)),
)
def test_the_bound_is_never_below_the_exact_worst_case(sets, p, samples):
    """The engine's upper bound (unique whole traces over the people covered, counted in the file even
    when the figures are sampled) against the brute-force share of people some p of whose points single
    them out."""
    how = {"exact": True} if samples is None else {"samples": samples, "exact_budget": 0}
    settings_ = RiskSettings(["raw"], ["all"], p_values=[p], measures=["k_anonymity", "worst_case"], **how)
    (result,) = run_grid(table_from_sets(sets, 7), settings_)
    upper, _ = grid_table([result]).worst_upper(p)[0]
    truth = reference.exact_measures(sets, p, 7)
    if truth["n_included"] == 0:
        assert np.isnan(upper)
        return
    assert upper >= truth["worst_share"] - 1e-12
    unique = sum(
        size == 1
        for size, t in zip(reference.fingerprint_class_sizes(sets), sets, strict=True)
        if len(t) >= p
    )
    assert upper >= unique / truth["n_included"] - 1e-12  # the bound counts every unique trace


def test_a_bounded_check_comes_back_from_a_saved_search():
    check = _worst(_row(0.04, 0.06))
    assert check_from_dict({**check.to_dict(), "note": check.note}) == check
