"""The attack and mask commands end to end on small files: JSON contract keys and clear errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privacy_studio.cli import main
from privacy_studio.core.measures.attacks.planted import planted_pair


def write_events(table, path) -> None:
    pd.DataFrame(
        {
            "user": table.user_ids[table.user],
            "time": pd.to_datetime(table.time, unit="s").strftime("%Y-%m-%dT%H:%M:%SZ"),
            "location": table.location_ids[table.location],
            "x_km": table.x_km,
            "y_km": table.y_km,
        }
    ).to_csv(path, index=False)


@pytest.fixture(scope="module")
def two_periods(tmp_path_factory):
    root = tmp_path_factory.mktemp("periods")
    a, b = planted_pair(40, shift_weeks=1, seed=2)
    write_events(a, root / "p1.csv")
    write_events(b, root / "p2.csv")
    return root


@pytest.fixture
def numeric(tmp_path):
    x = np.random.default_rng(0).normal(size=(30, 3))
    pd.DataFrame(x, columns=["a", "b", "c"]).assign(name=[f"r{i}" for i in range(30)]).to_csv(
        tmp_path / "x.csv", index=False
    )
    return tmp_path


def test_matching_and_profiling_commands(two_periods, tmp_path):
    common = [
        "--identified",
        str(two_periods / "p1.csv"),
        "--anonymous",
        str(two_periods / "p2.csv"),
        "--quiet",
    ]
    out = tmp_path / "m.json"
    assert main(["attack", "matching", *common, "--temporal", "1w", "--json", str(out)]) == 0
    m = json.loads(out.read_text())
    assert m["n_true_pairs"] == 40 and m["curve"][0]["epsilon"] == 0.0
    out = tmp_path / "p.json"
    assert (
        main(["attack", "profiling", *common, "--distance", "cosine", "--sizes", "10", "--json", str(out)])
        == 0
    )
    p = json.loads(out.read_text())
    assert [r["population"] for r in p["curve"]] == [10, 40] and p["distance"] == "cosine"


def test_mask_then_linkage_and_transparency(numeric, capsys):
    src, masked = numeric / "x.csv", numeric / "m.csv"
    cols = ["--columns", "a", "b", "c"]
    assert (
        main(["mask", "--method", "rankswap", "--p", "10", "--in", str(src), "--out", str(masked), *cols])
        == 0
    )
    m = pd.read_csv(masked)
    x = pd.read_csv(src)
    assert m["name"].tolist() == x["name"].tolist()  # untouched column copied
    assert sorted(m["a"]) == sorted(x["a"])
    out = numeric / "t.json"
    args = ["--original", str(src), "--masked", str(masked), *cols, "--json", str(out)]
    assert main(["attack", "transparency", *args, "--p-percent", "10"]) == 0
    t = json.loads(out.read_text())
    assert len(t["records"]) == 30 and 0 <= t["pinned_share"] <= 1
    assert all(1 <= c <= 30 for r in t["records"] for c in r["candidates"])
    assert main(["attack", "linkage", *args, "--distance", "euclidean", "--distance", "mahalanobis"]) == 0
    lk = json.loads(out.read_text())
    assert set(lk["distances"]) == {"euclidean", "mahalanobis"}


def test_bad_inputs_give_one_clear_line(numeric, capsys):
    src = numeric / "x.csv"
    narrow = numeric / "n.csv"
    pd.read_csv(src)[["a", "b"]].to_csv(narrow, index=False)
    assert (
        main(
            ["attack", "linkage", "--original", str(src), "--masked", str(narrow), "--columns", "a", "b", "c"]
        )
        == 2
    )
    assert "no column 'c'" in capsys.readouterr().err
    wide = ["attack", "linkage", "--original", str(src), "--masked", str(narrow)]
    assert main(wide) == 2
    assert "not numeric" in capsys.readouterr().err
    args = ["--in", str(src), "--out", str(numeric / "o.csv"), "--columns", "a", "b", "c"]
    assert main(["mask", "--method", "micro", "--k", "31", *args]) == 2
    assert "number of records (30)" in capsys.readouterr().err
    assert main(["mask", "--method", "noise", "--in", str(src), "--out", str(numeric / "o.csv")]) == 2
    assert "'name' is not numeric" in capsys.readouterr().err


def test_different_widths_are_refused(numeric, capsys):
    src = numeric / "x.csv"
    narrow = numeric / "n.csv"
    pd.read_csv(src)[["a", "b"]].to_csv(narrow, index=False)
    pd.read_csv(src)[["a", "b", "c"]].to_csv(numeric / "w.csv", index=False)
    assert main(["attack", "linkage", "--original", str(numeric / "w.csv"), "--masked", str(narrow)]) == 2
    assert "same width" in capsys.readouterr().err


def test_masked_file_with_columns_in_another_order_is_paired_by_name(numeric):
    from privacy_studio.core.measures.attacks.requests import run_attack

    src = numeric / "x.csv"
    pd.read_csv(src)[["c", "a", "b"]].to_csv(numeric / "shuffled.csv", index=False)
    pd.read_csv(src)[["a", "b", "c"]].to_csv(numeric / "plain.csv", index=False)
    request = {"original": str(numeric / "plain.csv"), "masked": str(numeric / "shuffled.csv")}
    result = run_attack({**request, "attack": "linkage", "distances": ["euclidean"]})
    assert result["distances"]["euclidean"]["percent_correct"] == 100.0
    assert run_attack({**request, "attack": "transparency", "window_ranks": 0})["pinned_share"] == 1.0


def test_requests_run_the_same_attack_as_the_command(numeric, tmp_path):
    from privacy_studio.core.measures.attacks.requests import describe, run_attack

    src = str(numeric / "x.csv")
    cols = ["a", "b", "c"]
    request = {
        "attack": "linkage",
        "original": src,
        "masked": src,
        "columns": cols,
        "distances": ["euclidean"],
    }
    result = run_attack(request)
    assert result["distances"]["euclidean"]["percent_correct"] == 100.0
    assert describe("linkage", result).startswith(
        "Record linkage on 30 records x 3 attributes: euclidean 100.0 %"
    )
    with pytest.raises(ValueError, match="unknown attack 'guess'"):
        run_attack({"attack": "guess"})
    links = tmp_path / "links.csv"
    links.write_text("user,card\nu1\n")
    bad = {"attack": "matching", "identified": {"path": src}, "anonymous": {"path": src}, "links": str(links)}
    with pytest.raises(ValueError, match="line 2: expected two columns"):
        run_attack(bad)
