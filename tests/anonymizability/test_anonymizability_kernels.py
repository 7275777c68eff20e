"""Kernels and measure API against the plain-Python reference, plus the spec's hand-checkable cases."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numba as nb
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.kernels import anonymizability as kern
from privacy_studio.core.measures.anonymizability import (
    AggregationLevel,
    AnonymizabilityResult,
    DistanceParams,
    Fingerprints,
    aggregation_study,
    anonymizability,
    fingerprint_distance,
    gini,
    sample_distances,
    tail_weight_index,
)


def _load_reference():
    """The plain-Python reference beside this file (the suite imports test modules by path)."""
    spec = importlib.util.spec_from_file_location(
        "anonymizability_reference", Path(__file__).with_name("anonymizability_reference.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = _load_reference()
PER_K = ("delta", "spatial_gini", "temporal_gini", "spatial_tail", "temporal_tail", "ratio")


@st.composite
def small_data(draw):
    """A few users on a coarse grid of places and minutes, so exact ties and duplicates are common."""
    n_users = draw(st.integers(2, 7))
    rows = []
    for u in range(n_users):
        for _ in range(draw(st.integers(1, 6))):
            rows.append(
                (
                    u,
                    draw(st.integers(0, 12)) * 30,
                    draw(st.integers(0, 4)) * 2.5,
                    draw(st.integers(0, 3)) * 4.0,
                )
            )
    params = DistanceParams(
        ws=draw(st.sampled_from([0.5, 0.3, 1.0])),
        wt=draw(st.sampled_from([0.5, 0.7, 0.0])),
        smax_km=draw(st.sampled_from([20.0, 5.0])),
        tmax_h=draw(st.sampled_from([8.0, 1.5])),
    )
    ks = sorted(set(draw(st.lists(st.integers(2, n_users), min_size=1, max_size=3))))
    return np.array(rows, dtype=np.float64), params, ks


def seconds_of(rows):
    """Sample times in seconds, 17 s into each row's minute: the measure keeps the seconds."""
    return (rows[:, 1] * 60 + 17).astype(np.int64)


def to_events(rows):
    seconds = seconds_of(rows)
    return build_event_table(
        rows[:, 0].astype(int), seconds.astype(np.int64), x_km=rows[:, 2].copy(), y_km=rows[:, 3].copy()
    )


def reference_for(rows, params, ks, targets):
    fps = ref.fingerprints(rows[:, 0].astype(int), seconds_of(rows) / 60.0, rows[:, 2], rows[:, 3])
    return ref.anonymizability(fps, targets, ks, params.kernel_args())


def assert_matches_reference(result, expected, ks):
    for i, k in enumerate(ks):
        for col, key in enumerate(PER_K):
            want = np.array([row[col] for row in expected[k]])
            np.testing.assert_allclose(getattr(result, key)[i], want, rtol=1e-9, atol=1e-9, err_msg=key)


@given(small_data(), st.sampled_from(["plain", "merge", "prune"]))
@settings(max_examples=50, deadline=None)
def test_every_user_matches_reference(data, mode):
    rows, params, ks = data
    result = anonymizability(to_events(rows), ks, params=params, mode=mode)
    expected = reference_for(rows, params, ks, range(result.delta.shape[1]))
    assert_matches_reference(result, expected, ks)


@given(small_data(), st.integers(0, 10))
@settings(max_examples=30, deadline=None)
def test_sampled_targets_match_reference_for_those_users(data, seed):
    rows, params, ks = data
    events = to_events(rows)
    result = anonymizability(events, ks, targets=2, seed=seed, params=params)
    assert len(set(result.users.tolist())) == 2
    assert result.user_ids.tolist() == events.user_ids[result.users].tolist()
    assert_matches_reference(result, reference_for(rows, params, ks, result.users.tolist()), ks)


