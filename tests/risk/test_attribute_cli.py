"""Attribute disclosure from the command line: risk and project new take the attributes, the trade-off
judges a criterion on them, the report says it in words; bad input is one sentence and exit code 2."""

from __future__ import annotations

import json

import pytest

from privacy_studio import cli
from privacy_studio.core.measures.attributes import AttributeFigures
from privacy_studio.core.report.attributes import sentence
from privacy_studio.core.tradeoff.criteria import ReleaseCriteria, check_profiles
from privacy_studio.core.tradeoff.grid import grid_table
from tests.risk.test_attribute_disclosure import HAND_SETS, HAND_VALUES


@pytest.fixture
def files(tmp_path):
    """The worked example's five people as an events file (one event per point) and an attributes file."""
    rows = [f"u{i:03d},2024-03-04T0{j}:00:00,x{j}" for i, s in enumerate(HAND_SETS) for j in sorted(s)]
    (tmp_path / "events.csv").write_text("user,time,location\n" + "\n".join(rows) + "\n")
    attrs = [f"u{i:03d},{v}" for i, v in enumerate(HAND_VALUES)]
    (tmp_path / "attributes.csv").write_text("user_id,income\n" + "\n".join(attrs) + "\n")
    return tmp_path


def risk_args(files, *extra: str) -> list[str]:
    return [
        "risk", str(files / "events.csv"), "--spatial", "raw", "--temporal", "all", "--p", "2",
        "--engine", "numba", "--json", str(files / "out.json"), *extra,
    ]  # fmt: skip


def test_risk_writes_the_figures_and_prints_them(files, capsys):
    extra = ("--attributes", str(files / "attributes.csv"), "--sensitive", "income", "--measures", "unicity")
    assert cli.main(risk_args(files, *extra)) == 0
    out = capsys.readouterr().out
    assert "income, whole trace: homogeneous 0.600" in out
    (profile,) = json.loads((files / "out.json").read_text())["profiles"]
    trace, sets = (AttributeFigures.from_dict(a) for a in profile["attributes"])
    assert (trace.homogeneous, sets.homogeneous, sets.n_left_out) == (pytest.approx(0.6), 0.5, 1)
    grid = grid_table([profile])
    assert grid.attribute_share("homogeneous").tolist() == [pytest.approx(0.6)]
    (checks,) = check_profiles(
        grid,
        ReleaseCriteria(ceiling=0.9, max_homogeneous=0.5, reasons={"max_homogeneous": "a test limit"}),
        "unicity",
        2,
        "unicity",
    )
    # unicity 0 (upper 49 %) passes; 60 % homogeneous fails (unique traces and the worst case, judged by
    # default since issue #25, sit between them)
    assert (checks[0].passed, checks[-1].passed) == (True, False)
    assert "one value of a sensitive attribute" in checks[-1].name
    assert sentence(trace) == (
        "For 60.0% of people, everyone who shares their whole trace has the same income (5 people)."
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--sensitive", "income"), "--sensitive needs --attributes"),
        (("--attributes", "ATTR", "--sensitive", "age"), "not in the attributes file"),
        (("--attributes", "ATTR", "--sensitive", "income", "--t-closeness", "1.5"), "t of t-closeness"),
        (("--attributes", "ATTR", "--sensitive", "income", "--engine", "duckdb"), "numba engine only"),
    ],
)
def test_bad_attribute_input_is_one_sentence_and_exit_2(files, capsys, extra, message):
    extra = tuple(str(files / "attributes.csv") if e == "ATTR" else e for e in extra)
    assert cli.main(risk_args(files, *extra)) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (files / "out.json").exists()


def test_project_new_keeps_the_sensitive_columns_and_refuses_unknown_ones(files, capsys):
    base = [
        "project", "new", str(files / "events.csv"), "--spatial", "raw", "--temporal", "all", "--name", "t",
        "--attributes", str(files / "attributes.csv"), "--out", str(files / "p.psproj"),
    ]  # fmt: skip
    assert cli.main([*base, "--sensitive", "salary"]) == 2
    assert "not a column" in capsys.readouterr().err and not (files / "p.psproj").exists()
    assert cli.main([*base, "--sensitive", "income", "--l-diversity", "2"]) == 0
    saved = json.loads((files / "p.psproj").read_text())
    assert saved["settings"]["sensitive"] == ["income"] and saved["settings"]["l_diversity"] == 2
    assert saved["settings"]["attributes"] is None  # the file is the project's source, not a setting
    assert [s["role"] for s in saved["sources"]] == ["events", "attributes"]
