"""The ``anonymizability`` command end to end on a small generated city."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privacy_studio.cli import main
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.measures.anonymizability import AggregationLevel, anonymizability


@pytest.fixture(scope="module")
def events_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("city") / "city"
    assert (
        main(["generate", "--users", "40", "--days", "5", "--seed", "2", "--out", str(out), "--quiet"]) == 0
    )
    return out / "events.csv"


def test_json_has_the_keys_of_the_issue_and_matches_the_api(events_csv, tmp_path, capsys):
    out = tmp_path / "anon.json"
    argv = ["anonymizability", str(events_csv), "--k", "2,5", "--targets", "12", "--seed", "3"]
    assert main([*argv, "--aggregate", "1km/20min,20km/8h", "--json", str(out), "--quiet"]) == 0
    payload = json.loads(out.read_text())
    assert [r["k"] for r in payload["results"]] == [2, 5]
    keys = {"k", "users", "delta", "spatial_gini", "temporal_gini", "spatial_tail", "temporal_tail", "ratio"}
    for entry in payload["results"]:
        assert keys <= set(entry)
        assert all(len(entry[key]) == 12 for key in keys - {"k"})
    expected = anonymizability(
        load_dataset(str(events_csv), ReaderOptions()).events, (2, 5), targets=12, seed=3
    )
    assert payload["results"][0]["users"] == expected.user_ids.tolist()
    np.testing.assert_allclose(payload["results"][1]["delta"], expected.delta[1], rtol=1e-12)
    assert [a["level"] for a in payload["aggregation"]] == ["1km/20min", "20km/8h"]
    assert all(len(a["results"][1]["delta"]) == 12 for a in payload["aggregation"])
    assert "median Δ" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--k", "2,500"], "needs at least 500 users"),
        (["--aggregate", "1km"], "is not SPACE/TIME"),
        (["--tmax-h", "0"], "must be > 0"),
    ],
)
def test_bad_parameters_give_one_line_and_exit_code_2(events_csv, tmp_path, capsys, extra, message):
    code = main(["anonymizability", str(events_csv), *extra, "--json", str(tmp_path / "x.json"), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_aggregation_levels_parse_and_label():
    assert AggregationLevel.parse("500m/1h") == AggregationLevel(0.5, 60.0)
    assert AggregationLevel.parse("20km/8h").label == "20km/8h"
    assert AggregationLevel.parse("raw").label == "raw"
    assert AggregationLevel.parse("1km/raw").label == "1km/raw"
    with pytest.raises(ValueError, match="positive number"):
        AggregationLevel.parse("1mile/1h")