@given(small_data())
@settings(max_examples=40, deadline=None)
def test_fingerprint_distance_is_symmetric_and_matches_reference(data):
    rows, params, _ = data
    fp = Fingerprints.from_events(to_events(rows))
    args = params.kernel_args()
    fps = ref.fingerprints(rows[:, 0].astype(int), seconds_of(rows) / 60.0, rows[:, 2], rows[:, 3])
    for a in range(fp.n_users):
        for b in range(fp.n_users):
            d_ab = fingerprint_distance(fp, a, b, params)
            d_ba = fingerprint_distance(fp, b, a, params)
            assert d_ab == d_ba
            assert d_ab == pytest.approx(ref.fingerprint_distance(fps[a], fps[b], args), abs=1e-12)


def _kernel_distance(fp, a, b, mode, worst, params, table=True):
    """Δ_ab from the kernel; with ``table`` the far table of ``a`` is used, as in the neighbour search."""
    places = fp.places()
    far = np.empty(int(np.diff(places[1]).max()))
    args = params.kernel_args()
    far_a = kern.far_table(a, places, *args[:3]) if table else np.empty(0)
    return kern.fingerprint_distance(
        a, b, fp.offsets, fp.t, fp.x, fp.y, places, far, far_a, mode, worst, *args
    )


@given(small_data(), st.floats(0.0, 1.0))
@settings(max_examples=40, deadline=None)
def test_merge_equals_plain_and_abandoning_needs_proof(data, worst):
    """The merge gives the plain scan's Δ_ab to the bit; pruning abandons a pair only when Δ_ab > worst
    (its partial sums are lower bounds that never exceed the true distance), else returns the same bits."""
    rows, params, _ = data
    fp = Fingerprints.from_events(to_events(rows))
    for a in range(fp.n_users):
        for b in range(fp.n_users):
            plain = _kernel_distance(fp, a, b, kern.MODE_PLAIN, np.inf, params)
            assert _kernel_distance(fp, a, b, kern.MODE_MERGE, worst, params) == plain
            assert _kernel_distance(fp, a, b, kern.MODE_MERGE, worst, params, table=False) == plain
            for limit in (worst, plain, np.nextafter(plain, -1.0)):
                pruned = _kernel_distance(fp, a, b, kern.MODE_PRUNE, limit, params)
                if math.isnan(pruned):
                    assert plain > limit
                else:
                    assert pruned == plain
            assert not math.isnan(_kernel_distance(fp, a, b, kern.MODE_PRUNE, plain, params))


@given(small_data())
@settings(max_examples=40, deadline=None)
def test_candidate_bound_never_exceeds_the_distance(data):
    """The pre-bound of the pruned search (far table plus time bins, or time gaps plus boxes) is at most
    Δ_ab for every pair, whichever fingerprint is longer, also when it stops early."""
    rows, params, _ = data
    fp = Fingerprints.from_events(to_events(rows))
    places = fp.places()
    args = params.kernel_args()
    ws, wt, smax, tmax = args
    index = kern.bound_index(fp.offsets, fp.t, places, tmax)
    for a in range(fp.n_users):
        table = kern.far_table(a, places, ws, wt, smax)
        bound_data = kern.target_bound(a, index, fp.offsets, fp.t, table, wt, tmax)
        for b in range(fp.n_users):
            d_ab = _kernel_distance(fp, a, b, kern.MODE_PLAIN, np.inf, params)
            for worst in (2.0, d_ab, d_ab / 2):
                bound = kern.lower_bound(a, b, fp.offsets, fp.t, fp.x, fp.y, bound_data, worst, *args)
                assert bound <= d_ab + 1e-12
                assert not kern._exceeds(bound, d_ab)


def clustered_events(n_users=120, seed=3):
    """Users drawn around a few homes and daily routines: enough structure for the bounds to prune."""
    rng = np.random.default_rng(seed)
    users, times, xs, ys = [], [], [], []
    for u in range(n_users):
        home = rng.normal(0, 15, 2).round(1)
        n = int(rng.integers(3, 30))
        days = rng.integers(0, 28, n)
        hours = rng.choice([8, 9, 12, 18, 21], n) + rng.integers(0, 30, n) / 60
        users += [u] * n
        times += list(((days * 24 + hours) * 3600).astype(np.int64))
        xs += list(home[0] + rng.choice([0, 0, 3.2], n))
        ys += list(home[1] + rng.choice([0, 0, -1.7], n))
    return build_event_table(np.array(users), np.array(times), x_km=np.array(xs), y_km=np.array(ys))


