"""Expert score grid validation, and computed information loss against plain-Python references."""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.utility import COMPUTED_SCORES, UtilityGrid, computed_utilities, information_loss

MONDAY = 4 * 86400
T0 = MONDAY + 2_000 * 7 * 86400  # a Monday midnight, UTC


# -- expert scores --------------------------------------------------------------------------------------


def test_grid_round_trips_and_renames_keep_scores():
    grid = UtilityGrid(["transport", "epidemiology"], {"zip × 1h": {"transport": 9, "epidemiology": "7.5"}})
    grid.set_score("district × 1w", "transport", 3)
    grid.rename_domain("transport", "mobility")
    assert grid.domains == ["mobility", "epidemiology"]
    assert grid.scores["zip × 1h"] == {"mobility": 9.0, "epidemiology": 7.5}
    again = UtilityGrid.from_dict(grid.to_dict())
    assert again == grid
    col = again.column("mobility", ["zip × 1h", "district × 1w", "unscored"])
    assert col[:2].tolist() == [9.0, 3.0] and np.isnan(col[2])
    again.remove_domain("epidemiology")
    assert again.scores["zip × 1h"] == {"mobility": 9.0}


@pytest.mark.parametrize("bad", [-0.1, 10.5, "high", float("nan"), float("inf")])
def test_grid_rejects_scores_outside_0_to_10(bad):
    grid = UtilityGrid(["transport"])
    with pytest.raises(ValueError, match="0 to 10"):
        grid.set_score("zip × 1h", "transport", bad)
    with pytest.raises(ValueError, match="0 to 10"):
        UtilityGrid(["transport"], {"zip × 1h": {"transport": bad}})


def test_grid_rejects_bad_domain_names():
    with pytest.raises(ValueError, match="distinct"):
        UtilityGrid(["a", "a"])
    with pytest.raises(ValueError, match="non-empty"):
        UtilityGrid(["a"]).add_domain("  ")
    with pytest.raises(ValueError, match="already exists"):
        UtilityGrid(["a", "b"]).rename_domain("a", "b")
    with pytest.raises(ValueError, match="unknown domain 'b'"):
        UtilityGrid(["a"], {"p": {"b": 3}})


# -- computed information loss: plain-Python reference ----------------------------------------------------


def reference_loss(users, times, locs, district, fine_w, coarse_w, coarse_level):
    """Points lost, density error and OD error, one event and one fine cell at a time (time in UTC)."""

    def unit(loc, level):
        return loc if level == "raw" else district[loc]

    def tbin(t, w):
        return 0 if w is None else (t - MONDAY) // w

    def parent_bin(b, w_f, w_c):
        return 0 if w_c is None else (MONDAY + b * w_f - MONDAY) // w_c

    fine_pts, coarse_pts = defaultdict(set), defaultdict(set)
    for u, t, loc in zip(users, times, locs, strict=True):
        fine_pts[u].add((loc, tbin(t, fine_w)))
        coarse_pts[u].add((unit(loc, coarse_level), tbin(t, coarse_w)))
    n_fine = sum(len(s) for s in fine_pts.values())
    lost = 1 - sum(len(s) for s in coarse_pts.values()) / n_fine

    m_fine = Counter(x for s in fine_pts.values() for x in s)
    m_coarse = Counter(y for s in coarse_pts.values() for y in s)
    units = sorted(set(locs))
    bins = range(min(b for _, b in m_fine), max(b for _, b in m_fine) + 1)
    cells = [(a, b) for a in units for b in bins]
    children = Counter((unit(a, coarse_level), parent_bin(b, fine_w, coarse_w)) for a, b in cells)
    spread = {
        (a, b): m_coarse[(unit(a, coarse_level), parent_bin(b, fine_w, coarse_w))]
        / children[(unit(a, coarse_level), parent_bin(b, fine_w, coarse_w))]
        for a, b in cells
    }
    density = sum(abs(spread[x] - m_fine[x]) for x in cells) / (m_fine.total() + m_coarse.total())

    order = sorted(range(len(users)), key=lambda i: (users[i], times[i]))
    f_flows, c_flows = Counter(), Counter()
    for i, j in pairwise(order):
        if users[i] == users[j]:
            f_flows[(locs[i], locs[j])] += 1
            c_flows[(unit(locs[i], coarse_level), unit(locs[j], coarse_level))] += 1
    kids = Counter(unit(a, coarse_level) for a in units)
    od_total = f_flows.total() + c_flows.total()
    od = 0.0
    for a in units:
        for b in units:
            ca, cb = unit(a, coarse_level), unit(b, coarse_level)
            od += abs(c_flows[(ca, cb)] / (kids[ca] * kids[cb]) - f_flows[(a, b)])
    return lost, density, (od / od_total if od_total else 0.0)


