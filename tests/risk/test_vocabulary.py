"""One vocabulary (issue #31): every command, the project file and the window take a measure's catalogue
name, its aliases and its fields' names, all resolved by the catalogue's one ``canonical()``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from privacy_studio.cli import main
from privacy_studio.core.explanations import explain
from privacy_studio.core.project import Project
from privacy_studio.core.risk.catalogue import CATALOGUE, canonical, risk_field


def test_every_word_of_a_measure_is_read_as_its_name():
    for m in CATALOGUE:
        for word in (m.name, *m.aliases, *(f.name for f in m.fields)):
            assert canonical(word) == m.name
            assert explain(word) is explain(m.name)  # tooltips and help follow the same words
    assert canonical("no_such_measure") == "no_such_measure"


@pytest.fixture(scope="module")
def events(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("vocab") / "events.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["user", "time", "location"])
        for u, locs in enumerate([["a", "b"], ["a", "b"], ["a", "c"], ["b", "c", "d"], ["c", "d"]]):
            for i, loc in enumerate(locs):
                w.writerow([f"u{u}", f"2024-01-0{i + 1}T10:00:00Z", loc])
    return data


def _scores(folder: Path) -> str:
    scores = folder / "scores.csv"
    scores.write_text("profile,planning\nraw × all,4\nraw × 1d,8\n", encoding="utf-8")
    return str(scores)


def _risk(events: Path, out: Path, measures: str) -> dict:
    argv = ["risk", str(events), "--spatial", "raw", "--temporal", "all,1d", "--p", "1,2", "--exact"]
    assert main([*argv, "--measures", measures, "--engine", "numba", "--json", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("word", ["em_disclosure", "em"])
def test_risk_takes_a_name_and_an_alias(events, tmp_path, word):
    doc = _risk(events, tmp_path / "r.json", f"unicity,{word}")
    assert doc["settings"]["measures"] == ["unicity", "em_disclosure"]
    assert doc["profiles"][0]["by_p"][0]["em"] is not None


@pytest.mark.parametrize(
    ("word", "field"), [("em_disclosure", "em"), ("em", "em"), ("kdisc", "k_disclosure")]
)
def test_tradeoff_takes_a_name_and_an_alias(events, tmp_path, word, field):
    results = tmp_path / "r.json"
    _risk(events, results, "unicity,em_disclosure,k_disclosure")
    out = tmp_path / "t.json"
    assert (
        main(
            [
                "tradeoff",
                str(results),
                "--scores",
                _scores(tmp_path),
                "--measure",
                word,
                "--p",
                "2",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads(out.read_text())["measure"] == field


def test_tradeoff_refuses_an_unknown_measure_with_the_list(events, tmp_path, capsys):
    results = tmp_path / "r.json"
    _risk(events, results, "unicity")
    argv = ["tradeoff", str(results), "--scores", _scores(tmp_path), "--measure", "homogeneity", "--p", "2"]
    assert main([*argv, "--json", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert "unknown risk measure 'homogeneity'" in err and "unicity" in err and "Traceback" not in err


@pytest.mark.parametrize("word", ["kl_disclosure", "kl"])
def test_a_project_file_takes_a_name_and_an_alias(tmp_path, word):
    path = Project(tradeoff={"risk_measure": word, "risk_p": 4, "utility": None, "ceiling": 0.05}).save(
        tmp_path / "p.psproj"
    )
    project = Project.load(path)
    assert project.choice().risk_measure == project.tradeoff["risk_measure"] == risk_field(word) == "kl"
