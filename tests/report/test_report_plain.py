"""Plain numbers in the rendered reports of the sample project and of a Gowalla subset (real check-ins): no
e-notation, no internal key, no "source 0…", no word outside the page's text area and no table cell broken
inside a word. Both projects are analysed for real (a reduced sample size keeps it quick) and rendered by the
PDF writer people use."""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QPdfWriter, QTextDocument, QTextTable

from privacy_studio.cli import main
from privacy_studio.core.project import Project
from privacy_studio.core.report import ReportContent, Table, build_report
from privacy_studio.core.risk.catalogue import CATALOGUE, RISK_FIELDS
from privacy_studio.core.utility import COMPUTED_SCORES

pytestmark = [
    pytest.mark.gui,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) not installed"),
]
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "sample.psproj"
GOWALLA = Path("/work/shared/real_data/gowalla_nyc/gowalla_events_nyc.tsv.gz")
GOWALLA_USERS = 250
#: Python's e-notation always has a sign ("2.455e-06"); a SHA-256 in hexadecimal never does.
SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-+]\d+|\(x1e")
#: Keys of a result entry and of the settings that a person must never read (the JSON keeps them).
KEYS = sorted(
    {name for name in RISK_FIELDS if "_" in name}
    | {f.interval for f in RISK_FIELDS.values() if f.interval}
    | {m.name for m in CATALOGUE if "_" in m.name}
    | {a for m in CATALOGUE for a in m.aliases if a != "worst"}  # "worst" is also a plain word
    | set(COMPUTED_SCORES)
    | {"n_excluded", "n_sampled", "n_short", "n_users", "fill_rate", "worst_exact"}
)
#: The page's text area: A4 with the writer's 18 pt side and 16 pt top margins (pdftotext gives points), and
#: a little play.
PAGE_W, PAGE_H, MARGIN, TOP, PLAY = 595.28, 841.89, 18.0, 16.0, 2.0


def _run_project(path: Path) -> Project:
    assert main(["project", "run", str(path)]) == 0
    return Project.load(path)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The sample project analysed with fewer sampled people and p values (same data, grid and levels)."""
    folder = tmp_path_factory.mktemp("sample")
    project = Project.load(SAMPLE)
    project.settings.update(samples=300, p_values=[1, 2, 4])
    project.save(folder / "sample.psproj")  # paths stay valid: saved relative to the new folder
    return _run_project(folder / "sample.psproj")


@pytest.fixture(scope="module")
def gowalla(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """The first users of the Gowalla New York check-ins, on the grid of issue #25."""
    if not GOWALLA.exists():
        pytest.skip("the Gowalla data of /work/shared/real_data is not on this machine")
    folder = tmp_path_factory.mktemp("gowalla")
    subset = folder / "gowalla_subset.tsv"
    with gzip.open(GOWALLA, "rt", encoding="utf-8") as source, subset.open("w", encoding="utf-8") as out:
        for line in source:
            if int(line.split("\t", 1)[0]) >= GOWALLA_USERS:
                break  # the file is sorted by user
            out.write(line)
    argv = ["project", "new", str(subset), "--no-header", "--columns", "user,time,lat,lon,location"]
    argv += ["--spatial", "raw,grid:1,grid:5,grid:20", "--temporal", "1h,1d,1w", "--p", "1,2,4,6"]
    argv += ["--name", "Gowalla NYC subset", "--out", str(folder / "gowalla.psproj")]
    assert main(argv) == 0
    return _run_project(folder / "gowalla.psproj")


def _render(project: Project, folder: Path) -> tuple[ReportContent, Path]:
    from privacy_studio.rendering import render_pdf

    content = build_report(project)
    return content, render_pdf(content, folder / "report.pdf")


def _pdf_text(path: Path) -> str:
    raw = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], check=True, capture_output=True)
    return unicodedata.normalize("NFKC", raw.stdout.decode())


def _without_command_lines(text: str) -> str:
    """The text less the command that reproduces the figures: a command is typed, so it keeps the keys."""
    return re.sub(r"Command line that reproduces the risk figures:.*?OUT\.json", "", text, flags=re.S)


