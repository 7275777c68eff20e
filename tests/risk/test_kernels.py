"""Numba kernels against the plain-Python reference on random small datasets (hypothesis)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.index import build_index
from privacy_studio.core.kernels.fingerprints import trace_hashes
from privacy_studio.core.kernels.rng import stream_key
from privacy_studio.core.kernels.sample_pass import order_trace
from privacy_studio.core.knowledge import ACTIVITY, TOP, UNIFORM
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.measures.exact import exact_pass
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.measures.theory import sparsity_curves
from privacy_studio.core.measures.unicity import sample_sizes
from privacy_studio.core.measures.wilson import wilson_interval
from tests.risk import reference
from tests.risk.helpers import traces_from_sets


@st.composite
def datasets(draw, max_users: int = 12, max_d: int = 8):
    d = draw(st.integers(2, max_d))
    n = draw(st.integers(1, max_users))
    sets = [set(draw(st.lists(st.integers(0, d - 1), min_size=1, max_size=d, unique=True))) for _ in range(n)]
    dense_min = draw(st.sampled_from([1, 2, 3, None]))  # small thresholds force the bitmap paths
    return sets, d, dense_min


@settings(max_examples=40, deadline=None)
@given(datasets(), st.integers(1, 3), st.sampled_from([1, 2, 5, 10**6]), st.sampled_from([1, 4, 10**6]))
def test_exact_mode_matches_reference(data, p, item_subsets, chunk_subsets):
    """Per person over all p-subsets, however the traces are cut into work items and chunks."""
    sets, d, dense_min = data
    index = build_index(traces_from_sets(sets, d), dense_min=dense_min)
    r = exact_pass(index, p, with_em=True, item_subsets=item_subsets, chunk_subsets=chunk_subsets)
    ref = reference.exact_measures(sets, p, d)
    assert len(r.users) == ref["n_included"]
    if not len(r.users):
        return
    assert np.mean(r.unique_rate) == pytest.approx(ref["unicity"], abs=1e-9)
    assert np.mean(r.k_disclosure) == pytest.approx(ref["kdisc"], abs=1e-9)
    assert np.mean(r.em) == pytest.approx(ref["em"], abs=1e-9)
    assert np.mean(r.kl) == pytest.approx(ref["kl"], abs=1e-9)
    assert np.mean(r.worst) == pytest.approx(ref["worst_mean"], abs=1e-9)
    assert r.subsets == sum(math.comb(len(t), p) for t in sets)
    q = point_priors(index.list_len, index.n_users)[0]
    m = ref["n_included"]
    per_point = np.zeros(d)
    per_point[index.point_ids] = (r.em_acc + m * q) / m
    np.testing.assert_allclose(per_point, ref["per_point_em"], atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(datasets(), st.sampled_from([UNIFORM, ACTIVITY, TOP]), st.integers(0, 2**31), st.integers(1, 3))
def test_sampled_walks_match_reference(data, kind, seed, draws):
    """Each draw's nested sets, EM and KL equal the reference for the very points the model drew."""
    sets, d, dense_min = data
    counts = [[1 + (j * 7 + u) % 5 for j in sorted(s)] for u, s in enumerate(sets)]
    traces = traces_from_sets(sets, d, counts)
    index = build_index(traces, dense_min=dense_min)
    users = np.arange(len(sets))[::-1].copy()
    pmax = 4
    r = sample_sizes(
        index,
        users,
        kind=kind,
        pmax=pmax,
        draws=draws,
        seed=seed,
        em_p=[1, 2, 3, 4],
        em_users=len(users),
        ref_p=2,
        worst=True,
    )
    lengths = index.list_len
    for s, u in enumerate(users):
        a, b = index.trace_ptr[u], index.trace_ptr[u + 1]
        m = min(pmax, b - a)
        for k in range(draws):
            order = np.zeros(pmax, dtype=np.int64)
            order_trace(
                kind,
                index.trace_pts[a:b],
                index.trace_cnt[a:b],
                lengths,
                np.uint64(stream_key(seed, u, k)),
                m,
                np.zeros(b - a),
                order,
            )
            for j in range(pmax):
                if j >= m:
                    assert r["sizes"][s, k, j] == 0
                    continue
                known = {int(index.point_ids[x]) for x in order[: j + 1]}
                assert r["sizes"][s, k, j] == len(reference.anonymity_set(sets, known))
                em, kl, _ = reference.em_kl(sets, known, d)
                assert r["em"][s, k, j] == pytest.approx(em, abs=1e-9)
                assert r["kl"][s, k, j] == pytest.approx(kl, abs=1e-9)
        # p = 1 worst case is exact: the rarest point of the trace
        rarest = min(len(reference.anonymity_set(sets, {x})) for x in sets[u])
        assert r["rare"][s, 0] == rarest


def test_person_without_points_is_excluded_at_every_p():
    """A sampled person with an empty trace has size 0 (excluded) at every p, whoever was sampled before."""
    sets = [{0, 1, 2}, set(), {1, 2}, {0}]
    index = build_index(traces_from_sets(sets, 3))
    for em_users in (0, 4):  # the plain walk and the walk with EM/KL
        r = sample_sizes(
            index, np.array([0, 1, 2, 1]), kind=UNIFORM, pmax=3, em_p=[1, 2], em_users=em_users, worst=True
        )
        assert r["sizes"][1].tolist() == [[0, 0, 0]]
        assert r["sizes"][3].tolist() == [[0, 0, 0]]
        assert r["rare"][1].tolist() == [0, 0, 0]
        assert r["sizes"][0, 0, 2] == 1  # all of {0, 1, 2}: only person 0
        assert r["sizes"][2, 0, 1] == 2  # all of {1, 2}: persons 0 and 2


