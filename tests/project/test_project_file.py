"""Project files: round trip, relative paths, hashes, migration from schema 0, and rejected files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.project import (
    SCHEMA_VERSION,
    DataSource,
    Project,
    ProjectError,
    migrate,
    parse_document,
    sha256_of,
)
from privacy_studio.core.risk.results import PResult, ProfileResult

DATA = Path(__file__).parent / "data"


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A copy of the golden project folder, so tests may move and change files."""
    shutil.copytree(DATA, tmp_path / "proj")
    return tmp_path / "proj"


def _sample_project(folder: Path) -> Project:
    p = Project(name="Études à Paris")
    p.add_source(
        folder / "inputs" / "events.csv", {"tz": "UTC", "antennas": str(folder / "inputs/antennas.csv")}
    )
    p.settings = {"spatial": ["zip"], "temporal": ["1h"], "p_values": [1, 2], "seed": 3}
    p.results = [
        ProfileResult.from_dict(
            {"label": "zip/1h", "unicity": [np.float64(0.25), 0.5], "n": np.int64(4), "ci": (0.1, 0.4)}
        )
    ]
    p.utility = {"domains": ["transport"], "scores": {"zip/1h": {"transport": 7.0}}}
    p.analyses = {"anonymizability": {"k": [2, 5]}}
    return p


def test_round_trip_keeps_everything(inputs: Path) -> None:
    p = _sample_project(inputs)
    saved = p.save(inputs / "study.psproj")
    q = Project.load(saved)
    assert q.to_dict() == p.to_dict()  # numpy values become plain numbers and tuples lists in the file
    saved_result = q.to_dict()["results"][0]  # keys no field reads are kept as they were
    assert saved_result == {"label": "zip/1h", "unicity": [0.25, 0.5], "n": 4, "ci": [0.1, 0.4]}
    assert q.results[0].label == "zip/1h"
    assert q.path == saved and q.missing_sources() == []


def test_paths_are_stored_relative_and_resolved_on_load(inputs: Path, tmp_path: Path) -> None:
    p = _sample_project(inputs)
    p.save(inputs / "study.psproj")
    doc = json.loads((inputs / "study.psproj").read_text(encoding="utf-8"))
    src = doc["sources"][0]
    assert src["path"] == "inputs/events.csv" and src["reader"]["antennas"] == "inputs/antennas.csv"
    moved = tmp_path / "moved"
    shutil.move(inputs, moved)  # the whole folder moves: relative paths still work
    q = Project.load(moved / "study.psproj")
    assert Path(q.sources[0].path) == (moved / "inputs" / "events.csv").resolve()
    assert q.missing_sources() == [] and q.changed_sources() == []


def test_hash_detects_changed_content(inputs: Path) -> None:
    p = _sample_project(inputs)
    assert p.sources[0].sha256 == sha256_of(inputs / "inputs" / "events.csv")
    (inputs / "inputs" / "events.csv").write_text("caller,ts,cell\nu2,2026-01-01 11:00,a1\n")
    assert p.changed_sources() == p.sources


def test_missing_source_is_reported_and_relocated(inputs: Path, tmp_path: Path) -> None:
    p = _sample_project(inputs)
    p.save(inputs / "study.psproj")
    elsewhere = tmp_path / "elsewhere"
    shutil.move(inputs / "inputs", elsewhere)
    q = Project.load(inputs / "study.psproj")
    assert q.missing_sources() == q.sources
    with pytest.raises(ProjectError, match="input file not found"):
        q.load_dataset()
    with pytest.raises(ProjectError, match="no such file"):
        q.relocate(q.sources[0], tmp_path / "nope.csv")
    q.relocate(q.sources[0], elsewhere / "events.csv")
    assert q.missing_sources() == []  # the antennas file that moved along was found too
    assert q.sources[0].reader["antennas"] == str(elsewhere / "antennas.csv")


