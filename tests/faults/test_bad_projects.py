"""Broken project files given to ``privacy-studio report``: each is one clear sentence, and the previous
PDF is left as it was."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, prepare_outputs, run_cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"
RESULT = {
    "spatial": "antenna",
    "temporal": "1h",
    "label": "antenna × 1h",
    "n_users": 10,
    "d": 5,
    "nnz": 20,
    "fill_rate": 0.4,
    "n_events": 100,
    "by_p": [{"p": 1, "unicity": 0.5, "unicity_ci": [0.4, 0.6], "n_sampled": 10, "n_excluded": 0}],
}


def _document() -> dict:
    return json.loads(SAMPLE.read_text())


def _with(path: tuple, value: object) -> Callable[[dict], dict]:
    def change(d: dict) -> dict:
        d = copy.deepcopy(d)
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return d

    return change


def _result(**by_p: object) -> Callable[[dict], dict]:
    result = copy.deepcopy(RESULT)
    result["by_p"][0].update(by_p)
    return _with(("results",), [result])


#: Whole-document damages: name -> change of the sample project (or raw bytes).
DOCUMENT_CHANGES: dict[str, Callable[[dict], dict]] = {
    "unicity_5": _result(unicity=5),
    "unicity_negative": _result(unicity=-0.1, unicity_ci=[0, 0.2]),
    "interval_-3_7": _result(unicity=0.5, unicity_ci=[-3, 7]),
    "interval_misses_estimate": _result(unicity=0.9, unicity_ci=[0.1, 0.2]),
    "interval_reversed": _result(unicity_ci=[0.6, 0.4]),
    "interval_text": _result(unicity_ci="wide"),
    "interval_three": _result(unicity_ci=[0.1, 0.2, 0.3]),
    "k_disclosure_2": _result(k_disclosure=2.0),
    "em_negative": _result(em=-1.0),
    "excluded_negative": _result(n_excluded=-4),
    "sampled_text": _result(n_sampled="ten"),
    "unicity_text": _result(unicity="high"),
    "schema_future": _with(("schema_version",), 99),
    "schema_text": _with(("schema_version",), "two"),
    "sources_not_list": _with(("sources",), "events.csv"),
    "source_dev_zero": _with(("sources", 0, "path"), "/dev/zero"),
    "source_missing": _with(("sources", 0, "path"), "nowhere.csv"),
    "source_folder_missing": _with(("sources", 0, "path"), "/nonexistent/folder/e.csv"),
    "role_unknown": _with(("sources", 0, "role"), "cookies"),
    "settings_list": _with(("settings",), []),
    "results_object": _with(("results",), {}),
    "result_number": _with(("results",), [3]),
    "name_number": _with(("name",), 3),
    "unknown_field": _with(("surprise",), 1),
    "engine_text": _with(("engine",), "fast"),
}

RAW_DOCUMENTS: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b"   \n",
    "binary": bytes(range(256)),
    "truncated": SAMPLE.read_bytes()[:300],
    "not_json": b"this is not a project",
    "json_list": b"[1, 2, 3]",
    "json_number": b"42",
    "json_null": b"null",
    "deeply_nested": b"[" * 100_000 + b"]" * 100_000,
    "deeply_nested_objects": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "huge_integer": b'{"schema_version": ' + b"9" * 100_000 + b"}",
    "huge_float": b'{"schema_version": 1e999}',
    "latin1": '{"name": "café"}'.encode("latin-1"),
    "nan": b'{"schema_version": NaN}',
}


def _check(project: Path, tmp_path: Path, record: Callable) -> None:
    pdf = tmp_path / "report.pdf"
    prepare_outputs(pdf)
    run = run_cli(["report", project, "--pdf", pdf], seconds=120)
    record(judge_error(run, (pdf,)), run.err + (run.raised or ""))


@pytest.mark.parametrize("name", sorted(DOCUMENT_CHANGES))
def test_damaged_project_is_refused(name: str, tmp_path: Path, record: Callable) -> None:
    project = tmp_path / "p.psproj"
    for side in ("events.csv", "attributes.csv", "antennas.csv", "hierarchy.csv"):
        os.symlink(SAMPLE.parent / side, tmp_path / side)
    project.write_text(json.dumps(DOCUMENT_CHANGES[name](_document())))
    _check(project, tmp_path, record)


@pytest.mark.parametrize("name", sorted(RAW_DOCUMENTS))
def test_malformed_project_file_is_refused(name: str, tmp_path: Path, record: Callable) -> None:
    project = tmp_path / "p.psproj"
    project.write_bytes(RAW_DOCUMENTS[name])
    _check(project, tmp_path, record)
