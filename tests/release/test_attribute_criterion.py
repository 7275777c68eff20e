"""Issue #29: an attribute-disclosure release criterion is judged on the release as written (its people and
traces after suppression), not reported "not measured"; the search can then recommend a passing candidate."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import Dataset, ReaderOptions
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.project import Project
from privacy_studio.core.project_run import computed_utility
from privacy_studio.core.release import prepare_release
from privacy_studio.core.release.defaults import measure_settings, policy
from privacy_studio.core.release.options import ReleaseOptions
from privacy_studio.core.release.search import search
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.tradeoff.candidates import Suppression

LIMIT = {"max_homogeneous": 0.5, "limit_reasons": {"max_homogeneous": "issue #29 test limit"}}
HOMOGENEOUS = "share of people whose class has one value of a sensitive attribute"


def reference_homogeneous(written: pd.DataFrame, owners: dict[str, str], attributes: pd.DataFrame) -> float:
    """Slow reference: people grouped by their whole written trace (every column but the pseudonym), the
    share of people whose group has one value of income_band (empty cells count as one value "unknown")."""
    other = [c for c in written.columns if c != "user"]
    rows = written.astype(str).groupby("user")[other]
    trace = rows.apply(lambda g: tuple(sorted(map(tuple, g.to_numpy()))))
    value = {u: attributes["income_band"].get(owners[u], "") or "(unknown)" for u in trace.index}
    people = pd.DataFrame({"trace": trace, "value": pd.Series(value)})
    distinct = people.groupby("trace")["value"].transform("nunique")
    return float((distinct == 1).mean())


def test_a_release_is_judged_on_attribute_disclosure_measured_as_written(sample_project):
    project = Project.load(sample_project)
    project.settings["sensitive"] = ["income_band"]
    project.tradeoff.update(LIMIT)
    dataset = project.load_dataset()
    options = ReleaseOptions("district", "1w", k_anonymity=2)
    prepared = prepare_release(dataset, options, measure_settings(project), None, policy(project))
    check = next(c for c in prepared.checks if HOMOGENEOUS in c.name)
    assert check.value is not None, "the attribute criterion must be measured on the release"
    trace_figure = next(f for f in prepared.result.attributes if f.classes == "trace")
    written = prepared.rows.table.to_pandas()
    mapping = prepared.mapping
    owners = dict(zip(mapping["pseudonym"].to_pylist(), mapping["original"].to_pylist(), strict=True))
    attributes = pd.read_csv(sample_project.parent / "attributes.csv", dtype=str, keep_default_na=False)
    expected = reference_homogeneous(written, owners, attributes.set_index("user_id"))
    assert trace_figure.n_people == prepared.released.people
    assert trace_figure.homogeneous == pytest.approx(expected, abs=1e-12)
    assert check.value == pytest.approx(max(f.homogeneous for f in prepared.result.attributes), abs=1e-12)


def _search_project(tmp_path, values: list[str]) -> tuple[Project, Dataset]:
    """Ten people with one identical trace and the given income bands, run with attribute disclosure."""
    start = int(datetime(2024, 3, 4, tzinfo=UTC).timestamp())
    users = np.repeat([f"u{i}" for i in range(10)], 3)
    times = start + np.tile([0, 3600, 90000], 10)
    places = np.tile(["a", "b", "c"], 10)
    events = build_event_table(users, times, places, tz="UTC")
    dataset = Dataset(events, None, ImportReport("test"), [], ReaderOptions(tz="UTC"))
    path = tmp_path / "attributes.csv"
    pd.DataFrame({"user_id": [f"u{i}" for i in range(10)], "income_band": values}).to_csv(path, index=False)
    risk = RiskSettings(
        spatial=["raw"], temporal=["1h", "all"], p_values=[2], samples=500, seed=1, reference_p=2,
        sensitive=["income_band"], attributes=str(path),
        measures=["unicity", "kanon", "worst", "attribute_disclosure"],
    )  # fmt: skip
    project = Project(name="attribute search", settings=risk.to_dict())
    project.tradeoff.update(risk_measure="unicity", risk_p=2, ceiling=0.3, **LIMIT)
    project.results = list(run_grid(dataset.events, risk, None))
    project.store(computed_utility(dataset, risk))
    return project, dataset


def test_the_search_recommends_a_candidate_that_meets_the_attribute_criterion(tmp_path):
    project, dataset = _search_project(tmp_path, ["low", "high"] * 5)
    found = search(project, dataset, (Suppression(), Suppression(2)))
    assert found.recommended is not None, found.why_none
    options = ReleaseOptions(*found.recommended.profile.split(":")[:2])
    prepared = prepare_release(dataset, options, measure_settings(project), None, policy(project))
    check = next(c for c in prepared.checks if HOMOGENEOUS in c.name)
    assert check.value == 0.0 and check.passed


def test_the_search_recommends_nothing_when_every_class_is_homogeneous(tmp_path):
    project, dataset = _search_project(tmp_path, ["low"] * 10)
    found = search(project, dataset, (Suppression(), Suppression(2)))
    assert found.recommended is None and found.why_none
