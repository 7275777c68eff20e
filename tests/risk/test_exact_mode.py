"""Exact mode without a cap: per-person figures with the sampled mode's identities, an estimate before the
run, only the requested p values, the worst case's early stop, cancellation and the CLI's confirmation."""

from __future__ import annotations

import io
import json
import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.cli import main
from privacy_studio.core.index import build_index
from privacy_studio.core.measures.exact import (
    exact_pass,
    length_counts,
    subsets_of,
    total_subsets,
    work_items,
)
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.runner import RiskSettings, estimate_exact_run, run_grid
from tests.risk import reference
from tests.risk.helpers import table_from_sets, traces_from_sets

SETS = [{0, 1, 2}, {0, 1}, {1, 2, 3, 4}, {0, 2, 4}, {3}, {0, 1, 2, 3, 4, 5}, {5, 6}, {1, 6}]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=6), st.integers(1, 4), st.integers(1, 30))
def test_work_items_cover_every_subset_once(lengths, p, item_subsets):
    """Each p-subset of each trace lies in exactly one item (user, first position in [from, to))."""
    lengths = np.asarray(lengths, dtype=np.int64)
    users, first, stop, size = work_items(lengths, p, item_subsets)
    expected = {(u, c) for u, m in enumerate(lengths) for c in combinations(range(m), p)}
    got = []
    for u, a, b, k in zip(users, first, stop, size, strict=True):
        inside = [c for c in combinations(range(int(lengths[u])), p) if a <= c[0] < b]
        assert len(inside) == k
        got += [(int(u), c) for c in inside]
    assert len(got) == len(set(got)) and set(got) == expected
    assert sum(size) == total_subsets(lengths, p)


@given(st.lists(st.integers(0, 8), max_size=12), st.integers(1, 5))
def test_total_subsets_counts_every_persons_p_subsets(lengths, p):
    """Against enumerating each person's p-subsets; the counted lengths serve every p alike."""
    expected = sum(sum(1 for _ in combinations(range(n), p)) for n in lengths)
    array = np.asarray(lengths, dtype=np.int64)
    assert total_subsets(array, p) == expected
    assert subsets_of(length_counts(array), p) == expected


def test_class_sizes_count_people_so_the_identities_of_the_sampled_mode_hold():
    """U_1 / n = unicity and Σ_k U_k / (n k) = k-disclosure, n the people with at least p points."""
    settings_ = RiskSettings(["raw"], ["all"], p_values=[1, 2, 3], exact=True)
    (res,) = list(run_grid(table_from_sets(SETS, 7), settings_))
    for row in res.by_p:
        ref = reference.exact_measures(SETS, row.p, 7)
        n = row.n_draws
        assert n == ref["n_included"] == len(SETS) - row.n_excluded
        assert sum(row.class_sizes.values()) == pytest.approx(n)
        assert row.class_sizes.get(1, 0.0) / n == pytest.approx(row.unicity, abs=1e-12)
        assert sum(u / (n * k) for k, u in row.class_sizes.items()) == pytest.approx(
            row.k_disclosure, abs=1e-12
        )
        assert row.unicity == pytest.approx(ref["unicity"], abs=1e-12)
        assert row.k_disclosure == pytest.approx(ref["kdisc"], abs=1e-12)
    # worked example at p = 2: 7 people have 2+ points; people whose pairs are all unique count 1 each
    by_person = [
        [len(reference.anonymity_set(SETS, set(c))) for c in combinations(sorted(s), 2)]
        for s in SETS
        if len(s) >= 2
    ]
    u1 = sum(sizes.count(1) / len(sizes) for sizes in by_person)
    assert res.by_p[1].class_sizes[1] == pytest.approx(u1)
    assert json.loads(json.dumps(res.to_dict()))["by_p"][1]["class_sizes"]["1"] == (pytest.approx(u1))