def test_pruning_never_changes_a_result():
    fp = Fingerprints.from_events(clustered_events())
    results = {m: anonymizability(fp, (2, 5, 20), mode=m) for m in ("plain", "merge", "prune")}
    for mode in ("merge", "prune"):
        for key in (*PER_K, "neighbours", "neighbour_distance"):
            np.testing.assert_array_equal(getattr(results[mode], key), getattr(results["plain"], key))


def test_results_do_not_depend_on_thread_count():
    fp = Fingerprints.from_events(clustered_events(60, seed=5))
    before = nb.get_num_threads()
    try:
        nb.set_num_threads(1)
        one = anonymizability(fp, (2, 10), targets=30, seed=4)
        nb.set_num_threads(before)
        many = anonymizability(fp, (2, 10), targets=30, seed=4)
    finally:
        nb.set_num_threads(before)
    for key in (*PER_K, "users", "neighbours"):
        np.testing.assert_array_equal(getattr(one, key), getattr(many, key))
    other = anonymizability(fp, (2,), targets=30, seed=5)
    assert other.users.tolist() != one.users.tolist()


def test_users_with_k_minus_1_duplicates_are_already_k_anonymous():
    rng = np.random.default_rng(0)
    times, xs, ys = rng.integers(0, 10**6, 8), rng.random(8), rng.random(8)
    trace = list(zip(times.tolist(), xs.tolist(), ys.tolist(), strict=True))
    rows = [(u, t, x, y) for u in range(4) for t, x, y in trace]  # users 0-3 identical
    rows += [(4, 500, 1.0, 1.0), (4, 9000, 3.0, 2.0)]
    arr = np.array(rows, dtype=np.float64)
    events = build_event_table(
        arr[:, 0].astype(int), arr[:, 1].astype(np.int64) * 60, x_km=arr[:, 2], y_km=arr[:, 3]
    )
    result = anonymizability(events, (2, 4, 5))
    assert result.delta[0, :4].tolist() == [0.0] * 4
    assert result.delta[1, :4].tolist() == [0.0] * 4
    assert (result.delta[2, :4] > 0).all()  # the fifth user is different
    assert result.delta[0, 4] > 0


def test_isolated_users_score_one():
    users = [0, 0, 1, 2]
    times = np.array([0, 3600, 5 * 86400, 10 * 86400])  # days apart: beyond 8 h
    xs = np.array([0.0, 1.0, 100.0, -100.0])  # 100 km apart: beyond 20 km
    result = anonymizability(build_event_table(users, times, x_km=xs, y_km=np.zeros(4)), (2, 3))
    np.testing.assert_array_equal(result.delta, 1.0)
    np.testing.assert_array_equal(result.spatial_gini, 0.0)  # all parts are w_s: equal values
    np.testing.assert_array_equal(result.ratio, 1.0)


def test_gini_of_equal_values_and_of_a_single_non_zero():
    assert gini(np.full(7, 0.3)) == 0.0
    for n in (1, 2, 5, 40):
        assert gini(np.r_[np.zeros(n - 1), 2.5]) == pytest.approx(1 - 1 / n)
    assert gini(np.array([3.0, 1.0, 2.0])) == pytest.approx(4 / 18)  # (-2*1 + 0*2 + 2*3) / (3*6)
    assert gini(np.zeros(4)) == 0.0


def test_tail_weight_index_of_reference_distributions():
    rng = np.random.default_rng(11)
    assert tail_weight_index(rng.exponential(1.0, 200_000)) == pytest.approx(1.636, rel=0.05)
    assert tail_weight_index(rng.pareto(1.0, 200_000) + 1.0) == pytest.approx(14.2, rel=0.1)
    assert tail_weight_index(np.arange(1, 101, dtype=float)) == pytest.approx(
        (99 - 50) / (75 - 50) * ref.NORMAL_RATIO
    )
    assert math.isnan(tail_weight_index(np.ones(10)))


