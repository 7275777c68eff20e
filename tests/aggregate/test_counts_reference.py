"""True and bounded aggregates against the slow reference, a worked example, and the bound's guarantee."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.aggregate.cells import bounded_counts, contributions
from privacy_studio.core.aggregate.export import cell_table
from tests.aggregate import reference
from tests.aggregate.conftest import START, TZ, dataset_of

events_strategy = st.lists(
    st.tuples(st.sampled_from(["u1", "u2", "u3", "u4"]), st.integers(0, 4 * 86400), st.sampled_from("abc")),
    min_size=1,
    max_size=50,
)


def _counted(rows, kind: str, bound: int) -> tuple[dict, dict]:
    """(true, bounded) people per cell as {(time, place...): people}, read from the file's own rows."""
    dataset = dataset_of([(u, START + t, p) for u, t, p in rows])
    grid, person_rows = contributions(dataset.events, "raw", "1d", kind, None)
    counts = bounded_counts(person_rows, grid.n_cells, bound)

    def as_dict(values: np.ndarray) -> dict:
        table = cell_table(grid, values, TZ).to_pylist()
        return {tuple(r[c] for c in r if c != "people"): r["people"] for r in table}

    return as_dict(counts.true), as_dict(counts.bounded)


@settings(max_examples=150, deadline=None)
@given(events_strategy, st.integers(1, 6), st.sampled_from(["density", "od"]))
def test_counts_equal_the_reference(rows, bound, kind):
    true, bounded = _counted(rows, kind, bound)
    shifted = [(u, START + t, p) for u, t, p in rows]
    assert true == reference.counts(shifted, TZ, kind, None)
    assert bounded == reference.counts(shifted, TZ, kind, bound)


def test_worked_example_by_hand():
    # u1: a (day 0) -> a (day 0, same point: one visit) -> b (day 0) -> b (day 1) -> a (day 1)
    # u2: b (day 0) -> c (day 1)
    hour = 3600
    rows = [
        ("u1", 8 * hour, "a"),
        ("u1", 9 * hour, "a"),
        ("u1", 10 * hour, "b"),
        ("u1", 24 * hour + 8 * hour, "b"),
        ("u1", 24 * hour + 9 * hour, "a"),
        ("u2", 12 * hour, "b"),
        ("u2", 24 * hour + 12 * hour, "c"),
    ]
    density, _ = _counted(rows, "density", 10)
    day0, day1 = "2024-03-29T00:00:00+01:00", "2024-03-30T00:00:00+01:00"
    assert density == {
        (day0, "a"): 1, (day0, "b"): 2, (day0, "c"): 0,
        (day1, "a"): 1, (day1, "b"): 1, (day1, "c"): 1,
    }  # fmt: skip
    od, od_bounded = _counted(rows, "od", 1)
    moves = {
        (day0, "a", "b"): 1,  # u1
        (day0, "b", "b"): 1,  # u1 stays at b into day 1: a move in the origin's bin, day 0
        (day1, "b", "a"): 1,  # u1
        (day0, "b", "c"): 1,  # u2 goes from b (day 0) to c (day 1)
    }
    assert {k: v for k, v in od.items() if v} == moves
    assert len(od) == 2 * 3 * 3  # the full grid: 2 days x 3 origins x 3 destinations
    # bound 1: each person keeps one move, their most frequent (all once: the earliest cell)
    assert {k: v for k, v in od_bounded.items() if v} == {(day0, "a", "b"): 1, (day0, "b", "c"): 1}


def test_a_person_with_ten_thousand_events_moves_any_cell_by_at_most_one_and_the_total_by_n():
    rng = np.random.default_rng(3)
    crowd = [
        (f"p{i}", START + int(rng.integers(0, 10 * 86400)), str(rng.integers(0, 20))) for i in range(300)
    ]
    crowd += [("first", START, "0"), ("last", START + 10 * 86400 - 1, "0")]  # the same period either way
    heavy = [
        ("heavy", START + int(t), str(p))
        for t, p in zip(rng.integers(0, 10 * 86400, 10_000), rng.integers(0, 20, 10_000), strict=True)
    ]
    places = {p for _, _, p in crowd}
    heavy = [r for r in heavy if r[2] in places]  # same grid with or without them
    bound = 7
    for kind in ("density", "od"):
        without = _bounded(crowd, kind, bound)
        with_heavy = _bounded(crowd + heavy, kind, bound)
        assert len(without) == len(with_heavy)
        change = np.abs(with_heavy - without)
        assert change.max() <= 1 and change.sum() <= bound
        assert change.sum() == bound  # the heavy person has more than 7 cells: exactly 7 are counted


def _bounded(rows, kind: str, bound: int) -> np.ndarray:
    dataset = dataset_of(rows)
    grid, person_rows = contributions(dataset.events, "raw", "1d", kind, None)
    return bounded_counts(person_rows, grid.n_cells, bound).bounded