def make(users, times, locs, district):
    events = build_event_table(np.asarray(users), np.asarray(times), np.asarray(locs))
    mapping = np.asarray([district[int(x)] for x in events.location_ids])
    hierarchy = Hierarchy.from_mapping(events.location_ids, "antenna", {"district": mapping})
    return events, hierarchy


WIDTHS = [(3600, 3600), (3600, 6 * 3600), (3600, None), (6 * 3600, 86400), (None, None)]


@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 3 * 86400), st.integers(0, 6)), min_size=1, max_size=40
    ),
    st.lists(st.integers(0, 2), min_size=7, max_size=7),
    st.sampled_from(WIDTHS),
    st.sampled_from(["raw", "district"]),
)
def test_information_loss_matches_reference(rows, district, widths, level):
    users, offsets, locs = (list(c) for c in zip(*rows, strict=True))
    times = [T0 + o for o in offsets]
    events, hierarchy = make(users, times, locs, district)
    fine_w, coarse_w = widths

    def label(w):
        return "all" if w is None else f"{w}s"

    fine = generalize(events, Profile.parse("antenna", label(fine_w)), hierarchy)
    coarse = generalize(events, Profile.parse(level, label(coarse_w)), hierarchy)
    got = information_loss(events, fine, coarse, hierarchy)
    want = reference_loss(users, times, locs, district, fine_w, coarse_w, level)
    assert (got.points_lost, got.density_error, got.od_error) == pytest.approx(want, abs=1e-12)
    assert all(0 <= v <= 10 for v in got.utilities().values())
    assert set(got.utilities()) == set(COMPUTED_SCORES) - {"amount_kept"}  # no price axis here


def test_same_profile_loses_nothing_and_full_merge_is_explained():
    users, times, locs = [1, 1, 2, 2], [T0, T0 + 7200, T0, T0 + 100], [0, 1, 0, 1]
    events, hierarchy = make(users, times, locs, {0: 0, 1: 0})
    fine = generalize(events, Profile.parse("antenna", "1h"), hierarchy)
    same = information_loss(events, fine, fine, hierarchy)
    assert (same.points_lost, same.density_error, same.od_error) == (0.0, 0.0, 0.0)
    coarse = generalize(events, Profile.parse("district", "all"), hierarchy)
    loss = information_loss(events, fine, coarse, hierarchy)
    # Every user's two points merge into one: half the (user, point) pairs are lost.
    assert loss.points_lost == 0.5


def reference_loss_by_events(users, times, fine_of, coarse_of, fine_w, coarse_w):
    """Density and OD errors when places need not nest: a fine unit's children links are the coarse units its
    events fall in; each coarse cell's mass is shared equally by every fine cell linked to it."""

    def tbin(t, w):
        return 0 if w is None else (t - MONDAY) // w

    def parent_bin(b):
        return 0 if coarse_w is None else b * fine_w // coarse_w

    links = defaultdict(set)
    for a, y in zip(fine_of, coarse_of, strict=True):
        links[a].add(y)
    kids = Counter(y for ys in links.values() for y in ys)
    m_fine, m_coarse = Counter(), Counter()
    seen_f, seen_c = set(), set()
    for u, t, a, y in zip(users, times, fine_of, coarse_of, strict=True):
        seen_f.add((u, a, tbin(t, fine_w)))
        seen_c.add((u, y, tbin(t, coarse_w)))
    m_fine = Counter((a, b) for _, a, b in seen_f)
    m_coarse = Counter((y, b) for _, y, b in seen_c)
    bins = range(min(b for _, b in m_fine), max(b for _, b in m_fine) + 1)
    bins_in = Counter(parent_bin(b) for b in bins)
    density = 0.0
    for a in links:
        for b in bins:
            spread = sum(m_coarse[(y, parent_bin(b))] / (kids[y] * bins_in[parent_bin(b)]) for y in links[a])
            density += abs(spread - m_fine[(a, b)])
    density /= m_fine.total() + m_coarse.total()
    order = sorted(range(len(users)), key=lambda i: (users[i], times[i]))
    f_flows, c_flows = Counter(), Counter()
    for i, j in pairwise(order):
        if users[i] == users[j]:
            f_flows[(fine_of[i], fine_of[j])] += 1
            c_flows[(coarse_of[i], coarse_of[j])] += 1
    od = sum(
        abs(sum(c_flows[(x, y)] / (kids[x] * kids[y]) for x in links[a] for y in links[b]) - f_flows[(a, b)])
        for a in links
        for b in links
    )
    total = f_flows.total() + c_flows.total()
    return density, (od / total if total else 0.0)


