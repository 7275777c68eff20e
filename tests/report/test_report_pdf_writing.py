"""The PDF is written atomically with a page-count check, carries the project's name as its title, and keeps
one-word column titles whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from privacy_studio.core.report import Table, build_report

pytestmark = pytest.mark.gui


def test_pdf_pages_match_the_layout_and_the_project_names_it(make_project, tmp_path: Path) -> None:
    from privacy_studio.rendering import pdf as report_pdf

    project = make_project()
    out = report_pdf.export_report(project, tmp_path / "r.pdf")
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    count = report_pdf.pdf_page_count(data)
    assert count > 5 and f"/Count {count}".encode() in data
    content = build_report(project)
    assert content.title == "Hand-made grid"
    assert not list(tmp_path.glob(".ps-tmp-*"))


def test_a_failed_page_check_keeps_the_previous_file(make_project, tmp_path: Path, monkeypatch) -> None:
    from privacy_studio.rendering import pdf as report_pdf

    target = tmp_path / "r.pdf"
    target.write_bytes(b"the previous report")
    monkeypatch.setattr(report_pdf, "pdf_page_count", lambda data: 1)
    with pytest.raises(ValueError, match=r"pages instead of .*previous file is kept"):
        report_pdf.export_report(make_project(), target)
    assert target.read_bytes() == b"the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


def test_page_count_of_a_hand_written_pdf() -> None:
    from privacy_studio.rendering import pdf_page_count

    pages = b"1 0 obj << /Type /Pages /Count 2 /Kids [2 0 R 3 0 R] >>\n"
    pages += b"2 0 obj << /Type /Page >>\n3 0 obj <</Type/Page/Parent 1 0 R>>\n"
    assert pdf_page_count(pages) == 2


def test_columns_are_never_narrower_than_a_header_word_and_wide_tables_split() -> None:
    from privacy_studio.rendering.pdf import _ColumnWidths, _ensure_app

    _ensure_app()
    narrow = _ColumnWidths(Table("c", ["Excluded", "In file"], [["1", "2"]]), 2000.0)
    assert narrow.parts() == [[0, 1]]
    assert narrow.least[0] > narrow.least[1]  # "Excluded" is wider than "file"
    assert sum(narrow.share(j, [0, 1]) for j in (0, 1)) == pytest.approx(100.0)
    columns = [f"measure{j}" for j in range(12)]
    wide = _ColumnWidths(Table("w", ["Profile", *columns], [["a × b", *("12.3%" for _ in columns)]]), 2000.0)
    parts = wide.parts()
    assert len(parts) > 1 and all(part[0] == 0 for part in parts)  # every part repeats the row names
    assert [j for part in parts for j in part[1:]] == list(range(1, 13))  # every column once, in order
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1  # evened out: no last part of one column
    for part in parts:
        assert sum(wide.least[j] for j in part) <= 2000.0


def test_a_table_without_column_titles_has_no_header_row() -> None:
    from privacy_studio.rendering.pdf import _ensure_app, _HtmlBuilder

    _ensure_app()
    builder = _HtmlBuilder(None, 2000.0, None)  # type: ignore[arg-type]
    assert "</th>" not in builder.table(Table("Sign-off", ["", ""], [["Name", "x"]]))


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils (pdftoppm) not installed")
def test_no_page_but_the_last_is_nearly_empty(make_project, tmp_path: Path) -> None:
    """A section that opens a page flows on instead when the page before it would stay nearly empty."""
    from privacy_studio.rendering import SPARSE_PAGE, export_report

    from .test_report_pdf import page_images

    out = export_report(make_project(), tmp_path / "r.pdf")
    pages = page_images(out, tmp_path)
    for number, page in enumerate(pages[:-1], 1):
        body = page[: int(page.shape[0] * 0.93)]  # above the footer
        inked = np.flatnonzero((body < 200).any(axis=1))
        assert inked[-1] / page.shape[0] > SPARSE_PAGE, f"page {number} of {len(pages)} is nearly empty"
