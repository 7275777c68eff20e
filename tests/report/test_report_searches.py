"""A ``report`` that runs the analysis ends with the protection search as ``project run`` does, so its PDF
recommends the same release as ``project run`` then ``report`` (it said "no protection search was run"), in
its summary and in its decision record."""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from privacy_studio.cli import main
from privacy_studio.core.project import Project
from privacy_studio.core.tradeoff.candidates import SearchResult

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"


def _copy(folder: Path) -> Path:
    """The sample project, without results, on its least risky profile only and a smaller sample (same data
    and choices)."""
    project = Project.load(SAMPLE)
    assert not project.results, "the bundled sample carries no results: report runs its analysis"
    project.settings.update(spatial=["district"], temporal=["1w"], samples=300, p_values=[2, 4])
    folder.mkdir()
    return project.save(folder / "sample.psproj")  # paths stay valid: saved relative to the new folder


def _words(pdf: Path) -> str:
    """The PDF's text on one line, ligatures undone (pdftotext gives "ﬁ" for "fi")."""
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(unicodedata.normalize("NFKC", text).split())


def test_report_recommends_what_project_run_recommends(tmp_path):
    ran = _copy(tmp_path / "ran")
    assert main(["project", "run", str(ran)]) == 0
    found = Project.load(ran).analysis(SearchResult)
    assert found is not None and found.recommended is not None, "the sample's search recommends a release"
    name = found.recommended.name()

    fresh = _copy(tmp_path / "fresh")
    assert main(["report", str(fresh), "--pdf", str(tmp_path / "fresh.pdf")]) == 0
    text = _words(tmp_path / "fresh.pdf")
    assert "no protection search was run" not in text
    assert f"Recommended release (protection search): {name};" in text
    assert f"Recommended candidate: {name}," in text
    summary = text[text.index("Summary for decision makers") : text.index("What the figures mean")]
    assert "no profile meets the release criteria as it stands; see the recommended release below" in summary
    record = text[text.index("Residual risk after release") : text.index("Seed stability")]
    assert f"Recommended release (protection search): {name};" in record, "the record names the decision"
    assert "covers no release" not in record


def test_a_damaged_release_record_leaves_the_search_out_of_date_not_the_report_broken(tmp_path):
    """Release records are read where they are used: one that cannot be read says the stored search may
    not hold any more (nothing says which releases followed it), in the report as in the window."""
    from privacy_studio.core.report import build_report

    ran = _copy(tmp_path / "ran")
    assert main(["project", "run", str(ran)]) == 0
    project = Project.load(ran)
    project.analyses["releases"] = {"version": 1, "releases": [{"kind": "rows", "record": {"format": "x"}}]}
    text = build_report(project).text()
    assert "The search below was made for earlier results, criteria or releases" in text
    assert "releases.releases[0]: not a rows release record" in text  # the Release section says why