def test_save_is_atomic_and_leaves_no_temp_files(inputs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _sample_project(inputs)
    target = p.save(inputs / "study.psproj")
    before = target.read_bytes()
    p.name = "changed"

    def fail(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("privacy_studio.core.project.os.replace", fail)
    with pytest.raises(ProjectError, match="No space left"):
        p.save()
    assert target.read_bytes() == before  # the old file is intact
    assert sorted(f.name for f in inputs.iterdir() if f.name.endswith(".tmp")) == []


def test_non_finite_numbers_are_stored_as_null(tmp_path: Path) -> None:
    entry = PResult(p=2, em=float("nan"), kl=float(np.float32("inf")))
    p = Project(results=[ProfileResult(label="a", by_p=[entry], fill_rate=np.float64(0.5))])
    p.save(tmp_path / "p.psproj")
    (loaded,) = Project.load(tmp_path / "p.psproj").results
    assert (loaded.by_p[0].em, loaded.by_p[0].kl, loaded.fill_rate) == (None, None, 0.5)


def test_save_without_path_is_a_clear_error() -> None:
    with pytest.raises(ProjectError, match="never been saved"):
        Project().save()


def test_schema_0_is_migrated_like_the_golden_schema_1(inputs: Path) -> None:
    old = Project.load(inputs / "v0_project.psproj")
    new = Project.load(inputs / "v1_project.psproj")
    assert old == new
    assert old.settings["p_values"] == [1, 2, 3, 4] and old.settings["seed"] == 7
    assert old.sources[0].reader["mapping"] == {"user": "caller", "time": "ts", "location": "cell"}
    assert Path(old.sources[0].reader["hierarchy"]) == (inputs / "inputs" / "hierarchy.csv").resolve()


def test_schema_1_gets_the_in_memory_engine_like_the_golden_schema_2(inputs: Path) -> None:
    old = Project.load(inputs / "v1_project.psproj")
    assert old == Project.load(inputs / "v2_project.psproj")
    assert old.engine_choice().name == "numba"


def test_engine_choice_round_trips(inputs: Path) -> None:
    p = _sample_project(inputs)
    p.engine = {"name": "spark", "memory_limit": "6GB", "temp_dir": None, "spark_master": "spark://h:7077"}
    q = Project.load(p.save(inputs / "study.psproj"))
    choice = q.engine_choice()
    assert (choice.name, choice.memory_limit, choice.spark_master) == ("spark", "6GB", "spark://h:7077")


def test_migrated_project_saves_as_current_schema(inputs: Path) -> None:
    Project.load(inputs / "v0_project.psproj").save(inputs / "upgraded.psproj")
    doc = json.loads((inputs / "upgraded.psproj").read_text())
    assert doc["schema_version"] == SCHEMA_VERSION and "version" not in doc


def test_broken_schema_0_names_the_problem() -> None:
    with pytest.raises(ProjectError, match=r"cannot upgrade from schema 0: data.events"):
        migrate({"format": "privacy-studio-project", "version": 0, "data": {}}, "old.psproj")


def _golden() -> dict:
    return json.loads((DATA / "v2_project.psproj").read_text())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"\xff\xfe{\xe9}", "not UTF-8"),
        (b"name = 'a toml file'", "not valid JSON at line 1"),
        ((DATA / "v1_project.psproj").read_bytes()[:300], "looks truncated"),
        (b"[1, 2, 3]", "expected a JSON object at the top level, found a list"),
        (b'{"name": "x"}', "no schema version"),
        (b'{"format": "qgis-project", "schema_version": 1}', "expected 'privacy-studio-project'"),
        (
            json.dumps({**_golden(), "schema_version": 99, "app_version": "9.0"}).encode(),
            "Privacy Studio 9.0",
        ),
        (json.dumps({**_golden(), "schema_version": "1"}).encode(), "not a non-negative whole number"),
        (
            json.dumps({**_golden(), "settings": []}).encode(),
            "field 'settings' is a list, expected an object",
        ),
        (json.dumps({k: v for k, v in _golden().items() if k != "results"}).encode(), "'results' is missing"),
        (json.dumps({**_golden(), "colour": "red"}).encode(), "unknown field"),
        (json.dumps({**_golden(), "sources": [{"path": "a.csv", "role": "x"}]}).encode(), "role 'x'"),
        (json.dumps({**_golden(), "sources": [{"role": "events"}]}).encode(), r"sources\[0\].path"),
        (
            json.dumps({**_golden(), "sources": [{"path": "a", "sha256": "abc", "role": "events"}]}).encode(),
            "sha256",
        ),
        (json.dumps({**_golden(), "results": [3]}).encode(), r"results\[0\] is a number"),
        (json.dumps({**_golden(), "engine": {"name": "oracle"}}).encode(), "engine: unknown engine 'oracle'"),
        (
            json.dumps({**_golden(), "engine": {"name": "duckdb", "cores": 4}}).encode(),
            "unknown engine option",
        ),
        (
            json.dumps({**_golden(), "engine": {"name": "duckdb", "memory_limit": 8}}).encode(),
            "memory_limit must be a non-empty text",
        ),
    ],
)
def test_bad_files_are_rejected_with_clear_messages(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.psproj"
    path.write_bytes(content)
    with pytest.raises(ProjectError, match=message) as info:
        Project.load(path)
    assert str(path) in str(info.value)


def test_unreadable_paths_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no such project file"):
        Project.load(tmp_path / "absent.psproj")
    with pytest.raises(ProjectError, match="is a folder"):
        Project.load(tmp_path)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**9), 10**9)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@given(
    name=st.text(max_size=20),
    results=st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=4), max_size=3),
    analyses=st.dictionaries(st.text(max_size=6), json_values, max_size=3),
)
def test_any_json_content_round_trips(
    tmp_path_factory: pytest.TempPathFactory, name, results, analyses
) -> None:
    """Whatever a project holds is either written and read back equal, or refused at saving with a clear
    error and nothing written: the studio never writes a file that opening would refuse (e.g. a result whose
    d is not a whole number)."""
    folder = tmp_path_factory.mktemp("rt")
    try:
        typed = [ProfileResult.from_dict(r) for r in results]
    except (TypeError, ValueError, AttributeError):
        return  # not a risk result: opening refuses it (test_results_that_are_not_risk_results_are_refused)
    p = Project(name=name, results=typed, analyses=analyses)
    p.sources.append(DataSource(path=str(folder / "x.csv"), reader={"tz": "UTC"}))
    try:
        p.save(folder / "p.psproj")
    except ProjectError:
        assert not (folder / "p.psproj").exists()
        return
    loaded = Project.load(folder / "p.psproj")
    assert loaded == p and loaded.to_dict()["results"] == p.to_dict()["results"]


