"""The run's information loss generalizes one profile at a time (besides the finest), and scores exactly
what holding every profile's traces at once scored."""

from __future__ import annotations

import weakref

from hypothesis import HealthCheck, given, settings

from privacy_studio.core import project_run
from privacy_studio.core.analyses import ComputedUtility
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.project_run import computed_utility
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.utility import computed_utilities
from tests.release.test_search import _dataset, events_strategy

#: 1 h and 90 min bins do not nest: whichever is not the finest is reported, not scored.
RISK = RiskSettings(spatial=["raw"], temporal=["1h", "90min", "6h", "1d", "all"], p_values=[1], samples=50)


@given(events_strategy)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_scores_are_those_of_every_profile_held_at_once(rows):
    dataset = _dataset(rows)
    held = {p.label: generalize(dataset.events, Profile(p.spatial, p.temporal)) for p in RISK.profiles()}
    expected = ComputedUtility(*computed_utilities(dataset.events, held))
    assert set(expected.problems) in ({"raw × 90min"}, {"raw × 1h"}), "whichever of the two is not finest"
    assert computed_utility(dataset, RISK) == expected, "finest found by counting each profile's points"
    results = list(run_grid(dataset.events, RISK, None))
    assert computed_utility(dataset, RISK, results=results) == expected, "finest named by the results"


def test_no_more_than_the_finest_and_one_other_profile_are_held(monkeypatch):
    rows = [(u, 600 * k + 97 * u, "abcd"[(u + k) % 4]) for u in range(8) for k in range(30)]
    made: list[weakref.ref] = []
    most: list[int] = []  # traces alive as each is made

    def counted(*args, **kwargs):
        traces = generalize(*args, **kwargs)
        made.append(weakref.ref(traces))
        most.append(sum(ref() is not None for ref in made))
        return traces

    monkeypatch.setattr(project_run, "generalize", counted)
    dataset = _dataset(rows)
    scored = computed_utility(dataset, RISK)
    assert len(scored.scores) == 4 and len(most) == 2 * 5, "each counted, then the finest and the others"
    assert max(most) <= 2
    most.clear()
    computed_utility(dataset, RISK, results=list(run_grid(dataset.events, RISK, None)))
    assert len(most) == 5 and max(most) <= 2, "the results name the finest: nothing generalized twice"