def _words_outside_the_text_area(path: Path) -> list[str]:
    """Every word pdftotext finds beside the side margins, above the top margin or below the page."""
    xml = subprocess.run(["pdftotext", "-bbox", str(path), "-"], check=True, capture_output=True, text=True)
    box = r'xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)<'
    found = []
    for number, page in enumerate(re.findall(r"<page (.*?)</page>", xml.stdout, re.S), 1):
        for x0, y0, x1, y1, word in re.findall(box, page):
            across = float(x0) < MARGIN - PLAY or float(x1) > PAGE_W - MARGIN + PLAY
            # Qt also paints the line just above a page (QTextLayout::draw keeps the last line before its
            # clip), clipped away: a word wholly in the top margin is that invisible line, not an overflow.
            hidden = float(y1) <= TOP + PLAY
            if not hidden and (across or float(y0) < TOP - PLAY or float(y1) > PAGE_H):
                found.append(f"page {number}: {word}")
    return found


def _cells_broken_inside_a_word(content: ReportContent) -> list[str]:
    """Every table cell whose text the layout wraps at a place that is not a space or hyphen."""
    from privacy_studio.rendering import laid_out

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    doc: QTextDocument = laid_out(content, QPdfWriter(buffer))
    broken = []
    for frame in doc.rootFrame().childFrames():
        if not isinstance(frame, QTextTable):
            continue
        for r in range(frame.rows()):
            for c in range(frame.columns()):
                block = frame.cellAt(r, c).firstCursorPosition().block()
                text, layout = block.text(), block.layout()
                for k in range(layout.lineCount() - 1):
                    line = layout.lineAt(k)
                    end = line.textStart() + line.textLength()
                    if not (text[end - 1 : end] in (" ", "-", "/") or text[end : end + 1] == " "):
                        broken.append(f"{text!r} broken after {text[:end]!r}")
    return broken


def _check_plain(project: Project, folder: Path) -> str:
    content, pdf = _render(project, folder)
    text = _pdf_text(pdf)
    assert not SCIENTIFIC.findall(text), SCIENTIFIC.findall(text)[:10]
    assert "source 0" not in text.lower()
    readable = _without_command_lines(text)
    keys = [k for k in KEYS if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", readable)]
    assert not keys, keys
    labels = [r.label for r in project.results if r.label in readable]
    assert not labels, f"profiles named by their keys: {labels}"
    assert not _words_outside_the_text_area(pdf), _words_outside_the_text_area(pdf)[:10]
    assert not _cells_broken_inside_a_word(content), _cells_broken_inside_a_word(content)[:10]
    tables = [b for s in _all_sections(content) for b in s.blocks if isinstance(b, Table)]
    assert tables and all(c not in KEYS for t in tables for c in t.columns)
    return text


def _all_sections(content: ReportContent) -> list:
    out, todo = [], list(content.sections)
    while todo:
        section = todo.pop()
        out.append(section)
        todo.extend(section.subsections)
    return out


def test_sample_report_in_plain_numbers(sample: Project, tmp_path: Path) -> None:
    text = _check_plain(sample, tmp_path)
    assert "districts × 1 week" in text and "Noriega-Campero" in text


def test_gowalla_report_in_plain_numbers(gowalla: Project, tmp_path: Path) -> None:
    text = _check_plain(gowalla, tmp_path)
    assert "20 km squares × 1 week" in text and "1 km squares × 1 hour" in text


def test_the_checks_catch_what_they_look_for(tmp_path: Path) -> None:
    """The checks themselves: e-notation, a key, "source 0" and a word past the margin are each found."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QPainter

    from privacy_studio.core.report import Paragraph, Section
    from privacy_studio.rendering import DPI, laid_out, render_pdf

    bad = ReportContent(
        "t", "s", [], [Section("x", [Paragraph("2.455e-06 of worst_share_at_1, source 000")])]
    )
    text = _pdf_text(render_pdf(bad, tmp_path / "bad.pdf"))
    assert SCIENTIFIC.findall(text) and "source 0" in text
    assert any(re.search(rf"(?<![\w-]){k}(?![\w-])", text) for k in KEYS)
    writer = QPdfWriter(str(tmp_path / "wide.pdf"))
    laid_out(bad, writer)  # the report's page layout and resolution
    painter = QPainter(writer)
    painter.drawText(QPointF(writer.pageLayout().paintRectPixels(DPI).width() - 5, 100), "overflowing")
    painter.end()
    outside = _words_outside_the_text_area(tmp_path / "wide.pdf")
    assert len(outside) == 1 and outside[0].startswith("page 1: over")  # the page cuts the rest
