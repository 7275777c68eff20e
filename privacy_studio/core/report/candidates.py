"""The report's protection search: the recommended candidate (profile and suppression), why it was chosen,
and the most useful candidates that failed and why (``analyses["protection_search"]``, issue #29)."""

from __future__ import annotations

import math

from privacy_studio.core.analyses import AnalysisError, read_analysis
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.release.search import stored_search
from privacy_studio.core.report.content import Paragraph, Section, Table, absent
from privacy_studio.core.report.inputs import ReportInputs
from privacy_studio.core.tradeoff.candidates import SKIPPED, SearchResult
from privacy_studio.core.utility import utility_title

TITLE = "Protection search: profiles with suppression"


def candidates_section(inp: ReportInputs) -> Section:
    """What the search tried, what it recommends and why, and the best failing candidates."""

    try:
        saved = read_analysis(inp.project.analyses, SearchResult)
    except (AnalysisError, ValueError) as exc:
        return Section(TITLE, [Paragraph(f"The stored search could not be read ({exc}).", "warning")])
    if saved is None:
        return absent(
            TITLE, "no protection search was run (privacy-studio project run, or tradeoff --search)."
        )
    section = Section(TITLE)
    if stored_search(inp.project, inp.analysis) is None:
        section.add(
            Paragraph(
                "The search below was made for earlier results, criteria or releases: run it again "
                "(privacy-studio tradeoff PROJECT --search) before relying on it.",
                "warning",
            )
        )
    title = utility_title(saved.utility_name)
    lines = saved.lines(title)
    section.add(Paragraph(lines[0]), Paragraph(lines[1], "body" if saved.recommended else "warning"))
    section.add(
        Paragraph(
            "Each candidate is a profile of the grid released with a suppression of the ladder (in the "
            "release's fixed order: cap each person's points, drop rare points, keep people whose whole "
            "trace is shared by at least K people, drop points that became rare). Its utility is the "
            f"profile's {title} times the share of its rows the suppression keeps, so removed people and "
            "points count as lost. Candidates are measured on their rows as written, most useful first, "
            "with the same criteria as the release; the first that passes is recommended, as nothing less "
            "useful could be preferred to it."
        )
    )
    judged = [c for c in saved.candidates if c.verdict != SKIPPED]
    rows = [
        [
            c.name(),
            f"{count(c.released_people)} of {count(c.total_people)} ({share(c.released_share)})",
            count(c.released_rows),
            number(c.utility) if math.isfinite(c.utility) else "–",
            "passes" if c.passes else c.why_failed(),
        ]
        for c in judged
    ]
    section.add(
        Table(
            "Table 8. The candidates judged, in the order the search measured them (most useful first).",
            ["Candidate", "People released", "Rows", title.capitalize(), "Release criteria"],
            rows,
            f"{count(len(saved.candidates) - len(judged))} less useful candidates were not measured.",
        )
    )
    return section


def recommended_candidate_sentence(inp: ReportInputs) -> Paragraph | None:
    """One sentence for the summary: the recommended candidate of a current search, or None."""

    try:
        found = stored_search(inp.project, inp.analysis)
    except (AnalysisError, ValueError):
        return None
    if found is None or found.recommended is None:
        return None
    c = found.recommended
    return Paragraph(
        f"Recommended release (protection search): {c.name()}; it keeps {count(c.released_people)} of "
        f"{count(c.total_people)} people ({share(c.released_share)}) and meets every release criterion on "
        "its rows as written. privacy-studio release without --profile writes it; details in the section "
        f'"{TITLE}".'
    )