def test_worst_case_alone_stops_each_person_at_the_first_unique_subset():
    sets = [set(range(12)) | {20 + u} for u in range(6)] + [set(range(12))]  # each has a point of its own
    index = build_index(traces_from_sets(sets, 30))
    full = exact_pass(index, 3, with_em=False)
    early = exact_pass(index, 3, with_em=False, stop_at_one=True)
    assert early.worst.tolist() == full.worst.tolist()
    ref = reference.exact_measures(sets, 3, 30)
    assert np.mean(early.worst) == pytest.approx(ref["worst_mean"])
    assert early.subsets < full.subsets == total_subsets(np.asarray([len(s) for s in sets]), 3)
    assert early.class_shares is None and early.stopped_early
    res = next(
        run_grid(
            table_from_sets(sets, 30),
            RiskSettings(["raw"], ["all"], p_values=[3], exact=True, measures=["worst"]),
        )
    )
    assert res.by_p[0].worst_mean == pytest.approx(ref["worst_mean"]) and res.by_p[0].class_sizes is None


def test_the_reference_p_defaults_to_a_requested_p_the_largest_up_to_4():
    assert RiskSettings(["raw"], ["all"], p_values=[1, 2, 3]).reference_p == 3
    assert RiskSettings(["raw"], ["all"], p_values=[1]).reference_p == 1
    assert RiskSettings(["raw"], ["all"], p_values=[6, 10]).reference_p == 6
    assert RiskSettings(["raw"], ["all"]).reference_p == 4
    assert RiskSettings(["raw"], ["all"], p_values=[2], reference_p=1).reference_p == 1


def test_only_the_requested_p_values_are_evaluated():
    """A trace of 60 points has 487,635 subsets at p = 4, none of which an exact run at p = 1 touches."""
    sets = [set(range(60)), set(range(30))]
    messages: list[str] = []
    settings_ = RiskSettings(["raw"], ["all"], p_values=[1], exact=True)
    res = next(
        run_grid(table_from_sets(sets, 60), settings_, control=TaskControl(lambda f, m: messages.append(m)))
    )
    assert [r.p for r in res.by_p] == [1] and res.reference_p == 1
    assert not [m for m in messages if "p = 4" in m or "p = 2" in m]
    assert any("exact p = 1: 90 subsets done" in m for m in messages)


def test_the_estimate_counts_the_subsets_before_anything_runs():
    sets = [set(range(40)) for _ in range(3)]
    est = estimate_exact_run(
        table_from_sets(sets, 40), RiskSettings(["raw"], ["all"], p_values=[10], exact=True)
    )
    assert est.subsets == 3 * math.comb(40, 10)
    assert est.seconds > 600
    assert f"{3 * math.comb(40, 10):,} subsets" in est.summary()


def test_progress_carries_an_eta_and_cancel_stops_between_chunks():
    sets = [set(range(25)) for _ in range(4)]
    index = build_index(traces_from_sets(sets, 25))
    messages: list[str] = []
    control = TaskControl(lambda f, m: messages.append(m))
    exact_pass(index, 2, with_em=False, control=control, item_subsets=20, chunk_subsets=50)
    assert any("left" in m for m in messages) and len(messages) > 10
    stopper = TaskControl(lambda f, m: stopper.cancel() if f > 0.2 else None)
    with pytest.raises(Cancelled):
        exact_pass(index, 2, with_em=False, control=stopper, item_subsets=20, chunk_subsets=50)


def _tiny_csv(tmp_path) -> str:
    path = tmp_path / "e.csv"
    rows = ["user_id,timestamp,location_id"]
    rows += [f"u{u},2024-01-01T00:00:00Z,x{j}" for u in range(3) for j in range(40)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_cli_asks_before_a_long_exact_run_and_refuses_without_a_terminal(tmp_path, capsys, monkeypatch):
    data, out = _tiny_csv(tmp_path), str(tmp_path / "o.json")
    args = ["risk", data, "--spatial", "raw", "--temporal", "all", "--p", "10", "--exact", "--json", out]
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--yes" in err and "Traceback" not in err and f"{3 * math.comb(40, 10):,} subsets" in err
    assert not (tmp_path / "o.json").exists()


def test_cli_runs_a_short_exact_run_without_asking(tmp_path, capsys, monkeypatch):
    data, out = _tiny_csv(tmp_path), str(tmp_path / "o.json")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert (
        main(["risk", data, "--spatial", "raw", "--temporal", "all", "--p", "2", "--exact", "--json", out])
        == 0
    )
    row = json.loads((tmp_path / "o.json").read_text())["profiles"][0]["by_p"][0]
    assert row["n_draws"] == 3 and row["class_sizes"] == {"3": 3.0} and row["unicity"] == 0.0
