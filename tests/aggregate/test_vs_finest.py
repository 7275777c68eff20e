"""The density map of an aggregate scored against the finest profile exactly as microdata candidates are."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.aggregate.cells import contributions
from privacy_studio.core.aggregate.footing import density_score_vs_finest, score_vs_finest
from privacy_studio.core.events import LocationTable, build_event_table
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.utility import computed_utilities
from tests.aggregate.conftest import START, TZ

DAY = 86400


def _events(rows, places=("a", "b", "z")):
    users, times, where = zip(*rows, strict=True)
    n = len(places)
    table = LocationTable(np.asarray(places), *(np.full(n, np.nan) for _ in range(2)), *(np.zeros(n),) * 2)
    return build_event_table(
        np.asarray(users), START + np.asarray(times), np.asarray(where), tz=TZ, locations=table
    )


def _score(events, released=None):
    fine, coarse = Profile.parse("raw", "1d"), Profile.parse("raw", "all")
    grid, rows = contributions(events, "raw", "all", "density", None)
    true = np.bincount(rows.points, minlength=grid.n_cells)
    values = true if released is None else np.asarray(released)
    return density_score_vs_finest(events, None, generalize(events, fine), coarse, grid, values)


def test_worked_example_with_noise_on_a_place_nobody_visited():
    # u1 at a on days 0 and 1, u2 at b on day 0; place z is known but never visited
    events = _events([("u1", 3600, "a"), ("u1", DAY + 3600, "a"), ("u2", 3600, "b")])
    # true people per place over the period: a 1, b 1, z 0; spread over 2 days: 0.5 per fine cell
    # |0.5 - 1| x 2 (a) + |0.5 - 1| + |0.5 - 0| (b) = 2; totals 3 (fine) + 2 (coarse): loss 2/5
    assert _score(events) == pytest.approx(10 * (1 - 2 / 5))
    # released a 3, b 1, z 2: a 1.5 per cell (error 1), b as before (1); z's 2 have nowhere to go
    assert _score(events, [3, 1, 2]) == pytest.approx(10 * (1 - (2 + 2) / (3 + 4 + 2)))


rows_strategy = st.lists(
    st.tuples(st.sampled_from(["u1", "u2", "u3"]), st.integers(0, 3 * DAY), st.sampled_from("abz")),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_the_true_counts_score_what_the_microdata_scores(rows):
    events = _events(rows)
    fine, coarse = Profile.parse("raw", "1d"), Profile.parse("raw", "all")
    scores, _ = computed_utilities(events, {p.label: generalize(events, p) for p in (fine, coarse)})
    assert _score(events) == pytest.approx(scores[coarse.label]["density_map"])


def test_moves_are_not_scored_against_the_finest_profile():
    events = _events([("u1", 3600, "a"), ("u1", DAY + 3600, "b")])
    grid, _ = contributions(events, "raw", "1d", "od", None)
    result = score_vs_finest(events, None, [], Profile.parse("raw", "1d"), grid, np.zeros(grid.n_cells))
    assert result.utility is None and "moves" in result.problem


def _slow_score(rows, released) -> float:
    """Dicts: the fine map (people per place and local day), the released per-place counts spread evenly
    over the visited place's days of the period; a known place nobody visited keeps its mass as error."""
    from tests.aggregate import reference

    fine = {cell: n for cell, n in reference.counts(rows, TZ, "density", None).items() if n}
    days = sorted({day for day, _ in reference.all_cells(rows, TZ, "density")})
    visited = {place for _, _, place in rows}
    spread, orphan = {}, 0.0
    for place, mass in zip("abz", released, strict=True):
        if place not in visited:
            orphan += mass
            continue
        for day in days:
            spread[(day, place)] = mass / len(days)
    error = sum(abs(spread.get(c, 0.0) - fine.get(c, 0)) for c in set(spread) | set(fine))
    whole = sum(fine.values()) + sum(spread.values()) + orphan
    return 10.0 * (1.0 - ((error + orphan) / whole if whole else 0.0))


@settings(max_examples=80, deadline=None)
@given(rows_strategy, st.lists(st.integers(0, 6), min_size=3, max_size=3))
def test_any_released_counts_score_as_the_slow_reference(rows, released):
    events = _events(rows)
    shifted = [(u, START + t, p) for u, t, p in rows]
    assert _score(events, released) == pytest.approx(_slow_score(shifted, released))
