"""The targeted worst-case search's work budget (issue #30): unlimited or not reached, the search is the
slow reference's step for step; reached, it says from which p it was cut and its figures stay lower bounds."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.index import build_index
from privacy_studio.core.kernels.sample_pass import N_PARTS
from privacy_studio.core.kernels.worst_search import worst_search
from privacy_studio.core.measures import worstcase
from privacy_studio.core.runner import RiskSettings, run_grid
from tests.risk import reference
from tests.risk.helpers import table_from_sets, traces_from_sets

traces_strategy = st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=7), min_size=1, max_size=9)
many_traces = st.lists(st.sets(st.integers(0, 7), min_size=1, max_size=7), min_size=1, max_size=24)


def searched(
    sets: list[set[int]], pmax: int, beam: int, budget: float, dense_min: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's search; ``dense_min`` 1 holds every list as a bitmap too, 3 only the longer ones."""
    index = build_index(traces_from_sets(sets, 8), dense_min=dense_min)
    users = np.arange(len(sets), dtype=np.int64)
    return worst_search(users, index.arrays(), index.max_list, pmax, beam, budget)


@settings(max_examples=80, deadline=None)
@given(traces_strategy, st.integers(1, 6), st.integers(1, 4), st.sampled_from([1, 3, None]))
def test_an_unlimited_search_is_the_references_and_never_cut(sets, pmax, beam, dense_min):
    found, cut = searched(sets, pmax, beam, math.inf, dense_min)
    for u in range(len(sets)):
        best, ref_cut, _ = reference.targeted_search(sets, u, pmax, beam)
        assert found[u].tolist() == best and cut[u] == ref_cut == 0


@settings(max_examples=80, deadline=None)
@given(many_traces, st.integers(1, 6), st.integers(1, 4), st.floats(0, 400), st.sampled_from([1, 3, None]))
def test_a_budgeted_search_is_the_references_with_the_same_budget(sets, pmax, beam, budget, dense_min):
    """Wherever the budget falls (not reached, mid-level, before a level; left over by a quick search for
    the next person of its part), kernel and reference agree on every value and on the first p the budget
    touched; a search the budget did not cut is the unlimited one."""
    found, cut = searched(sets, pmax, beam, budget, dense_min)
    unlimited, _ = searched(sets, pmax, beam, math.inf, dense_min)
    expected = reference.targeted_searches(sets, list(range(len(sets))), pmax, beam, budget, N_PARTS)
    for u, (best, ref_cut) in enumerate(expected):
        assert found[u].tolist() == best and cut[u] == ref_cut
        if cut[u] == 0:
            assert found[u].tolist() == unlimited[u].tolist()


@settings(max_examples=80, deadline=None)
@given(traces_strategy, st.integers(2, 6), st.integers(1, 4), st.floats(0, 60))
def test_a_cut_search_still_gives_lower_bounds_of_the_worst_case(sets, pmax, beam, budget):
    """Every value, cut or not, is no smaller than the smallest set over all k-subsets (so 1/value never
    overstates the risk), and a cut person's values from the cut on are not exact-looking ones."""
    found, cut = searched(sets, pmax, beam, budget)
    for u, trace in enumerate(sets):
        for k in range(1, min(pmax, len(trace)) + 1):
            smallest = min(len(reference.anonymity_set(sets, set(a))) for a in combinations(sorted(trace), k))
            assert found[u, k - 1] >= smallest
        if cut[u]:
            assert 2 <= cut[u] <= min(pmax, len(trace)) and found[u, cut[u] - 1] > 1


def test_the_budget_is_shared_equally_and_set_before_the_search():
    one = worstcase.search_budget(30.0, 10_000, 1)
    assert one == 30.0 * worstcase.SEARCH_RATE / 10_000
    assert worstcase.search_budget(30.0, 10_000, 2) == 2 * one == worstcase.search_budget(30.0, 5_000, 1)


def test_a_run_says_how_many_people_a_cut_search_left_with_a_lower_bound():
    """With no search budget, every person below risk 1 at p >= 2 is counted as cut; the figures are still
    lower bounds of the exact worst case (the reference over every subset), and p = 1 is never cut."""
    sets = [{0, 1, 2}, {0, 1}, {1, 2}, {0, 2, 3}, {0, 1, 2, 3}, {1, 3}, {0, 3}]
    common = dict(p_values=[1, 2, 3], samples=7, measures=["worst_case"], exact_budget=0)
    (full,) = run_grid(table_from_sets(sets, 4), RiskSettings(["raw"], ["all"], **common))
    (cut,) = run_grid(table_from_sets(sets, 4), RiskSettings(["raw"], ["all"], search_budget=0, **common))
    assert [r.worst_search_cut for r in full.by_p] == [0, 0, 0]
    assert cut.by_p[0].worst_search_cut == 0 and cut.by_p[1].worst_search_cut > 0
    for row in cut.by_p:
        exact = reference.exact_measures(sets, row.p, 4)
        assert row.worst_mean <= exact["worst_mean"] + 1e-12
        assert row.to_dict()["worst_search_cut"] == row.worst_search_cut
