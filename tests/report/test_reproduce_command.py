"""The report's "command line that reproduces the risk figures" reads back, through the ``risk`` command's
own parser, as exactly the project's risk settings (the grid's levels, p and every estimation setting)."""

from __future__ import annotations

import shlex
from dataclasses import replace

import pytest

from privacy_studio.cli import build_parser
from privacy_studio.cli.risk import settings_of
from privacy_studio.core.report.build import reproduce_command
from privacy_studio.core.report.inputs import resolve_inputs
from privacy_studio.core.risk.settings import RiskSettings

CHANGED = [
    {},
    {"short_traces": "all-points", "records_at_risk_k": 3, "knowledge": "top"},
    {"search_budget": 5.0, "exact_budget": 0.5, "draws": 3, "em_samples": 50, "exact": True},
    {"measures": ["unicity", "k_disclosure"], "reference_p": 2, "price": ["none", "3"]},
]


@pytest.mark.parametrize("changed", CHANGED, ids=lambda d: ",".join(d) or "defaults")
def test_the_command_reads_back_as_the_projects_settings(make_project, changed):
    project = make_project()
    wanted = replace(project.risk_settings(), **changed)
    project.settings = wanted.to_dict()
    words = shlex.split(reproduce_command(resolve_inputs(project)))
    assert words[:2] == ["privacy-studio", "risk"] and words[-2:] == ["--json", "OUT.json"]
    read = settings_of(build_parser().parse_args(words[1:]))
    assert read == replace(wanted, cells=None)


def test_settings_left_at_their_defaults_are_not_spelled_out(make_project):
    command = reproduce_command(resolve_inputs(make_project()))
    assert "--spatial" in command and "--p 1,2,3,4" in command and "--seed 5" in command
    assert "--short-traces" not in command and "--search-budget" not in command
    defaults = RiskSettings(spatial=["a"], temporal=["1h"])
    assert defaults.knowledge not in command.split()
