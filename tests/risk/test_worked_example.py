"""The worked example of metrics.md §4 (thesis table 4.1) through the API and through the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privacy_studio.cli import main
from privacy_studio.core.events import LocationTable, build_event_table
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid

ROWS = {"1": [1, 3], "2": [1, 3, 4], "3": [3, 4], "4": [2, 4]}
KNOWN = "user_id,time,location_id\n1,0,b3\n2,0,b1\n3,0,b4\n4,0,b2\n4,0,b4\n"


def worked_table():
    users = [u for u, bins in ROWS.items() for _ in bins]
    locs = [f"b{b}" for bins in ROWS.values() for b in bins]
    ids = np.asarray([f"b{i}" for i in range(1, 6)])
    nan = np.full(5, np.nan)
    return build_event_table(
        np.asarray(users),
        np.zeros(len(users), dtype=np.int64),
        np.asarray(locs),
        locations=LocationTable(ids, nan, nan, nan, nan),
    )


def check_worked(profile: dict) -> None:
    assert profile["n_users"] == 4 and profile["d"] == 5
    (row,) = profile["by_p"]
    assert row["p"] is None
    assert row["unicity"] == pytest.approx(0.25)
    assert row["k_disclosure"] == pytest.approx((1 / 3 + 1 / 2 + 1 / 3 + 1) / 4)
    assert row["n_sampled"] == 4 and row["n_excluded"] == 0
    per_user = dict(zip(profile["per_user"]["user_ids"], profile["per_user"]["em"], strict=True))
    assert per_user["2"] == pytest.approx(0.25)  # EM_2 = 0.25
    assert row["class_sizes"] == {"1": 1, "2": 1, "3": 2}  # |E| = 3, 2, 3, 1


def test_worked_example_api(tmp_path):
    known = tmp_path / "known.csv"
    known.write_text(KNOWN)
    settings = RiskSettings(spatial=["raw"], temporal=["all"], knowledge=f"explicit:{known}")
    (result,) = list(run_grid(worked_table(), settings))
    check_worked(result.to_dict())


def test_worked_example_em_of_one_point():
    """EM_{2,3} = |2/2 - 3/4|: user 2 knowing bin 1 gives E = {1, 2}, both visit bin 3, prior 3/4."""
    from privacy_studio.core.generalize import Profile, generalize
    from privacy_studio.core.index import build_index
    from privacy_studio.core.kernels.disclosure import em_kl_of_set
    from privacy_studio.core.kernels.intersect import walk_start
    from privacy_studio.core.measures.disclosure import point_priors

    index = build_index(generalize(worked_table(), Profile.parse("raw", "all")))
    priors = point_priors(index.list_len, index.n_users)
    q = priors.q
    state = np.zeros(4, dtype=np.int64)
    walk_start(0, index.post_ptr, index.dense_slot, state)  # point b1
    acc = np.zeros(index.n_points)
    n = index.n_users
    em, _ = em_kl_of_set(
        state,
        index.arrays(),
        np.zeros((2, n), np.int32),
        np.zeros(index.n_words, np.uint64),
        priors,
        np.zeros(index.n_points, np.int64),
        np.zeros(index.n_points, np.int64),
        np.zeros(n, np.int32),
        acc,
        1.0,
    )
    b3 = int(np.searchsorted(index.point_ids, 2))
    assert acc[b3] + q[b3] == pytest.approx(0.25)
    assert em / index.d == pytest.approx(0.25)


def test_worked_example_cli(tmp_path, capsys):
    data = tmp_path / "events.csv"
    lines = ["user_id,timestamp,location_id"]
    lines += [f"{u},2024-01-01T00:00:00Z,b{b}" for u, bins in ROWS.items() for b in bins]
    data.write_text("\n".join(lines) + "\n")
    locations = tmp_path / "locations.csv"
    locations.write_text("location_id\n" + "\n".join(f"b{i}" for i in range(1, 6)) + "\n")
    known = tmp_path / "known.csv"
    known.write_text(KNOWN)
    out = tmp_path / "risk.json"
    code = main(
        [
            "risk",
            str(data),
            "--locations",
            str(locations),
            "--spatial",
            "raw",
            "--temporal",
            "all",
            "--knowledge",
            f"explicit:{known}",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    payload = json.loads(out.read_text())
    (profile,) = payload["profiles"]
    keys = {"spatial", "temporal", "n_users", "d", "by_p"}
    assert keys <= set(profile)
    row_keys = {
        "p",
        "unicity",
        "unicity_ci",
        "k_disclosure",
        "em",
        "kl",
        "n_sampled",
        "n_excluded",
        "worst_mean",
        "worst_share_at_1",
    }
    assert row_keys <= set(profile["by_p"][0])
    check_worked(profile)
    assert "unicity" in capsys.readouterr().out


def test_theory_cli(tmp_path):
    out = tmp_path / "theory.json"
    assert main(["theory", "--n", "1000", "--q", "0.01", "--d", "10,100,1000", "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert payload["d"] == [10, 100, 1000]
    assert set(payload) >= {"d", "p_unique", "p_2anon"}
    assert payload["p_unique"][0] < payload["p_unique"][2]
