"""The report made after a release has a Release section with the manifest's facts."""

from __future__ import annotations

import json
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.project import Project
from privacy_studio.core.report import build_report
from privacy_studio.core.report.release import release_section


def _section_text(content, title: str) -> str:
    text = content.text()
    start = text.index(f"\n# {title}\n")
    return text[start : text.index("\n# ", start + 1)]


def test_no_release_yet_says_so():
    section = release_section({})
    assert not section.available and "no release was written" in section.blocks[0].text


def test_the_release_section_repeats_the_manifest(sample_project: Path):
    out = sample_project.parent / "r.csv"
    args = [
        "release",
        str(sample_project),
        "--profile",
        "district:1w",
        "--out",
        str(out),
        "--k-anonymity",
        "2",
    ]
    assert cli.main(args) == 0
    manifest = json.loads(out.with_name("r.csv.manifest.json").read_text())
    text = _section_text(build_report(Project.load(sample_project)), "Release")
    assert manifest["release_sha256"] in text and "district × 1w" in text
    removed = manifest["removed"][0]
    line = "removed: people whose whole trace is shared by fewer than 2 people dropped"
    assert f"{line} | {removed['people']:,} | {removed['events']:,} | {removed['points']:,}" in text
    released = manifest["released"]
    assert f"released | {released['people']:,} | {released['events']:,} | {released['points']:,}" in text
    on_file = manifest["measured_on_release"]
    assert f"on the release file | {on_file['people']:,} | {on_file['k']} | 0.0%" in text


def test_a_damaged_record_is_a_warning_not_a_crash():
    section = release_section({"release": {"format": "privacy-studio-release-manifest", "version": 1}})
    assert section.blocks[0].style == "warning" and "could not be read" in section.blocks[0].text
