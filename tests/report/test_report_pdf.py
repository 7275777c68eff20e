"""The PDF report, headless: text extracted with pdftotext holds every section and the core's numbers; pages
rendered with pdftoppm are not blank; ``privacy-studio report`` runs the sample project end to end."""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

from privacy_studio.cli import main
from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import share
from privacy_studio.core.project import Project
from privacy_studio.core.report import build_report
from privacy_studio.core.report.results import RESULT_TITLES
from privacy_studio.core.tradeoff import grid_table

pytestmark = [
    pytest.mark.gui,
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) not installed"),
]
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"
TITLES = [
    "Re-identification risk report",
    "Summary for decision makers",
    "Method",
    "Results",
    *RESULT_TITLES,
    "Linkage attacks",
    "Anonymizability",
    "Import report",
    "Release",
    "Limitations",
    "Appendix: per-profile details",
]


def pdf_text(path: Path) -> str:
    """The PDF's text, with ligatures (ﬁ) spelled out."""
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True, capture_output=True)
    return unicodedata.normalize("NFKC", raw.stdout.decode())


def page_images(path: Path, folder: Path) -> list[np.ndarray]:
    """Every page rendered by pdftoppm at low resolution, as grey-level arrays."""
    subprocess.run(["pdftoppm", "-r", "30", "-gray", "-png", str(path), str(folder / "page")], check=True)
    out = []
    for png in sorted(folder.glob("page-*.png")):
        image = QImage(str(png)).convertToFormat(QImage.Format.Format_Grayscale8)
        raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.bytesPerLine() * image.height())
        out.append(raw.reshape(image.height(), image.bytesPerLine())[:, : image.width()].copy())  # own memory
    return out


def assert_pages_not_blank(path: Path, folder: Path) -> int:
    pages = page_images(path, folder)
    assert pages
    for i, page in enumerate(pages, 1):
        ink = (page < 200).mean()
        assert ink > 0.002, f"page {i} is blank"
    return len(pages)


def test_pdf_of_a_hand_made_project(make_project, tmp_path: Path) -> None:
    from privacy_studio.rendering import export_report

    project = make_project()
    out = export_report(project, tmp_path / "report.pdf")
    text = pdf_text(out)
    for title in TITLES:
        assert title in text, title
    headline = build_report(project).headline
    grid = grid_table(project.results)
    assert share(headline["max"]) in text and share(headline["min"]) in text
    assert label_words(headline["recommended"]) in text
    for value in grid.values("unicity", 4):
        assert share(value) in text
    n = assert_pages_not_blank(out, tmp_path)
    assert f"Page {n} of {n}" in text


def test_figures_are_drawn(make_project) -> None:
    from privacy_studio.core.report import HeatmapFigure, PlotFigure
    from privacy_studio.rendering import render_figure

    report = build_report(make_project())
    results = next(s for s in report.sections if s.title == "Results")
    figures = [b for s in results.subsections for b in s.blocks if isinstance(b, PlotFigure | HeatmapFigure)]
    assert len(figures) == 4  # heat-map, unicity curves, sparsity theory, Pareto plot
    for figure in figures:
        image = render_figure(figure).convertToFormat(QImage.Format.Format_Grayscale8)
        raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.bytesPerLine() * image.height())
        assert (raw < 200).mean() > 0.01, figure.caption


def test_unwritable_target_is_a_clear_error(make_project, tmp_path: Path) -> None:
    from privacy_studio.rendering import export_report

    with pytest.raises(ValueError, match="does not exist"):
        export_report(make_project(), tmp_path / "no" / "such" / "folder" / "r.pdf")


def test_cli_rejects_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "absent.psproj"), "--pdf", str(tmp_path / "r.pdf")]) == 2
    assert "no such project file" in capsys.readouterr().err
    assert main(["report", str(SAMPLE), "--pdf", str(tmp_path / "r.txt")]) == 2
    assert "must end in .pdf" in capsys.readouterr().err
    orphan = Project(name="orphan", settings={"spatial": ["zip"], "temporal": ["1h"]})
    orphan.add_source(SAMPLE.parent / "events.csv", {}).path = str(tmp_path / "gone.csv")
    orphan.save(tmp_path / "orphan.psproj")
    assert main(["report", str(tmp_path / "orphan.psproj"), "--pdf", str(tmp_path / "r.pdf")]) == 2
    err = capsys.readouterr().err
    assert "input file not found" in err and "no results and its input data is missing" in err


@pytest.mark.slow
def test_cli_report_of_the_sample_project(tmp_path: Path) -> None:
    project = Project.load(SAMPLE)
    project.save(tmp_path / "sample.psproj")  # paths stay valid: saved relative to the new folder
    out = tmp_path / "sample.pdf"
    argv = [
        "report",
        str(tmp_path / "sample.psproj"),
        "--pdf",
        str(out),
        "--save",
        "--text",
        str(tmp_path / "r.txt"),
    ]
    assert main(argv) == 0
    saved = Project.load(tmp_path / "sample.psproj")
    assert len(saved.results) == 12 and saved.import_report is not None
    text = pdf_text(out)
    for title in TITLES:
        assert title in text, title
    headline = build_report(saved).headline
    grid = grid_table(saved.results)
    risk = grid.values("unicity", 4)
    assert headline["max"] == np.nanmax(risk) and share(headline["max"]) in text
    # issue #25: judged against several attackers by default, no profile of the sample passes (district × 1w,
    # the least risky, has 79 % unique whole traces and 23 % at worst-case risk 1); the report says so
    assert headline["recommended"] is None and "no profile meets the release criteria" in text
    assert "Every release criterion at districts × 1 week (the least risky profile)" in text
    for label, value in zip(grid.labels, risk, strict=True):
        assert label_words(label) in text and share(value) in text
    assert "Not available: no user-attributes" not in text  # the sample has an attributes file
    plain = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert f"Highest unicity at p = 4: {share(headline['max'])}" in plain
    assert_pages_not_blank(out, tmp_path)


def test_cancel_stops_the_export(make_project, tmp_path: Path) -> None:
    from privacy_studio.core.progress import Cancelled, TaskControl
    from privacy_studio.rendering import export_report

    seen: list[float] = []
    control = TaskControl(lambda f, _m: seen.append(f))
    export_report(make_project(), tmp_path / "a.pdf", control)
    assert seen and seen == sorted(seen) and seen[0] >= 0.0 and seen[-1] <= 1.0
    control.cancel()
    with pytest.raises(Cancelled):
        export_report(make_project(), tmp_path / "b.pdf", control)
