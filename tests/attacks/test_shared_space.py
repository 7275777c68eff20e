"""Two datasets on one point space: merged users keep their order, hierarchies merge on shared levels,
and ground truth comes from equal ids or a links list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import EventTable, LocationTable, build_event_table
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.measures.attacks.shared_space import merge_tables, truth_pairs
from privacy_studio.core.measures.attacks.sparse_users import split_traces

DAY = 86400


def test_calls_and_shops_meet_on_a_shared_level():
    calls = build_event_table(
        np.array(["u1", "u2", "u1"]), np.array([0, DAY, 2 * DAY]), np.array(["A1", "A2", "A1"])
    )
    cards = build_event_table(np.array(["c9", "c8"]), np.array([10, DAY + 10]), np.array(["S1", "S2"]))
    h_calls = Hierarchy.from_mapping(calls.location_ids, "antenna", {"zip": np.array(["Z1", "Z2"])})
    h_cards = Hierarchy.from_mapping(
        cards.location_ids, "shop", {"zip": np.array(["Z1", "Z2"]), "x": np.array(["a", "b"])}
    )
    merged = merge_tables(calls, cards, h_calls, h_cards)
    assert merged.n_first == 2
    assert merged.events.user_ids.tolist() == ["0|u1", "0|u2", "1|c8", "1|c9"]
    assert merged.hierarchy.levels == ("zip",)
    first, second = split_traces(generalize(merged.events, Profile.parse("zip", "1d"), merged.hierarchy), 2)
    # u1: Z1 on days 0 and 2; u2: Z2 on day 1; c8: Z2 day 1; c9: Z1 day 0 -> c9 shares u1's first bin.
    assert first.keys[first.indptr[0] : first.indptr[1]].tolist()[0] == second.keys[second.indptr[1]]
    assert first.keys[first.indptr[1]] == second.keys[second.indptr[0]]


def test_location_missing_from_hierarchies_is_named():
    calls = build_event_table(np.array(["u1"]), np.array([0]), np.array(["A1"]))
    cards = build_event_table(np.array(["c1"]), np.array([0]), np.array(["S1"]))
    h = Hierarchy.from_mapping(calls.location_ids, "antenna", {"zip": np.array(["Z1"])})
    with pytest.raises(ValueError, match="location 'S1' is in no hierarchy file"):
        merge_tables(calls, cards, h, None)


def _placed(ids: list[str], lat: list[float], lon: list[float]) -> LocationTable:
    return LocationTable(np.array(ids), np.array(lat), np.array(lon), np.array(lon) * 80, np.array(lat) * 111)


def _at(places: LocationTable, user: str) -> EventTable:
    n = len(places.ids)
    return build_event_table(np.array([user] * n), np.arange(n) * 3600, places.ids, locations=places)


def test_one_location_at_two_places_is_refused():
    calls = _at(_placed(["A1", "A2"], [48.85, 48.86], [2.35, 2.36]), "u1")
    moved = _at(_placed(["A1", "A3"], [48.90, 48.87], [2.35, 2.37]), "c1")
    with pytest.raises(ValueError, match=r"location 'A1' is at two places .*48.850000, 2.350000 and 48.9"):
        merge_tables(calls, moved)


def test_a_place_one_dataset_does_not_locate_takes_the_others_coordinates():
    calls = _at(_placed(["A1", "A2"], [np.nan, 48.86], [np.nan, 2.36]), "u1")
    cards = _at(_placed(["A1"], [48.85], [2.35]), "c1")
    places = merge_tables(calls, cards).events.locations
    assert places.ids.tolist() == ["A1", "A2"]
    assert places.lat.tolist() == [48.85, 48.86]
    assert merge_tables(cards, calls).events.locations.lat.tolist() == [48.85, 48.86]


def test_one_location_in_two_units_is_refused():
    calls = build_event_table(np.array(["u1"]), np.array([0]), np.array(["A1"]))
    cards = build_event_table(np.array(["c1"]), np.array([0]), np.array(["A1"]))
    h_calls = Hierarchy.from_mapping(calls.location_ids, "antenna", {"zip": np.array(["Z1"])})
    h_cards = Hierarchy.from_mapping(cards.location_ids, "antenna", {"zip": np.array(["Z2"])})
    with pytest.raises(ValueError, match="location 'A1' is in zip 'Z1' in one hierarchy file and in 'Z2'"):
        merge_tables(calls, cards, h_calls, h_cards)


def test_empty_dataset_is_refused():
    calls = build_event_table(np.array(["u1"]), np.array([0]), np.array(["A1"]))
    empty = build_event_table(np.array([], dtype=str), np.array([], dtype=np.int64), np.array([], dtype=str))
    with pytest.raises(ValueError, match="at least one event"):
        merge_tables(calls, empty)


def test_truth_from_ids_and_links():
    first, second = np.array(["a", "b", "c"]), np.array(["x", "a", "y"])
    assert truth_pairs(first, second).tolist() == [1, -1, -1]
    assert truth_pairs(first, second, [("b", "x"), ("c", "y"), ("zz", "x")]).tolist() == [-1, 0, 2]


def test_user_listed_without_events_is_refused():
    calls = build_event_table(np.array(["u1", "u2"]), np.array([0, 5]), np.array(["A1", "A1"]))
    quiet = calls.subset_users(np.array([0]))
    lonely = type(calls)(**{**quiet.__dict__, "user_ids": np.array(["u0", "u1"])})  # u0 has no event
    with pytest.raises(ValueError, match="needs at least one event"):
        merge_tables(lonely, calls)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=20), st.lists(st.integers(0, 5), min_size=1, max_size=20)
)
def test_merged_users_are_each_events_prefixed_id(first_users, second_users):
    """Every merged event carries its own dataset's prefix and its person's id (prefixed per person, then
    spread to the events)."""
    first = _table([f"a{u}" for u in first_users])
    second = _table([f"b{u}" for u in second_users])
    merged = merge_tables(first, second).events
    ids = merged.user_ids[merged.user].tolist()
    expected = [f"0|{first.user_ids[u]}" for u in first.user] + [
        f"1|{second.user_ids[u]}" for u in second.user
    ]
    assert sorted(ids) == sorted(expected)
    assert merged.n_users == first.n_users + second.n_users


def _table(users: list[str]):
    times = np.arange(len(users), dtype=np.int64) * 3600 + 1_700_000_000
    return build_event_table(np.asarray(users), times, np.asarray(["L1"] * len(users)), tz="UTC")


def _merged_by_spelling(first, second):
    """The reference merge: every event's prefixed user id and location id spelled out and coded by
    ``build_event_table`` (what ``merge_tables`` did before it coded from each table's distinct ids)."""
    from privacy_studio.core.measures.attacks.shared_space import _merge_locations

    users = np.concatenate(
        [np.char.add("0|", first.user_ids[first.user]), np.char.add("1|", second.user_ids[second.user])]
    )
    has_ids = (first.location >= 0).all() and (second.location >= 0).all()
    location = locations = None
    if has_ids:
        location = np.concatenate([first.location_ids[first.location], second.location_ids[second.location]])
        locations = _merge_locations(first, second, None)
    times = np.concatenate([first.time, second.time])
    return build_event_table(users, times, location, tz=first.tz, locations=locations)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcdefg"), st.integers(0, 9), st.sampled_from(["A", "B", "C10", "C2"])),
        min_size=1,
        max_size=25,
    ),
    st.lists(
        st.tuples(st.sampled_from("aexyz"), st.integers(0, 9), st.sampled_from(["A", "B", "Z", "C2"])),
        min_size=1,
        max_size=25,
    ),
    st.booleans(),
)
def test_merge_codes_every_event_as_spelling_each_id_out(left, right, with_places):
    """Coded from each table's distinct ids, the merged users, places and event order are those of the
    merge that spelled every event's ids (with and without a table of places)."""

    def table(rows):
        users, times, places = (np.array(c) for c in zip(*rows, strict=True))
        distinct = np.unique(places)
        where = np.array([sum(map(ord, p)) for p in distinct], dtype=float)  # one place per id in both
        known = LocationTable(distinct, *(where,) * 4) if with_places else None
        return build_event_table(users, times * 3600, places, locations=known)

    first, second = table(left), table(right)
    got, want = merge_tables(first, second).events, _merged_by_spelling(first, second)
    assert got.user_ids.tolist() == want.user_ids.tolist()
    assert got.location_ids.tolist() == want.location_ids.tolist()
    for name in ("user", "time", "location"):
        assert getattr(got, name).tolist() == getattr(want, name).tolist(), name
    assert got.user.dtype == want.user.dtype and got.location.dtype == want.location.dtype
