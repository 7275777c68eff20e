"""Grid runner: invariances, Monte Carlo coverage, reuse of work, determinism, bad input, cancellation."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest

from privacy_studio.cli import main
from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import DerivationPlan, derive_traces, run_grid
from tests.risk import reference
from tests.risk.helpers import table_from_sets


def random_sets(n: int, d: int, seed: int, mean_len: float = 3.0) -> list[set[int]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(np.clip(rng.poisson(mean_len), 1, d))
        weights = 1.0 / np.arange(1, d + 1)  # popular and rare points
        out.append(set(rng.choice(d, size=k, replace=False, p=weights / weights.sum()).tolist()))
    return out


def city(n_users: int = 300, seed: int = 0):
    """Events over 12 antennas in 4 zips in 2 districts, 3 days, for grid tests."""
    rng = np.random.default_rng(seed)
    users, times, locs = [], [], []
    for u in range(n_users):
        home = rng.integers(0, 12)
        for _ in range(rng.integers(1, 15)):
            a = home if rng.random() < 0.5 else rng.integers(0, 12)
            users.append(f"user{u}")
            times.append(int(rng.integers(0, 3 * 86400)))
            locs.append(f"a{a:02d}")
    events = build_event_table(np.asarray(users), np.asarray(times), np.asarray(locs))
    ids = events.location_ids
    zips = np.asarray([f"z{int(x[1:]) // 3}" for x in ids])
    districts = np.asarray([f"d{int(x[1:]) // 6}" for x in ids])
    return events, Hierarchy.from_mapping(ids, "antenna", {"zip": zips, "district": districts})


def only_numbers(result: ProfileResult) -> dict:
    d = result.to_dict()
    d.pop("timings")
    return d


def test_exact_run_matches_reference():
    sets = random_sets(40, 10, seed=3)
    settings = RiskSettings(spatial=["raw"], temporal=["all"], p_values=[1, 2, 3], exact=True, reference_p=2)
    (res,) = list(run_grid(table_from_sets(sets, 10), settings))
    for row in res.by_p:
        ref = reference.exact_measures(sets, row.p, 10)
        assert row.unicity == pytest.approx(ref["unicity"], abs=1e-9)
        assert row.k_disclosure == pytest.approx(ref["kdisc"], abs=1e-9)
        assert row.em == pytest.approx(ref["em"], abs=1e-9)
        assert row.kl == pytest.approx(ref["kl"], abs=1e-9)
        assert row.worst_mean == pytest.approx(ref["worst_mean"], abs=1e-9)
        assert row.worst_share_at_1 == pytest.approx(ref["worst_share"], abs=1e-9)
        assert row.n_excluded == 40 - ref["n_included"] and row.worst_exact
    ref2 = reference.exact_measures(sets, 2, 10)
    assert res.per_location["em"] == pytest.approx(ref2["per_point_em"], abs=1e-9)


def test_monte_carlo_intervals_cover_exact_value():
    sets = random_sets(400, 30, seed=5, mean_len=4)
    table = table_from_sets(sets, 30)
    exact = {
        r.p: r.unicity
        for r in next(run_grid(table, RiskSettings(["raw"], ["all"], p_values=[2, 3], exact=True))).by_p
    }
    covered = total = 0
    for seed in range(10):
        settings = RiskSettings(
            ["raw"], ["all"], p_values=[2, 3], samples=400, draws=2, seed=seed, measures=["unicity"]
        )
        for row in next(run_grid(table, settings)).by_p:
            lo, hi = row.unicity_ci
            covered += lo <= exact[row.p] <= hi
            total += 1
    assert covered >= 17  # 95 % intervals: 19 of 20 expected


def test_relabelling_changes_nothing():
    sets = random_sets(30, 8, seed=7)
    names = [f"u{i:03d}" for i in range(30)]
    a = next(
        run_grid(table_from_sets(sets, 8, names), RiskSettings(["raw"], ["all"], p_values=[1, 2], exact=True))
    )
    perm = np.random.default_rng(1).permutation(8)
    relabelled = [{int(perm[j]) for j in s} for s in sets]
    renamed = [f"z{999 - i}" for i in range(30)]
    b = next(
        run_grid(
            table_from_sets(relabelled, 8, renamed),
            RiskSettings(["raw"], ["all"], p_values=[1, 2], exact=True),
        )
    )
    for ra, rb in zip(a.by_p, b.by_p, strict=True):
        for key in ("unicity", "k_disclosure", "em", "kl", "worst_mean"):
            assert getattr(ra, key) == pytest.approx(getattr(rb, key), abs=1e-12)
    assert a.kanon == b.kanon


def test_duplicated_user_is_never_unique():
    sets = random_sets(25, 12, seed=11)
    sets.append(set(sets[0]))
    res = next(
        run_grid(
            table_from_sets(sets, 12),
            RiskSettings(["raw"], ["all"], p_values=[1, 2, 3], exact=True, reference_p=1),
        )
    )
    rate = dict(zip(res.per_user["user_ids"], res.per_user["unique_rate"], strict=True))
    assert rate["u000"] == 0 and rate["u025"] == 0
    assert res.kanon["k"] == 1 or res.kanon["share_below"]["2"] < 1


def test_coarser_profiles_never_raise_fingerprint_uniqueness():
    events, hierarchy = city()
    settings = RiskSettings(
        spatial=["antenna", "zip", "district"],
        temporal=["1h", "6h", "1d", "all"],
        p_values=[1],
        measures=["kanon"],
        samples=50,
    )
    shares = {
        (r.spatial, r.temporal): r.kanon["share_below"]["2"] for r in run_grid(events, settings, hierarchy)
    }
    space = ["antenna", "zip", "district"]
    times = ["1h", "6h", "1d", "all"]
    for i, s in enumerate(space):
        for j, t in enumerate(times):
            for s2 in space[i:]:
                for t2 in times[j:]:
                    assert shares[(s2, t2)] <= shares[(s, t)] + 1e-12


def test_derived_traces_equal_generalized_ones():
    events, hierarchy = city(seed=2)
    base = generalize(events, Profile.parse("antenna", "1h"), hierarchy)
    for spatial, temporal in [("zip", "6h"), ("district", "1d"), ("antenna", "all"), ("district", "1w")]:
        profile = Profile.parse(spatial, temporal)
        derived = derive_traces(base, profile, events, hierarchy)
        direct = generalize(events, profile, hierarchy)
        assert derived is not None
        for name in ("indptr", "points", "counts"):
            np.testing.assert_array_equal(getattr(derived, name), getattr(direct, name))
        assert derived.d == direct.d


def test_grid_with_derivation_and_freeing_equals_each_profile_alone():
    """Deriving profiles from kept traces (and dropping them early) gives what each profile gives alone."""
    events, hierarchy = city(seed=5)
    spatial, temporal = ["antenna", "zip", "district"], ["1h", "6h", "12h", "1w"]
    common = {"p_values": [1, 2, 3], "samples": 200, "em_samples": 50, "seed": 3}
    grid = list(run_grid(events, RiskSettings(spatial, temporal, **common), hierarchy))
    assert sum(r.derived_from is not None for r in grid) == 11
    for r in grid:
        alone = next(iter(run_grid(events, RiskSettings([r.spatial], [r.temporal], **common), hierarchy)))
        assert alone.derived_from is None
        a, b = only_numbers(r), only_numbers(alone)
        a.pop("derived_from")
        b.pop("derived_from")
        assert a == b


def test_derivation_plan_keeps_traces_only_while_a_later_profile_needs_them():
    events, hierarchy = city(seed=6)
    plan = DerivationPlan(events, hierarchy)
    a1h, a6h, a1w = (Profile.parse("antenna", t) for t in ("1h", "6h", "1w"))
    z1h, z1w, d1h = Profile.parse("zip", "1h"), Profile.parse("zip", "1w"), Profile.parse("district", "1h")
    assert plan.derivable(a1h, z1w) and plan.derivable(z1h, d1h) and not plan.derivable(a6h, z1h)
    assert plan.needed(a1h, [a1h, a6h], [a1w, z1h])  # zip x 1h can only come from antenna x 1h
    assert not plan.needed(a1h, [a1h, a6h], [a1w])  # antenna x 6h, made later, serves antenna x 1w
    assert not plan.needed(a1h, [a1h, z1h], [d1h, z1w])  # once zip x 1h is made it serves the rest
    assert not plan.needed(a6h, [a1h, a6h], [z1h])  # cannot serve it at all
    assert plan.needed(z1h, [a1h, a6h, z1h], [z1w, d1h])  # the last made that can serve zip x 1w


def test_grid_runs_every_knowledge_model_and_round_trips():
    events, hierarchy = city(seed=4)
    for knowledge in ("uniform", "activity", "top"):
        settings = RiskSettings(
            ["antenna", "district"],
            ["6h", "all"],
            p_values=[1, 2, 4],
            knowledge=knowledge,
            samples=120,
            draws=2,
            em_samples=50,
        )
        results = list(run_grid(events, settings, hierarchy))
        assert [(r.spatial, r.temporal) for r in results] == [
            ("antenna", "6h"),
            ("antenna", "all"),
            ("district", "6h"),
            ("district", "all"),
        ]
        for r in results:
            text = json.dumps(r.to_dict(), allow_nan=False)
            assert ProfileResult.from_dict(json.loads(text)).to_dict() == r.to_dict()
            rows = [row for row in r.by_p if row.n_excluded == 0]
            uni = [row.unicity for row in rows]
            assert uni == sorted(uni)  # nested draws on the same users: never decreasing in p
            assert all(row.em_users <= 50 for row in r.by_p)
            assert len(r.per_location["em"]) == len(r.per_location["unit_ids"])


def test_measures_not_requested_are_none():
    events, hierarchy = city(seed=6)
    settings = RiskSettings(["zip"], ["1d"], p_values=[2], measures=["unicity"], samples=50)
    (r,) = list(run_grid(events, settings, hierarchy))
    row = r.by_p[0]
    assert row.unicity is not None and row.k_disclosure is None and row.em is None and row.worst_mean is None
    assert r.kanon is None


def test_same_results_whatever_the_thread_count():
    events, hierarchy = city(n_users=500, seed=8)
    settings = RiskSettings(
        ["antenna", "zip"], ["6h"], p_values=[1, 2, 3], samples=300, draws=2, em_samples=100
    )
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = [only_numbers(r) for r in run_grid(events, settings, hierarchy)]
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = [only_numbers(r) for r in run_grid(events, settings, hierarchy)]
    finally:
        numba.set_num_threads(before)
    assert one == two


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"p_values": [0, 1]}, "≥ 1"),
        ({"spatial": []}, "grid is empty"),
        ({"cells": []}, "grid is empty"),
        ({"measures": ["unicity", "magic"]}, "unknown measure"),
        ({"knowledge": "psychic"}, "unknown knowledge"),
        ({"samples": 0}, "samples"),
        ({"exact": True, "knowledge": "activity"}, "exact mode"),
        ({"temporal": ["3 fortnights"]}, "not understood"),
    ],
)
def test_bad_settings_give_clear_errors(kwargs, message):
    base = {"spatial": ["raw"], "temporal": ["all"]}
    base.update(kwargs)
    with pytest.raises(ValueError, match=message):
        RiskSettings(**base).validate()


def test_unknown_level_and_unknown_known_users(tmp_path):
    events, hierarchy = city(n_users=20)
    with pytest.raises(ValueError, match="unknown spatial level 'county'"):
        next(run_grid(events, RiskSettings(["county"], ["1h"]), hierarchy))
    known = tmp_path / "known.csv"
    known.write_text("user_id,time,location_id\nstranger,0,a01\n")
    with pytest.raises(ValueError, match="not in the data"):
        next(run_grid(events, RiskSettings(["raw"], ["all"], knowledge=f"explicit:{known}"), hierarchy))


def test_settings_round_trip_and_reject_unknown_keys():
    s = RiskSettings(["zip"], ["1h", "1w"], cells=[("zip", "1h")], p_values=[1, 4])
    assert RiskSettings.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert [p.label for p in s.profiles()] == ["zip × 1h"]
    with pytest.raises(ValueError, match="unknown risk setting"):
        RiskSettings.from_dict({**s.to_dict(), "colour": "red"})


def test_cancellation_stops_between_chunks():
    events, hierarchy = city(n_users=50)
    seen = []
    control = TaskControl(lambda f, m: seen.append(f))
    control.cancel()
    with pytest.raises(Cancelled):
        next(run_grid(events, RiskSettings(["raw"], ["1h"]), hierarchy, control))


def test_progress_messages_name_the_profile_they_are_about():
    events, hierarchy = city(n_users=50)
    seen: list[str] = []
    settings = RiskSettings(["raw", "zip"], ["1d"], p_values=[1, 2], samples=20)
    list(run_grid(events, settings, hierarchy, TaskControl(lambda f, m: seen.append(m))))
    per_profile = [m for m in seen if m and m != "grid done"]
    assert per_profile and all(m.split(": ")[0] in ("raw × 1d", "zip × 1d") for m in per_profile)
    assert {"raw × 1d: generalizing", "zip × 1d: done"} <= set(seen)


def test_cli_bad_parameters_exit_2(tmp_path, capsys):
    data = tmp_path / "e.csv"
    data.write_text("user_id,timestamp,location_id\na,2024-01-01T00:00:00Z,x\n")
    out = str(tmp_path / "o.json")
    assert main(["risk", str(data), "--spatial", "raw", "--temporal", "all", "--p", "0", "--json", out]) == 2
    assert main(["risk", str(data), "--spatial", "zip", "--temporal", "all", "--json", out]) == 2
    err = capsys.readouterr().err
    assert "at least 1" in err and "hierarchy" in err
    assert "Traceback" not in err


def test_a_python_knowledge_model_plugs_in():
    """A model without a kernel fast path is drawn in Python; its prefixes are the knowledge for each p."""
    from dataclasses import dataclass
    from typing import ClassVar

    from privacy_studio.core.knowledge import KnowledgeModel
    from privacy_studio.core.runner.grid import run_profile

    @dataclass(frozen=True)
    class LastPoints(KnowledgeModel):
        name: ClassVar[str] = "last"

        def draw(self, points, counts, p, rng):
            return points[::-1][:p]

    sets = random_sets(30, 9, seed=13)
    events = table_from_sets(sets, 9)
    traces = generalize(events, Profile.parse("raw", "all"))
    settings = RiskSettings(["raw"], ["all"], p_values=[1, 2], measures=["unicity", "kdisc"], reference_p=2)
    users = np.arange(len(sets))
    res = run_profile(
        events, None, traces.profile, traces, None, settings, LastPoints(), users, TaskControl(), {}
    )
    for row in res.by_p:
        sizes = [
            len(reference.anonymity_set(sets, set(sorted(s)[::-1][: row.p]))) for s in sets if len(s) >= row.p
        ]
        assert row.unicity == pytest.approx(np.mean([k == 1 for k in sizes]))
        assert row.k_disclosure == pytest.approx(np.mean([1 / k for k in sizes]))
