"""The privacy loss of a project's releases: aggregates add up (sequential composition), microdata files
are named beside the sum, a budget refuses what would exceed it, and older projects' records join the one
history in the order they were made."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.aggregate.budget import PrivacyLoss, check_budget, spent
from privacy_studio.core.aggregate.manifest import aggregate_releases
from privacy_studio.core.aggregate.options import AggregateError, AggregateOptions
from privacy_studio.core.analyses import AggregateReleases, ReleaseHistory, record_release


def _options(epsilon: float, delta: float = 0.0) -> AggregateOptions:
    return AggregateOptions("district", "1w", "density", epsilon, delta, 10)


class _Aggregate:
    def __init__(self, epsilon: float, delta: float, created: str = "") -> None:
        self.options, self.created = _options(epsilon, delta), created


releases = st.lists(
    st.one_of(
        st.tuples(st.just("rows"), st.text("abc", min_size=1, max_size=3)),
        st.tuples(
            st.just("aggregate"),
            st.tuples(st.floats(0.01, 5, allow_nan=False), st.sampled_from([0.0, 1e-6, 1e-5])),
        ),
    ),
    max_size=8,
)


def _spent(drawn: list):
    """``spent`` of a drawn history: its aggregates and its microdata files, in order."""
    aggregates = [_Aggregate(*x) for kind, x in drawn if kind == "aggregate"]
    return spent(aggregates, [x for kind, x in drawn if kind == "rows"])


@given(releases)
def test_spent_adds_every_aggregate_and_names_every_microdata_file(drawn):
    loss = _spent(drawn)
    epsilons = [x[0] for kind, x in drawn if kind == "aggregate"]
    assert loss.epsilon == pytest.approx(sum(epsilons))
    assert loss.delta == pytest.approx(sum(x[1] for kind, x in drawn if kind == "aggregate"))
    assert loss.aggregates == len(epsilons)
    assert loss.microdata == [x for kind, x in drawn if kind == "rows"]


@given(releases, st.floats(0.01, 5), st.floats(0.01, 20))
def test_the_budget_refuses_exactly_what_would_exceed_it(drawn, epsilon, budget):
    before = _spent(drawn)
    total = sum(x[0] for kind, x in drawn if kind == "aggregate") + epsilon
    if total > budget * (1 + 1e-9):
        with pytest.raises(AggregateError, match="over the budget"):
            check_budget(before, _options(epsilon), budget)
    elif total < budget * (1 - 1e-9):
        check_budget(before, _options(epsilon), budget)


def test_a_spent_budget_says_so():
    with pytest.raises(AggregateError, match="the budget is spent"):
        check_budget(PrivacyLoss(1.0, 0.0, 2), _options(0.1), 1.0)
    with pytest.raises(AggregateError, match="positive"):
        check_budget(PrivacyLoss(), _options(0.1), 0.0)


def test_the_loss_round_trips_and_reads_in_words():
    loss = PrivacyLoss(1.5, 1e-6, 2, ["r.csv"])
    assert PrivacyLoss.from_dict(loss.to_dict()) == loss
    assert loss.describe() == (
        "2 aggregates of these people spend ε = 1.5, δ = 0.000001 together; rows of the same people were "
        "also released as microdata (r.csv), no ε bounds them"
    )
    assert PrivacyLoss().describe() == "no aggregate of these people was written before"


def test_an_older_projects_aggregates_join_the_history_in_time_order(sample_project, tmp_path):
    """Projects written before the one history kept aggregates under ``aggregate_releases``."""
    from privacy_studio import cli
    from privacy_studio.core.project import Project

    out = tmp_path / "d.csv"
    args = ["aggregate", str(sample_project), "--profile", "district:1w", "--epsilon", "1"]
    assert cli.main([*args, "--max-points-per-person", "5", "--out", str(out)]) == 0
    project = Project.load(sample_project)
    manifest = aggregate_releases(project.analyses)[0]
    old = replace(manifest, created="2020-01-01T00:00:00+00:00")
    analyses = {AggregateReleases.KEY: [old.to_dict()]}
    history = ReleaseHistory.of(analyses)
    assert [(k, r["file"]) for k, r in history.entries] == [("aggregate", "d.csv")]
    record_release(analyses, "aggregate", manifest)
    assert AggregateReleases.KEY not in analyses
    assert [r.created for r in aggregate_releases(analyses)] == [
        old.created,
        manifest.created,
    ]