def test_samples_keep_the_inputs_seconds():
    """metrics.md §5: t in minutes at the input's full resolution, never rounded to whole minutes."""
    events = build_event_table(
        [0, 0, 0, 0, 1], np.array([60, 60, 119, 120, 60]), x_km=np.zeros(5), y_km=np.zeros(5)
    )
    fp = Fingerprints.from_events(events)
    assert fp.lengths().tolist() == [3, 1]
    assert fp.t.tolist() == [1.0, 119 / 60, 2.0, 1.0]


def test_seconds_apart_give_the_temporal_distance_of_those_seconds():
    """Two users one sample each, 30 s apart at one place: Δ = w_t · 0.5 min / 480 min exactly."""
    events = build_event_table([0, 1], np.array([600, 630]), x_km=np.zeros(2), y_km=np.zeros(2))
    result = anonymizability(events, (2,))
    assert result.delta[0].tolist() == pytest.approx([0.5 * 0.5 / 480] * 2, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ks": (1,)}, "k must be >= 2"),
        ({"ks": (9,)}, "needs at least 9 users"),
        ({"targets": 0}, "targets must be between"),
        ({"mode": "fast"}, "unknown mode"),
    ],
)
def test_bad_arguments_get_one_clear_message(kwargs, message):
    events = build_event_table([0, 1, 2], np.array([0, 60, 120]), x_km=np.zeros(3), y_km=np.zeros(3))
    with pytest.raises(ValueError, match=message):
        anonymizability(events, **{"ks": (2,), **kwargs})


def test_bad_parameters_and_missing_coordinates_are_refused():
    with pytest.raises(ValueError, match="smax_km and tmax_h must be > 0"):
        DistanceParams(tmax_h=0)
    with pytest.raises(ValueError, match="ws must be"):
        DistanceParams(ws=-1)
    events = build_event_table([0, 1], np.array([0, 60]), x_km=np.array([0.0, np.nan]), y_km=np.zeros(2))
    with pytest.raises(ValueError, match="1 of 2 events have none"):
        anonymizability(events)
    with pytest.raises(ValueError, match="needs coordinates"):
        anonymizability(build_event_table([0, 1], np.array([0, 60]), ["a", "b"]))