def test_activity_order_follows_counts():
    """Weighted draws without replacement: the heavy point comes first far more often."""
    traces = traces_from_sets([{0, 1}], 2, [[1, 9]])
    index = build_index(traces)
    first_heavy = 0
    for k in range(2000):
        order = np.zeros(1, dtype=np.int64)
        order_trace(
            ACTIVITY,
            index.trace_pts,
            index.trace_cnt,
            index.list_len,
            np.uint64(stream_key(1, 0, k)),
            1,
            np.zeros(2),
            order,
        )
        first_heavy += int(order[0] == 1)
    assert 0.86 < first_heavy / 2000 < 0.94  # expected 0.9


@settings(max_examples=40, deadline=None)
@given(datasets(max_users=20, max_d=4))
def test_kanonymity_matches_reference(data):
    sets, d, _ = data
    sizes = class_sizes(traces_from_sets(sets, d))
    assert sizes.tolist() == reference.fingerprint_class_sizes(sets)
    narrow = traces_from_sets(sets, d)
    narrow.points = narrow.points.astype(np.int32)  # as generalize() stores them below 2^31 points
    assert class_sizes(narrow).tolist() == sizes.tolist()
    assert (
        trace_hashes(narrow.indptr, narrow.points)
        == trace_hashes(narrow.indptr, narrow.points.astype(np.int64))
    ).all()


@settings(max_examples=40, deadline=None)
@given(datasets(max_users=20, max_d=4), st.integers(1, 4))
def test_kanonymity_with_colliding_hashes_matches_reference(data, n_hashes):
    """Hashes folded onto a few values (collisions everywhere): only users sharing a hash are compared
    point by point, and collisions never merge classes."""
    from privacy_studio.core.measures import kanonymity

    sets, d, _ = data
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kanonymity, "trace_hashes", lambda indptr, pts: trace_hashes(indptr, pts) % n_hashes)
        sizes = class_sizes(traces_from_sets(sets, d))
    assert sizes.tolist() == reference.fingerprint_class_sizes(sets)


@pytest.mark.parametrize("n,q,d", [(10, 0.1, 5), (100, 0.05, 40), (1000, 0.3, 12), (50, 0.5, 3)])
def test_theory_matches_formula(n, q, d):
    curves = sparsity_curves(n, q, [d])
    p_unique, p_2anon = reference.sparsity(n, q, d)
    assert curves["p_unique"][0] == pytest.approx(p_unique, rel=1e-9, abs=1e-300)
    assert curves["p_2anon"][0] == pytest.approx(p_2anon, rel=1e-9, abs=1e-300)


def test_theory_is_stable_for_huge_d():
    curves = sparsity_curves(1_000_000, 1e-6, [10**7, 10**9])
    assert np.all(np.isfinite(curves["p_unique"])) and np.all(np.isfinite(curves["p_2anon"]))
    assert 0 < curves["p_unique"][0] < 1 and curves["p_unique"][1] == pytest.approx(1.0)


def test_theory_rejects_bad_input():
    with pytest.raises(ValueError, match="q must be"):
        sparsity_curves(10, 1.5, [1])
    with pytest.raises(ValueError, match="n must be"):
        sparsity_curves(0, 0.5, [1])


def test_wilson_interval_known_value():
    lo, hi = wilson_interval(20, 100)
    z = 1.959963984540054
    centre = (0.2 + z * z / 200) / (1 + z * z / 100)
    half = z * math.sqrt(0.2 * 0.8 / 100 + z * z / 40000) / (1 + z * z / 100)
    assert (lo, hi) == pytest.approx((centre - half, centre + half))
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_index_of_a_huge_space_compacts_points():
    """d far above the number of trace entries: points are compacted by search, not by a d-sized table."""
    big = 5_000_000
    sets = [{7, big - 1, 123_456}, {7, 123_456}, {big - 1}, {7, 99}]
    index = build_index(traces_from_sets(sets, big))
    assert index.point_ids.tolist() == [7, 99, 123_456, big - 1]
    r = exact_pass(index, 1, with_em=False)
    expected = [sum(1 / len(reference.anonymity_set(sets, {x})) for x in s) / len(s) for s in sets]
    assert r.k_disclosure.tolist() == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(datasets(max_users=30, max_d=12))
def test_index_posting_lists_match_the_sets(data):
    """Each visited point's posting list is its visitors ascending, and |D_x| its length (counted per
    block in parallel), for the table lookup and the binary search alike."""
    sets, d, _ = data
    small = traces_from_sets(sets, d)
    for d_space in (d, 50_000_000):  # the second: d huge, points compacted by search
        index = build_index(replace(small, n_units=d_space))
        visited = sorted({x for s in sets for x in s})
        assert index.point_ids.tolist() == visited
        for j, x in enumerate(visited):
            users = index.post_users[index.post_ptr[j] : index.post_ptr[j + 1]].tolist()
            assert users == [u for u, s in enumerate(sets) if x in s]
            assert index.list_len[j] == len(users)