@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 3 * 86400), st.integers(0, 6)), min_size=1, max_size=40
    ),
    st.lists(st.integers(0, 2), min_size=7, max_size=7),
    st.sampled_from(WIDTHS),
)
def test_places_that_do_not_nest_are_scored_by_their_events(rows, district, widths):
    """Issue #25: a district (fine) spans several antennas (coarse), as a venue recorded at two coordinates
    spans two grid squares; the coarse maps are spread back over every fine place linked by an event."""
    users, offsets, locs = (list(c) for c in zip(*rows, strict=True))
    times = [T0 + o for o in offsets]
    events, hierarchy = make(users, times, locs, district)
    fine_w, coarse_w = widths

    def label(w):
        return "all" if w is None else f"{w}s"

    fine = generalize(events, Profile.parse("district", label(fine_w)), hierarchy)
    coarse = generalize(events, Profile.parse("antenna", label(coarse_w)), hierarchy)
    got = information_loss(events, fine, coarse, hierarchy)
    want = reference_loss_by_events(users, times, [district[x] for x in locs], locs, fine_w, coarse_w)
    assert (got.density_error, got.od_error) == pytest.approx(want, abs=1e-12)
    assert got.points_lost == pytest.approx(1 - coarse.nnz / fine.nnz)


def test_worked_example_of_a_place_that_straddles_two_squares():
    """One district D holds antennas 0 and 1; a coarse level splits them. Users 1 and 2 are at antenna 0
    and 1 in the same hour: fine map D: 2 users; coarse map 0: 1, 1: 1; both link to D alone, so D gets
    1 + 1 = 2 back: no density error. OD: no consecutive events, nothing to compare."""
    users, times, locs = [1, 2], [T0, T0], [0, 1]
    events, hierarchy = make(users, times, locs, {0: 0, 1: 0})
    fine = generalize(events, Profile.parse("district", "1h"), hierarchy)
    coarse = generalize(events, Profile.parse("antenna", "1h"), hierarchy)
    loss = information_loss(events, fine, coarse, hierarchy)
    assert (loss.points_lost, loss.density_error, loss.od_error) == (0.0, 0.0, 0.0)


def test_time_bins_that_do_not_nest_are_refused():
    users, times, locs = [1, 1], [T0, T0 + 4000], [0, 1]
    events, hierarchy = make(users, times, locs, {0: 0, 1: 0})
    fine = generalize(events, Profile.parse("district", "1h"), hierarchy)
    with pytest.raises(ValueError, match="nested time widths"):
        information_loss(
            events, fine, generalize(events, Profile.parse("district", "90min"), hierarchy), hierarchy
        )


def test_computed_utilities_score_against_the_finest_and_report_the_rest():
    users, times, locs = [1, 1, 2, 2, 3], [T0, T0 + 7200, T0, T0 + 100, T0 + 9000], [0, 1, 0, 1, 2]
    events, hierarchy = make(users, times, locs, {0: 0, 1: 0, 2: 1})
    traces = {
        label: generalize(events, Profile.parse(*label.split(" × ")), hierarchy)
        for label in ["district × 1h", "antenna × 1h", "antenna × 90min"]
    }
    scores, problems = computed_utilities(events, traces, hierarchy)
    assert scores["antenna × 1h"] == {name: 10.0 for name in COMPUTED_SCORES if name != "amount_kept"}
    assert (
        scores["district × 1h"]
        == information_loss(events, traces["antenna × 1h"], traces["district × 1h"], hierarchy).utilities()
    )
    assert list(problems) == ["antenna × 90min"] and "nested time" in problems["antenna × 90min"]
    assert computed_utilities(events, {}, hierarchy) == ({}, {})


def test_price_binned_profiles_are_refused():
    events = build_event_table(
        np.array([1, 1]), np.array([T0, T0 + 10]), np.array([0, 1]), amount=np.array([3.0, 40.0])
    )
    fine = generalize(events, Profile.parse("raw", "1h"))
    priced = generalize(events, Profile.parse("raw", "1h", price_per_decade=2))
    with pytest.raises(ValueError, match="place x time profiles, not raw × 1h × price/2"):
        information_loss(events, fine, priced)
    with pytest.raises(ValueError, match="not raw × 1h × price/2"):
        information_loss(events, priced, fine)


@pytest.mark.parametrize("n_units", [5, 2100])  # a dense counter, and the counting sort for many units
def test_flow_counts_both_ways_match_counter(n_units):
    from privacy_studio.core.utility import flow_counts

    rng = np.random.default_rng(n_units)
    user = np.sort(rng.integers(0, 30, 400)).astype(np.int32)
    units = rng.integers(0, n_units, 400)
    want = Counter(
        (int(units[i]) * n_units + int(units[i + 1])) for i in range(399) if user[i] == user[i + 1]
    )
    keys, counts = flow_counts(user, units, n_units)
    assert dict(zip(keys.tolist(), counts.tolist(), strict=True)) == want
    assert len(set(keys.tolist())) == len(keys)
