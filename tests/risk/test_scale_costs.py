"""Work that grew with the square of the population (issue #30): the cheaper paths give the same sets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.index import build_index
from privacy_studio.core.measures.unicity import whole_trace_sizes
from privacy_studio.core.risk.results import PResult
from privacy_studio.core.runner import add_file_populations
from tests.risk import reference
from tests.risk.helpers import traces_from_sets

traces_strategy = st.lists(st.sets(st.integers(0, 7), min_size=0, max_size=7), min_size=1, max_size=12)


@settings(max_examples=80, deadline=None)
@given(traces_strategy, st.sampled_from([1, 3, None]))
def test_whole_trace_sets_are_the_people_holding_the_whole_trace(sets, dense_min):
    """|E(T_u)| walked shortest lists first equals the reference's count of traces containing T_u, with
    posting lists held as sorted lists or as bitmaps (``dense_min`` 1)."""
    index = build_index(traces_from_sets(sets, 8), dense_min=dense_min)
    users = [u for u, t in enumerate(sets) if t]
    got = whole_trace_sizes(index, users)
    assert list(got) == [len(reference.anonymity_set(sets, sets[u])) for u in users]


@settings(max_examples=60, deadline=None)
@given(traces_strategy, st.lists(st.booleans(), min_size=4, max_size=4))
def test_the_all_points_unicity_of_exact_rows_among_sampled_ones(sets, exact_at):
    """Rows mixing exact and sampled p values: each exact row's all-points unicity counts the people
    shorter than its p on their whole trace (reference), whatever the other rows; sampled rows keep theirs."""
    index = build_index(traces_from_sets(sets, 8))
    rows = [
        PResult(p=p, unicity=0.5, method="exact" if e else "sampled", unicity_all_points=0.25)
        for p, e in zip((1, 2, 3, 4), exact_at, strict=True)
    ]
    add_file_populations(index, rows, with_unicity=True)
    for row in rows:
        short = [t for t in sets if 0 < len(t) < row.p]
        assert row.n_excluded_in_file == sum(len(t) < row.p for t in sets)
        if row.method == "sampled":
            assert row.unicity_all_points == 0.25
            continue
        included = len(sets) - row.n_excluded_in_file
        unique = sum(len(reference.anonymity_set(sets, t)) == 1 for t in short)
        expected = (0.5 * included + unique) / max(1, included + len(short))
        assert row.unicity_all_points == pytest.approx(expected)
