"""The report as data: sections of paragraphs, key figures, tables and figure data, independent of rendering.

Renderers (the PDF writer in ``rendering/pdf.py``, the plain-text form below) draw exactly these numbers, so
what the officer reads and what the tests check are the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Paragraph:
    """Running text; ``style`` is ``body``, ``note`` (an aside) or ``warning`` (must not be missed)."""

    text: str
    style: str = "body"


@dataclass
class KeyFigure:
    """A headline number with its label and a short detail (interval, sample size)."""

    label: str
    value: str
    detail: str = ""


@dataclass
class KeyFigures:
    items: list[KeyFigure]


@dataclass
class Table:
    """A captioned table of already formatted cells (numbers formatted once, by the content builder)."""

    caption: str
    columns: list[str]
    rows: list[list[str]]
    note: str = ""


@dataclass
class Series:
    """One curve or point set; ``lo``/``hi`` give a band, ``labels`` name the points, ``mode`` how to draw."""

    name: str
    x: list[float]
    y: list[float]
    lo: list[float] | None = None
    hi: list[float] | None = None
    labels: list[str] | None = None
    mode: str = "line"  # line | points | dashed


@dataclass
class PlotFigure:
    """An x-y plot; ``reverse_x`` draws x decreasing to the right (Pareto utility, so the bottom-left is best
    as in the window's trade-off tab)."""

    caption: str
    x_label: str
    y_label: str
    series: list[Series]
    log_x: bool = False
    log_y: bool = False
    reverse_x: bool = False
    percent_x: bool = False
    percent_y: bool = False


@dataclass
class HeatmapFigure:
    """A matrix of values with row / column labels, values written in the cells (None = not computed)."""

    caption: str
    row_title: str
    col_title: str
    row_labels: list[str]
    col_labels: list[str]
    values: list[list[float | None]]
    cell_text: list[list[str]]


Block = Paragraph | KeyFigures | Table | PlotFigure | HeatmapFigure


@dataclass
class Section:
    """A titled part of the report; ``available`` is False when its inputs were absent (it then says so)."""

    title: str
    blocks: list[Block] = field(default_factory=list)
    subsections: list[Section] = field(default_factory=list)
    new_page: bool = False
    available: bool = True

    def add(self, *blocks: Block) -> Section:
        self.blocks.extend(blocks)
        return self


def absent(title: str, why: str) -> Section:
    """A section whose inputs are missing: it stays in the report and says what is missing."""
    return Section(title, [Paragraph(f"Not available: {why}", "note")], available=False)


@dataclass
class ReportContent:
    """Title page facts, the sections in order, and the headline numbers (for the summary and tests)."""

    title: str
    subtitle: str
    title_facts: list[tuple[str, str]]
    sections: list[Section]
    headline: dict[str, float | str | None] = field(default_factory=dict)

    def text(self) -> str:
        """The whole report as plain text (figures as their captions), e.g. for logs and tests."""
        out = [self.title, self.subtitle, *(f"{k}: {v}" for k, v in self.title_facts)]
        for s in self.sections:
            _section_text(s, 1, out)
        return "\n".join(out) + "\n"


def _section_text(section: Section, level: int, out: list[str]) -> None:
    out.append("")
    out.append("#" * level + " " + section.title)
    for b in section.blocks:
        if isinstance(b, Paragraph):
            out.append(b.text)
        elif isinstance(b, KeyFigures):
            out.extend(f"{k.label}: {k.value} {k.detail}".rstrip() for k in b.items)
        elif isinstance(b, Table):
            out.append(b.caption)
            out.append(" | ".join(b.columns))
            out.extend(" | ".join(r) for r in b.rows)
        else:
            out.append(f"[figure] {b.caption}")
    for sub in section.subsections:
        _section_text(sub, level + 1, out)