def test_aggregation_replaces_samples_by_cell_centres_and_bin_middles():
    # 2024-03-04 00:00 Paris is 23:00 UTC the day before: 8 h bins start at local midnight.
    base = 1709506800
    events = build_event_table(
        [0, 0, 1],
        np.array([base + 60, base + 7 * 3600, base + 9 * 3600]),
        x_km=np.array([0.2, 1.7, -0.3]),
        y_km=np.array([0.9, 0.1, 2.2]),
        tz="Europe/Paris",
    )
    fp = Fingerprints.from_events(events, AggregationLevel(1.0, 480.0))
    assert fp.lengths().tolist() == [2, 1]  # user 0: same bin, different cells
    np.testing.assert_array_equal(fp.x, [0.5, 1.5, -0.5])
    np.testing.assert_array_equal(fp.y, [0.5, 0.5, 2.5])
    np.testing.assert_array_equal(fp.t, [base // 60 + 240, base // 60 + 240, base // 60 + 720])
    raw = anonymizability(clustered_events(30), (2, 3))
    same = next(aggregation_study(clustered_events(30), [AggregationLevel.parse("raw")], (2, 3)))
    np.testing.assert_array_equal(raw.delta, same.delta)
    huge = AggregationLevel.parse("1000km/1000d")  # one time bin; one cell per quadrant around the origin
    coarse = Fingerprints.from_events(clustered_events(30), huge)
    assert len(np.unique(np.c_[coarse.x, coarse.y, coarse.t], axis=0)) <= 4
    delta = anonymizability(coarse, (2,)).delta[0]
    assert set(np.unique(delta).tolist()) <= {0.0, 0.25, 0.5}  # cells apart: w_s · 1/2 or w_s · 1


def test_result_round_trips_through_its_dict():
    result = anonymizability(clustered_events(25), (2, 4), targets=10, seed=1)
    back = AnonymizabilityResult.from_dict(json.loads(json.dumps(result.to_dict())))
    for key in (*PER_K, "users", "user_ids", "neighbours", "neighbour_distance"):
        np.testing.assert_array_equal(getattr(back, key), getattr(result, key))
    assert (back.ks, back.params, back.level) == (result.ks, result.params, result.level)


@given(small_data())
@settings(max_examples=30, deadline=None)
def test_sample_distance_matches_the_definition(data):
    rows, params, _ = data
    args = params.kernel_args()
    for (_, ti, xi, yi), (_, tj, xj, yj) in zip(rows, rows[::-1], strict=True):
        sp, tp = ref.parts((ti, xi, yi), (tj, xj, yj), *args)
        assert kern.sample_distance(xi, yi, ti, xj, yj, tj, *args) == sp + tp


@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 3 * kern.RADIX_MIN),
    st.sampled_from([0.5, 1.0, 0.3]),
    st.floats(0.0, 1.0),
)
@settings(max_examples=40, deadline=None)
def test_sorting_of_parts_equals_numpy_sort(seed, n, top, share_ends):
    """The dispersion step's sort (exact 0s and tops counted, radix sort of the rest when long) and its
    merge of a sorted prefix with new values give np.sort's values, bit for bit."""
    rng = np.random.default_rng(seed)
    values = rng.random(n) ** rng.uniform(1, 40) * top
    values[rng.random(n) < share_ends / 2] = 0.0
    values[rng.random(n) < share_ends / 2] = top
    values[rng.random(n) < 0.05] = np.nextafter(top, 0.0)
    np.testing.assert_array_equal(kern._sort_bounded(values, top), np.sort(values))
    cut = n // 3
    prefix = np.sort(values[:cut])
    merged = kern._extend_sorted(prefix, cut, values[cut:], top, np.empty(n))
    np.testing.assert_array_equal(merged, np.sort(values))


def test_dispersion_equals_sorting_every_prefix_on_long_fingerprints():
    """On traces long enough for the radix sort, Gini, tail and ratio equal those of np.sort of each k's
    matched parts (bit for bit: same values, same order of summation)."""
    fp = Fingerprints.from_events(clustered_events(300, seed=7))
    ks = (2, 10, 100, 300)
    result = anonymizability(fp, ks, targets=12, seed=2)
    for col, user in enumerate(result.users.tolist()):
        parts = sample_distances(fp, user, result.neighbours[col])
        ends = np.cumsum([kern.matched_count(user, b, fp.offsets) for b in result.neighbours[col]])
        for row, k in enumerate(ks):
            sp, tp = np.sort(parts["spatial"][: ends[k - 2]]), np.sort(parts["temporal"][: ends[k - 2]])
            assert result.spatial_gini[row, col] == kern.gini(sp)
            assert result.temporal_gini[row, col] == kern.gini(tp)
            np.testing.assert_array_equal(result.spatial_tail[row, col], kern.tail_weight(sp))
            np.testing.assert_array_equal(result.temporal_tail[row, col], kern.tail_weight(tp))
            assert result.ratio[row, col] == pytest.approx(tp.sum() / sp.sum(), rel=1e-12)


@given(small_data())
@settings(max_examples=40, deadline=None)
def test_matched_parts_are_those_of_the_first_nearest_sample(data):
    """Every pair's matched parts (also when near and far samples tie, or a place is visited both near and
    far in time) are those of the lowest-index nearest sample, as in the reference."""
    rows, params, _ = data
    fp = Fingerprints.from_events(to_events(rows))
    fps = ref.fingerprints(rows[:, 0].astype(int), seconds_of(rows) / 60.0, rows[:, 2], rows[:, 3])
    for a in range(fp.n_users):
        for b in range(fp.n_users):
            got = sample_distances(fp, a, [b], params)
            want = np.array(ref.matched(fps[a], fps[b], params.kernel_args())).reshape(-1, 3)
            np.testing.assert_array_equal(got["spatial"], want[:, 1])
            np.testing.assert_array_equal(got["temporal"], want[:, 2])
