"""Outputs over inputs: every command given one of its own inputs (data, side file, project, the project's
files) as an output, however the path is spelled (as is, a symbolic link, a hard link, through ``..``), or
two outputs on one path, refuses with one sentence and changes no file."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.harness import judge_error, judge_result, prepare_outputs, run_cli
from tests.faults.world import ACCEPT, FILES, World, digest, judge_kept, make_world

SETTINGS = ["--spatial", "raw", "--temporal", "1d", "--p", "1"]
REPORT = ["--pdf", "report.pdf"]
RELEASE = ["--profile", "raw:1d", *ACCEPT, "--overwrite"]

#: name -> (command given the world and its output path, the input the output names).
OVER_INPUTS: dict[str, tuple[Callable[[World, Path], list], str]] = {
    "inspect_json_over_data": (lambda w, o: ["inspect", w.data, "--json", o], "data"),
    "inspect_json_over_antennas": (
        lambda w, o: ["inspect", w.data, "--antennas", w.antennas, "--json", o],
        "antennas",
    ),
    "inspect_json_over_hierarchy": (
        lambda w, o: ["inspect", w.data, "--hierarchy", w.hierarchy, "--json", o],
        "hierarchy",
    ),
    "inspect_json_over_locations": (
        lambda w, o: ["inspect", w.data, "--locations", w.locations, "--json", o],
        "locations",
    ),
    "risk_json_over_data": (lambda w, o: ["risk", w.data, *SETTINGS, "--json", o], "data"),
    "risk_json_over_knowledge": (
        lambda w, o: ["risk", w.data, *SETTINGS, "--knowledge", f"explicit:{w.knowledge}", "--json", o],
        "knowledge",
    ),
    "risk_json_over_hierarchy": (
        lambda w, o: ["risk", w.data, *SETTINGS, "--hierarchy", w.hierarchy, "--json", o],
        "hierarchy",
    ),
    "anonymizability_json_over_data": (lambda w, o: ["anonymizability", w.data, "--json", o], "data"),
    "features_out_over_data": (lambda w, o: ["attack", "features", "--data", w.data, "--out", o], "data"),
    "features_out_over_antennas": (
        lambda w, o: ["attack", "features", "--data", w.data, "--antennas", w.antennas, "--out", o],
        "antennas",
    ),
    "mask_out_over_in": (
        lambda w, o: ["mask", "--method", "noise", "--in", w.numeric, "--out", o],
        "numeric",
    ),
    "linkage_json_over_original": (
        lambda w, o: ["attack", "linkage", "--original", w.numeric, "--masked", w.masked, "--json", o],
        "numeric",
    ),
    "linkage_json_over_masked": (
        lambda w, o: ["attack", "linkage", "--original", w.numeric, "--masked", w.masked, "--json", o],
        "masked",
    ),
    "matching_json_over_identified": (
        lambda w, o: ["attack", "matching", "--identified", w.data, "--anonymous", w.data, "--json", o],
        "data",
    ),
    "matching_json_over_links": (
        lambda w, o: [
            "attack",
            "matching",
            "--identified",
            w.data,
            "--anonymous",
            w.data,
            "--links",
            w.links,
            "--json",
            o,
        ],
        "links",
    ),
    "tradeoff_json_over_project": (lambda w, o: ["tradeoff", w.project, "--json", o], "project"),
    "tradeoff_json_over_scores": (
        lambda w, o: ["tradeoff", w.project, "--scores", w.scores, "--json", o],
        "scores",
    ),
    "tradeoff_json_over_attributes": (
        lambda w, o: ["tradeoff", w.project, "--attributes", w.attributes, "--json", o],
        "attributes",
    ),
    "report_text_over_project": (lambda w, o: ["report", w.project, *REPORT, "--text", o], "project"),
    "report_text_over_its_data": (lambda w, o: ["report", w.project, *REPORT, "--text", o], "data"),
    "report_text_over_its_hierarchy": (lambda w, o: ["report", w.project, *REPORT, "--text", o], "hierarchy"),
    "report_text_over_its_attributes": (
        lambda w, o: ["report", w.project, *REPORT, "--text", o],
        "attributes",
    ),
    "release_out_over_its_data": (lambda w, o: ["release", w.project, *RELEASE, "--out", o], "data"),
    "release_out_over_its_antennas": (lambda w, o: ["release", w.project, *RELEASE, "--out", o], "antennas"),
    "release_out_over_its_hierarchy": (
        lambda w, o: ["release", w.project, *RELEASE, "--out", o],
        "hierarchy",
    ),
    "release_out_over_its_attributes": (
        lambda w, o: ["release", w.project, *RELEASE, "--out", o],
        "attributes",
    ),
    "release_mapping_over_its_data": (
        lambda w, o: ["release", w.project, *RELEASE, "--out", w.root / "rel.csv", "--mapping-out", o],
        "data",
    ),
    "release_mapping_over_project": (
        lambda w, o: ["release", w.project, *RELEASE, "--out", w.root / "rel.csv", "--mapping-out", o],
        "project",
    ),
    "project_new_out_over_its_data": (
        lambda w, o: [
            "project",
            "new",
            w.project,
            "--spatial",
            "raw",
            "--temporal",
            "1d",
            "--name",
            "x",
            "--out",
            o,
            "--force",
        ],
        "project",
    ),
    "project_new_out_over_attributes": (
        lambda w, o: [
            "project",
            "new",
            w.data,
            "--attributes",
            w.project,
            "--spatial",
            "raw",
            "--temporal",
            "1d",
            "--name",
            "x",
            "--out",
            o,
            "--force",
        ],
        "project",
    ),
}


def _spell(victim: Path, how: str) -> Path:
    """``victim`` named another way: as is, a symbolic link, a hard link, or through a ``..``."""
    alias = victim.with_name("alias" + victim.suffix)
    if how == "symlink":
        alias.symlink_to(victim)
        return alias
    if how == "hardlink":
        os.link(victim, alias)
        return alias
    if how == "dotdot":
        (victim.parent / "sub").mkdir(exist_ok=True)
        return victim.parent / "sub" / ".." / victim.name
    return victim


def _all_digests(w: World) -> dict[Path, str]:
    return {w.root / name: digest(w.root / name) for name in FILES.values() if (w.root / name).is_file()}


@pytest.mark.parametrize("how", ["as_is", "symlink", "hardlink", "dotdot"])
@pytest.mark.parametrize("case", sorted(OVER_INPUTS))
def test_output_over_an_input_is_refused(case: str, how: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    command, victim = OVER_INPUTS[case]
    kept = _all_digests(w)
    out = _spell(getattr(w, victim), how)
    run = run_cli(command(w, out))
    outcome = judge_kept(run, kept)
    if outcome == "clear error" and "destroy" not in run.message:
        outcome = "silent wrong result"  # refused, but for another reason than the one tried here
    record(outcome, run.err + (run.raised or ""))


#: name -> (command given the world and a first output path, the second output naming the first).
SHARED_OUTPUTS: dict[str, Callable[[World, Path], tuple[list, Path]]] = {
    "report_pdf_and_text": lambda w, o: (["report", w.project, "--pdf", o, "--text", o], o),
    "release_out_and_mapping": lambda w, o: (
        ["release", w.project, *RELEASE, "--out", o, "--mapping-out", o],
        o,
    ),
    "release_mapping_on_manifest": lambda w, o: (
        ["release", w.project, *RELEASE, "--out", o, "--mapping-out", f"{o}.manifest.json"],
        Path(f"{o}.manifest.json"),
    ),
}


@pytest.mark.parametrize("how", ["as_is", "symlink", "hardlink", "dotdot"])
@pytest.mark.parametrize("case", sorted(SHARED_OUTPUTS))
def test_two_outputs_on_one_path_are_refused(case: str, how: str, tmp_path: Path, record: Callable) -> None:
    w = make_world(tmp_path)
    first = tmp_path / ("out.pdf" if case.startswith("report") else "out.csv")
    argv, second = SHARED_OUTPUTS[case](w, first)
    prepare_outputs(first, second)
    if how != "as_is":  # the second output names the first one's path another way
        last = max(i for i, a in enumerate(argv) if str(a) == str(second))
        argv[last] = _spell(second, how)
    kept = _all_digests(w)
    run = run_cli(argv)
    outcome = judge_kept(run, kept, (first, second))
    if outcome == "clear error" and "both name" not in run.message:
        outcome = "silent wrong result"
    record(outcome, run.err + (run.raised or ""))


@pytest.mark.parametrize("command", ["inspect", "risk", "anonymizability"])
def test_output_read_back_as_a_person_of_the_data_folder_is_refused(
    command: str, tmp_path: Path, record: Callable
) -> None:
    w = make_world(tmp_path)
    out = w.folder / "results.csv"
    extra = SETTINGS if command == "risk" else []
    run = run_cli([command, w.folder, *extra, "--json", out])
    outcome = judge_error(run)
    if outcome == "clear error" and (out.exists() or "inside the data folder" not in run.message):
        outcome = "silent wrong result"
    record(outcome, run.err + (run.raised or ""))


def test_a_json_beside_the_people_files_is_written(tmp_path: Path, record: Callable) -> None:
    """Only outputs the folder reader would take as data are refused there."""
    w = make_world(tmp_path)
    out = w.folder / "summary.json"
    run = run_cli(["inspect", w.folder, "--json", out])
    record(judge_result(run, lambda r: out.is_file() and '"users": 3' in out.read_text()), run.err)
