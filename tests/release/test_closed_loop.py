"""Done-when of issue #14 on the sample city at district × 1w: the file measures as the data it came from."""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from privacy_studio import cli
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.project import Project, sha256_of
from privacy_studio.core.release import ReleaseManifest
from privacy_studio.core.release.manifest import last_release


def _risk_exact(tmp: Path, args: list[str], name: str) -> dict:
    out = tmp / f"{name}.json"
    command = ["risk", *args, "--temporal", "1w", "--exact", "--p", "1-2", "--tz", "Europe/Paris"]
    assert cli.main([*command, "--measures", "unicity,kanon", "--json", str(out)]) == 0
    return json.loads(out.read_text())["profiles"][0]


def _whole_traces(path: Path) -> dict[str, frozenset]:
    """Person -> set of (time, place) read with the csv module alone (independent of the studio's reader)."""
    traces: dict[str, set] = defaultdict(set)
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            traces[row["user"]].add((row["time"], row["location"]))
    return {u: frozenset(t) for u, t in traces.items()}


@pytest.fixture(scope="module")
def released(sample_project: Path) -> Path:
    folder = sample_project.parent
    out = folder / "release.csv"
    mapping = folder / "mapping.csv"
    args = ["release", str(sample_project), "--profile", "district:1w", "--out", str(out)]
    args += ["--accept-risk", "closed-loop test: the whole release is compared with the data, not judged"]
    assert cli.main([*args, "--mapping-out", str(mapping)]) == 0
    return out


def test_exact_class_sizes_on_the_release_equal_those_of_the_data(released: Path, tmp_path: Path):
    folder = released.parent
    on_release = _risk_exact(tmp_path, [str(released), "--spatial", "raw"], "release")
    data = ["--antennas", str(folder / "antennas.csv"), "--hierarchy", str(folder / "hierarchy.csv")]
    on_data = _risk_exact(tmp_path, [str(folder / "events.csv"), *data, "--spatial", "district"], "data")
    assert on_release["kanon"] == on_data["kanon"]
    assert on_release["n_users"] == on_data["n_users"]
    for a, b in zip(on_release["by_p"], on_data["by_p"], strict=True):
        assert a["class_sizes"] == b["class_sizes"] and a["class_sizes"]


def test_each_person_keeps_their_class_size_under_the_new_pseudonym(released: Path):
    folder = released.parent
    dataset = Project.load(folder / "sample.psproj").load_dataset()
    sizes = class_sizes(generalize(dataset.events, Profile.parse("district", "1w"), dataset.hierarchy))
    original = dict(zip(dataset.events.user_ids.tolist(), sizes.tolist(), strict=True))
    traces = _whole_traces(released)
    classes = Counter(traces.values())
    with (folder / "mapping.csv").open(newline="") as fh:
        mapping = {row["pseudonym"]: row["original"] for row in csv.DictReader(fh)}
    assert set(mapping) == set(traces)
    assert not set(mapping) & set(original)  # new pseudonyms, never the input ids
    for pseudonym, trace in traces.items():
        assert classes[trace] == original[mapping[pseudonym]]


def test_the_manifest_states_what_was_written(released: Path):
    folder = released.parent
    manifest = json.loads((folder / "release.csv.manifest.json").read_text())
    assert manifest["release_sha256"] == sha256_of(released)
    assert manifest["project_sha256"] and manifest["inputs"][0]["sha256"] == sha256_of(folder / "events.csv")
    assert manifest["options"]["spatial"] == "district" and manifest["options"]["temporal"] == "1w"
    assert manifest["removed"] == []
    assert manifest["before"] == manifest["released"]
    assert manifest["released"]["people"] == len(_whole_traces(released)) == 1992
    with released.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert manifest["release_rows"] == len(rows) == manifest["released"]["points"]
    assert list(rows[0]) == ["user", "time", "location"]  # no count column unless asked for
    on_file, before = manifest["measured_on_release"], manifest["measured_before_suppression"]
    assert on_file["rows"] == len(rows) and on_file["people"] == manifest["released"]["people"]
    guarantee = manifest["guarantee"]
    assert guarantee["measured_on"] == "rows as written"
    assert (
        guarantee["k_anonymity"] == on_file["k"]
        and guarantee["unique_whole_traces"] == on_file["share_unique"]
    )
    assert guarantee["columns"] == ["user", "time", "location"]
    hashed = {i["path"]: i["sha256"] for i in manifest["inputs"]}
    for name in ("events.csv", "antennas.csv", "hierarchy.csv", "attributes.csv"):
        assert hashed[name] == sha256_of(folder / name)  # every input the project reads
    assert "mapping_file" not in manifest and manifest["mapping_written"] is True
    assert str(folder) not in json.dumps(manifest)  # no folder of the project, inputs or mapping
    assert on_file["class_sizes"] == before["class_sizes"]
    # Pseudonyms differ, so a different sample of people is drawn: the two estimates agree within intervals.
    # Where both are exact the intervals are one point, summed over people in another order: a last-bit slack.
    slack = 1e-12
    assert (
        on_file["unicity_ci"][0] <= before["unicity_ci"][1] + slack
        and before["unicity_ci"][0] <= on_file["unicity_ci"][1] + slack
    )
    record = last_release(Project.load(folder / "sample.psproj").analyses)
    assert record == ReleaseManifest.from_dict(manifest)


def test_k_anonymity_2_leaves_no_unique_whole_trace(sample_project: Path, capsys):
    out = sample_project.parent / "k2.parquet"
    args = ["release", str(sample_project), "--profile", "district:1w", "--out", str(out)]
    args += ["--accept-risk", "closed-loop test: the whole release is compared with the data, not judged"]
    assert cli.main([*args, "--k-anonymity", "2", "--counts", "--accept-risk", "testing counts"]) == 0
    import pyarrow.parquet as pq

    table = pq.read_table(out).to_pylist()
    traces: dict[str, set] = defaultdict(set)
    for row in table:
        traces[row["user"]].add((row["time"], row["location"], row["count"]))
    classes = Counter(frozenset(t) for t in traces.values())
    assert traces and min(classes[frozenset(t)] for t in traces.values()) >= 2
    manifest = json.loads(out.with_name("k2.parquet.manifest.json").read_text())
    assert manifest["measured_on_release"]["k"] >= 2
    assert manifest["measured_on_release"]["share_unique"] == 0.0
    removed = manifest["removed"][0]
    assert removed["step"] == "k_anonymity"
    assert removed["people"] == manifest["measured_before_suppression"]["class_sizes"]["1"]
    assert manifest["released"]["people"] == len(traces) == 1992 - removed["people"]
    out = capsys.readouterr().out
    assert f"removed {removed['people']} people" in out and "shared by fewer than 2 people dropped" in out
