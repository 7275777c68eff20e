"""Issue #24: project files never hold original user ids; per-user results are keyed by a salted hash, and
older files are keyed when they are opened."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from privacy_studio.core.project import Project
from privacy_studio.core.risk.results import results_of
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.tradeoff.groups import read_attributes, risk_by_group_of
from privacy_studio.core.user_keys import keyed_results, user_keys

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture(scope="module")
def sample_with_results(tmp_path_factory) -> tuple[Path, list[dict]]:
    if not (SAMPLE / "events.csv").exists():
        pytest.skip("sample_data/events.csv is missing")
    folder = tmp_path_factory.mktemp("keys")
    for name in ("sample.psproj", "events.csv", "antennas.csv", "hierarchy.csv", "attributes.csv"):
        shutil.copy(SAMPLE / name, folder / name)
    project = Project.load(folder / "sample.psproj")
    dataset = project.load_dataset()
    settings = RiskSettings(["district"], ["1w"], p_values=[4], measures=["unicity"], samples=300, seed=1)
    results = [r.to_dict() for r in run_grid(dataset, settings, dataset.hierarchy)]
    assert results[0]["per_user"]["user_ids"]  # the run itself names users by their ids
    return folder / "sample.psproj", results


def test_a_saved_project_holds_no_original_user_id(sample_with_results):
    path, results = sample_with_results
    project = Project.load(path)
    project.results = results_of(results, "run")
    project.save()
    text = path.read_text()
    ids = results[0]["per_user"]["user_ids"]
    assert not any(f'"{i}"' in text for i in ids)
    saved = json.loads(text)["results"][0]["per_user"]
    assert "user_ids" not in saved and len(saved["user_keys"]) == len(ids)


def test_risk_by_group_is_the_same_with_keys(sample_with_results):
    path, results = sample_with_results
    project = Project.load(path)
    project.results = results_of(results, "run")
    project.save()
    reopened = Project.load(path)
    attributes = read_attributes(SAMPLE / "attributes.csv")
    salt = reopened.analyses["user_keys"]["salt"]
    by_ids = risk_by_group_of(results[0], attributes)
    by_keys = risk_by_group_of(reopened.results[0], attributes, salt)
    assert by_keys == by_ids and by_ids.n_matched > 0


def test_an_older_file_is_keyed_when_opened(sample_with_results, tmp_path: Path):
    path, results = sample_with_results
    document = json.loads(path.read_text())
    document["results"] = results  # the old form: per-user results under original ids
    document["analyses"].pop("user_keys", None)
    old = path.with_name("old.psproj")
    old.write_text(json.dumps(document))
    project = Project.load(old)
    salt = project.analyses["user_keys"]["salt"]
    assert project.results[0].per_user["user_keys"] == user_keys(results[0]["per_user"]["user_ids"], salt)
    assert "user_ids" not in project.results[0].per_user


def test_keys_by_hand():
    """A worked example: the key is HMAC-SHA-256 of the id's text under the salt, cut to 24 hex digits."""
    import hashlib
    import hmac

    salt = "00" * 16
    expected = hmac.new(bytes(16), b"u42", hashlib.sha256).hexdigest()[:24]
    assert user_keys(["u42"], salt) == [expected]
    assert user_keys([42], salt) == user_keys(["42"], salt)
    keyed = keyed_results([{"per_user": {"user_ids": ["u42"], "unique_rate": [1.0]}}], salt)
    assert keyed == [{"per_user": {"unique_rate": [1.0], "user_keys": [expected]}}]


def test_a_signature_survives_saving_keyed_results(sample_with_results):
    """Signing over results that still name users by id, then saving (which keys them), keeps it valid."""
    from privacy_studio.core.report.record import project_digest, sign_details
    from privacy_studio.core.report_details import ReportDetails

    path, results = sample_with_results
    project = Project.load(path)
    project.results = results_of(results, "run")
    sign_details(project, ReportDetails(decision="release approved")).store(project.analyses)
    project.save()
    reopened = Project.load(path)
    assert not ReportDetails.of(reopened.analyses).signed_for_earlier(project_digest(reopened))
