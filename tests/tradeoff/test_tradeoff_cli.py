"""The whole analysis and ``privacy-studio tradeoff`` on a grid shaped like the thesis' (table 5.2)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from privacy_studio.cli import main
from privacy_studio.core.project import Project
from privacy_studio.core.risk.results import results_of
from privacy_studio.core.tradeoff import grid_table
from privacy_studio.core.tradeoff.analysis import analyse, coarseness


def test_analysis_of_the_thesis_grid(thesis_profiles, thesis_scores):
    grid = grid_table(thesis_profiles())
    labels = grid.labels
    utility = np.asarray([thesis_scores["scores"][label]["transport"] for label in labels])
    result = analyse(grid, utility, ceiling=0.05, utility_name="transport", unit_areas={"zip": 1.0})
    # zip × 1w (6 points) is more useful but its unicity of 14 % is above the ceiling.
    assert result.recommendation.label == "district × 1w"
    assert result.pareto.dominated_by["municipality × 1h"] == ["zip × 1w", "district × 6h", "district × 12h"]
    assert result.pareto.dominated_by["municipality × 12h"] == ["district × 1w"]
    assert result.ordinal.all_equivalent  # k-disclosure and EM are increasing functions of unicity here
    assert np.isnan(result.coarseness[labels.index("district × 1h")])
    assert result.power_law is not None and result.power_law.n_used == 4
    doc = result.to_dict()
    assert doc["recommendation"]["profile"] == "district × 1w"
    assert json.loads(json.dumps(doc)) == doc


def test_coarseness_uses_grid_side_and_period():
    grid = grid_table([{"spatial": "grid:2", "temporal": "all", "by_p": []}])
    assert coarseness(grid, period_seconds=7 * 86400).tolist() == [4.0 * 168]


def test_cli_on_results_json_and_scores_csv(tmp_path, capsys, thesis_profiles, thesis_scores):
    results = tmp_path / "risk.json"
    results.write_text(json.dumps({"profiles": thesis_profiles()}))
    scores = tmp_path / "scores.csv"
    lines = ["profile,transport,epidemiology"] + [
        f"{label},{row['transport']:g}," for label, row in thesis_scores["scores"].items()
    ]
    scores.write_text("\n".join(lines) + "\n")
    out = tmp_path / "tradeoff.json"
    code = main(["tradeoff", str(results), "--scores", str(scores), "--ceiling", "0.01", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "Recommendation" in text and "Kendall" in text
    doc = json.loads(out.read_text())
    # Under 1 %, only the week-long profiles of districts and municipalities remain; districts score higher.
    assert doc["recommendation"]["profile"] == "district × 1w"
    assert main(["tradeoff", str(results), "--scores", str(scores), "--utility", "epidemiology"]) == 0
    out = capsys.readouterr().out
    assert (
        "No utility score for: postcode areas × 1 hour, postcode areas × 6 hours" in out
    )  # the empty column


def test_cli_on_a_project_uses_saved_choices(tmp_path, capsys, thesis_profiles, thesis_scores):
    project = Project(name="thesis", results=results_of(thesis_profiles(), "thesis"), utility=thesis_scores)
    project.tradeoff = {"risk_measure": "unicity", "risk_p": 1, "utility": "transport", "ceiling": 0.2}
    path = project.save(tmp_path / "thesis.psproj")
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(path), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["p"], doc["ceiling"]) == (1, 0.2)
    assert doc["recommendation"]["profile"] == "district × 6h"  # zip × 6h: upper bound 0.26 > 0.2
    project.analyses["information_loss"] = {
        "zip × 1h": {"od_matrix": 9.0},
        "district × 1w": {"od_matrix": 8.0},
    }
    path = project.save()
    assert main(["tradeoff", str(path), "--utility", "od_matrix", "--p", "4", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["recommendation"]["profile"] == "district × 1w"
    assert "No utility score for: postcode areas × 6 hours" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--p", "7"], "no p = 7"),
        (["--measure", "fame"], "unknown risk measure"),
        (["--utility", "cooking"], "unknown utility domain"),
        (["--unit-area", "zip"], "LEVEL=KM2"),
    ],
)
def test_cli_bad_choices_give_one_line(tmp_path, capsys, args, message, thesis_profiles, thesis_scores):
    path = Project(results=results_of(thesis_profiles(), "thesis"), utility=thesis_scores).save(
        tmp_path / "p.psproj"
    )
    assert main(["tradeoff", str(path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_without_scores_or_results(tmp_path, capsys, thesis_profiles):
    results = tmp_path / "risk.json"
    results.write_text(json.dumps({"profiles": thesis_profiles()}))
    assert main(["tradeoff", str(results)]) == 2
    assert "no utility scores" in capsys.readouterr().err
    results.write_text("[1, 2]")
    assert main(["tradeoff", str(results)]) == 2
    assert "no 'profiles' list" in capsys.readouterr().err


def test_cli_risk_by_group(tmp_path, capsys, thesis_profiles, thesis_scores):
    records = thesis_profiles()
    for record in records:
        record["per_user"] = {
            "user_ids": ["a", "b", "c", "d"],
            "unique_rate": [1.0, 1.0, 0.0, None],
            "em": None,
        }
    path = Project(results=results_of(records, "records"), utility=thesis_scores).save(tmp_path / "p.psproj")
    attrs = tmp_path / "people.csv"
    attrs.write_text("user_id,gender\na,f\nb,f\nc,m\nd,m\ne,m\n")
    out = tmp_path / "t.json"
    assert main(["tradeoff", str(path), "--attributes", str(attrs), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Risk by group at district × 1w" in text
    doc = json.loads(out.read_text())["risk_by_group"]
    assert (doc["profile"], doc["n_matched"], doc["n_without_risk"]) == ("district × 1w", 3, 2)
    female = next(g for g in doc["groups"] if g["group"] == "f")
    assert female["mean_unique"] == 1.0 and female["mean_em"] is None
    args = ["tradeoff", str(path), "--attributes", str(attrs), "--group-profile", "zip × 2h"]
    assert main(args) == 2
    assert "not a profile of the results" in capsys.readouterr().err