def test_saving_refuses_what_opening_would_refuse(tmp_path: Path) -> None:
    p = Project(name="x", results=[ProfileResult(d=[])])  # type: ignore[arg-type]
    with pytest.raises(ProjectError, match=r"results\[0\]\.d is \[\], expected a whole number"):
        p.save(tmp_path / "p.psproj")
    assert not (tmp_path / "p.psproj").exists()


def test_the_sample_project_opens_with_its_data() -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"
    project = Project.load(sample)
    assert project.missing_sources() == []
    assert project.changed_sources() == [], (
        "sample_data changed: refresh the hashes in sample_data/sample.psproj "
        "(load it, set each source's sha256 = sha256_of(path), save)"
    )
    assert {s.role for s in project.sources} == {"events", "attributes"}
    assert project.utility["domains"] and project.settings["p_values"] == [1, 2, 3, 4, 5, 6]


def test_load_dataset_reads_the_events_source_with_its_options() -> None:
    project = Project.load(Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj")
    dataset = project.load_dataset()
    assert dataset.events.n_users > 0 and dataset.hierarchy is not None
    assert dataset.options.tz == project.events_source().reader["tz"]


@pytest.mark.parametrize("grid", [{"cells": []}, {"spatial": [], "temporal": ["1h"]}])
def test_a_grid_with_nothing_ticked_yet_is_saved_and_reopened(tmp_path: Path, grid: dict) -> None:
    from privacy_studio.core.risk.settings import RiskSettings

    settings = {"spatial": ["zip"], "temporal": ["1h"], "p_values": [1, 2], **grid}
    path = Project(settings=settings).save(tmp_path / "unfinished.psproj")
    assert Project.load(path).settings == settings, "work in progress is not refused on opening"
    with pytest.raises(ValueError, match="grid is empty"):  # Run still refuses it
        RiskSettings.from_dict(settings)
    bad = {**settings, "p_values": [0]}
    with pytest.raises(ProjectError, match="≥ 1"):
        Project.load(Project(settings=bad).save(tmp_path / "bad.psproj"))


def test_schema_2_gets_no_price_axis_like_the_golden_schema_3(inputs: Path) -> None:
    """Grids saved before the price axis never released the amount: they read as price ``none``."""
    old = Project.load(inputs / "v2_project.psproj")
    assert old == Project.load(inputs / "v3_project.psproj")
    assert old.settings["price"] == ["none"]


@pytest.mark.parametrize("name", ["v0_project", "v1_project", "v2_project", "v3_project"])
def test_golden_results_round_trip_byte_identical(inputs: Path, name: str) -> None:
    """Results are parsed into ``ProfileResult`` on opening and written with ``to_dict()`` on saving: the
    file's results come back byte for byte, even those of older studios with keys no field reads."""
    raw = migrate(parse_document((inputs / f"{name}.psproj").read_bytes(), name))["results"]
    project = Project.load(inputs / f"{name}.psproj")
    assert all(isinstance(r, ProfileResult) for r in project.results)
    saved = json.loads(project.save(inputs / "again.psproj").read_text(encoding="utf-8"))["results"]
    assert json.dumps(saved, ensure_ascii=False) == json.dumps(raw, ensure_ascii=False)


def test_a_run_result_round_trips_byte_identical(tmp_path: Path) -> None:
    """A current result (every field, interval, class sizes) reads back equal and writes back unchanged."""
    entry = PResult(p=2, unicity=0.5, unicity_ci=(0.4, 0.6), class_sizes={1: 3, 4: 1}, n_sampled=7)
    result = ProfileResult("zip", "1h", "zip × 1h", 9, 4, 12, 0.25, 40, [entry], kanon={"k": 1})
    project = Project(results=[result])
    first = project.save(tmp_path / "a.psproj").read_text(encoding="utf-8")
    again = Project.load(tmp_path / "a.psproj")
    assert again.results == [result]
    second = json.loads(again.save(tmp_path / "b.psproj").read_text(encoding="utf-8"))["results"]
    assert second == json.loads(first)["results"] == [json.loads(json.dumps(result.to_dict()))]


@pytest.mark.parametrize(
    "field", ["unicity", "records_at_risk", "highest_risk", "k_disclosure", "worst_mean"]
)
def test_every_share_of_the_catalogue_is_range_checked_on_opening(tmp_path: Path, field: str) -> None:
    """The catalogue's ``proportion`` drives the check: ``records_at_risk = 7.0`` is refused as
    ``unicity = 7.0`` always was (the old list of shares missed it)."""
    doc = _golden()
    doc["results"] = [{"label": "a", "spatial": "zip", "temporal": "1h", "by_p": [{"p": 1, field: 7.0}]}]
    (tmp_path / "p.psproj").write_text(json.dumps(doc))
    with pytest.raises(ProjectError, match=rf"by_p\[0\]\.{field} is 7.0, but a share lies between 0 and 1"):
        Project.load(tmp_path / "p.psproj")


def test_em_may_exceed_one_but_not_be_negative(tmp_path: Path) -> None:
    doc = _golden()
    doc["results"] = [{"label": "a", "by_p": [{"p": 1, "kl": 7.0}]}]
    (tmp_path / "p.psproj").write_text(json.dumps(doc))
    assert Project.load(tmp_path / "p.psproj").results[0].by_p[0].value("kl_disclosure") == 7.0
    doc["results"][0]["by_p"][0]["em"] = -1.0
    (tmp_path / "p.psproj").write_text(json.dumps(doc))
    with pytest.raises(ProjectError, match=r"em is -1\.0, expected a finite number ≥ 0"):
        Project.load(tmp_path / "p.psproj")


@pytest.mark.parametrize("results", [[{"by_p": 5}], [{"attributes": 5}]])
def test_results_that_are_not_risk_results_are_refused(tmp_path: Path, results: list) -> None:
    (tmp_path / "p.psproj").write_text(json.dumps({**_golden(), "results": results}))
    with pytest.raises(ProjectError, match=r"results"):
        Project.load(tmp_path / "p.psproj")


def test_a_large_file_decodes_a_slice_at_a_time_as_in_one_piece(monkeypatch):
    """Decoded in slices (the window's thread runs between them): a character cut by a slice boundary and
    a byte-order mark read as in one piece, and a bad byte is named at its place in the file."""
    from privacy_studio.core import project_schema

    monkeypatch.setattr(project_schema, "DECODE_CHUNK", 7)
    raw = '\ufeff{"name": "Périphérique — 東京", "n": [1, 2, 3]}'.encode()
    assert project_schema.parse_document(raw, "x") == {"name": "Périphérique — 東京", "n": [1, 2, 3]}
    bad = b'{"name": "abcdefghijklmnop\xff"}'
    with pytest.raises(ProjectError, match=r"not UTF-8 text \(byte 26\)"):  # bad.index(b"\xff")
        project_schema.parse_document(bad, "x")
    monkeypatch.setattr(project_schema, "DECODE_CHUNK", 8)  # the slice ends inside "\xe2\x82", then "A"
    with pytest.raises(ProjectError, match=r"not UTF-8 text \(byte 7\)"):
        project_schema.parse_document(b'{"a": "\xe2\x82A"}', "x")
    with pytest.raises(ProjectError, match="the file is empty"):
        project_schema.parse_document(b" \n\t ", "x")


def test_the_file_is_the_text_of_json_dumps_indent_2_and_reads_back(tmp_path: Path, monkeypatch) -> None:
    """Saving encodes lists and dicts of plain values in chunks (``json_parts.indented_parts``): the file is
    still exactly ``json.dumps(document, indent=2)``, long per-person lists and dicts cut into several
    chunks included, and it opens to the same project."""
    from privacy_studio.core import json_parts

    monkeypatch.setattr(json_parts, "CHUNK", 7)
    project = Project(name="Études", analyses={"per_person": {f"u{i}": i / 3 for i in range(30)}})
    project.results = [
        ProfileResult.from_dict({"label": "zip/1h", "per_user_em": [i / 7 for i in range(50)], "n": 50})
    ]
    path = project.save(tmp_path / "chunked.psproj")
    expected = json.dumps(project.to_dict(tmp_path), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    assert path.read_text(encoding="utf-8") == expected
    again = Project.load(path)
    assert again == project and again.to_dict(tmp_path) == project.to_dict(tmp_path)
