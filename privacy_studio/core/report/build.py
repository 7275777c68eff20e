"""Assemble the whole report from a project (and, when loaded, its dataset): title page, summary for decision
makers, method, results, limitations and a per-profile appendix."""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.explanations import EXPLANATIONS, Explanation
from privacy_studio.core.io.dataset import period_text
from privacy_studio.core.naming import label_words, price_name, readable, spatial_short, temporal_short
from privacy_studio.core.numbers import count, one_in, share
from privacy_studio.core.report.aggregate import aggregate_section
from privacy_studio.core.report.candidates import candidates_section, recommended_candidate_sentence
from privacy_studio.core.report.content import (
    HeatmapFigure,
    KeyFigure,
    KeyFigures,
    Paragraph,
    ReportContent,
    Section,
    Table,
)
from privacy_studio.core.report.evidence import all_points_text, coverage, evidence_against
from privacy_studio.core.report.inputs import (
    MEASURE_EXPLANATION,
    MEASURE_NAMES,
    ReportInputs,
    format_measure,
    measure_cells,
    measure_columns,
    resolve_inputs,
    value_and_interval,
)
from privacy_studio.core.report.record import (
    decision_record_section,
    decision_sentence,
    details_of,
    project_digest,
)
from privacy_studio.core.report.release import release_if_readable, release_section, release_summary
from privacy_studio.core.report.results import heatmap, left_out_note, results_section
from privacy_studio.core.risk.catalogue import BY_NAME, canonical
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.versions import library_versions

if TYPE_CHECKING:
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project
    from privacy_studio.core.tradeoff.criteria import CriterionCheck


def build_report(
    project: Project, dataset: Dataset | None = None, inputs: ReportInputs | None = None
) -> ReportContent:
    """The report's content; sections whose inputs are missing stay and say what is missing. ``inputs``
    (from :func:`resolve_inputs`) lets a command that already decided build on its decision."""
    inp = inputs if inputs is not None else resolve_inputs(project, dataset)
    headline: dict[str, float | str | None] = {}
    sections = [
        summary_section(inp, headline),
        decision_record_section(inp),
        method_section(inp),
        results_section(inp),
        candidates_section(inp),
        release_section(project.analyses),
        aggregate_section(inp),
        limitations_section(inp),
        appendix_section(inp),
    ]
    return ReportContent(
        project.name,
        "Re-identification risk report and decision record",
        title_facts(inp),
        sections,
        headline,
    )


def title_facts(inp: ReportInputs) -> list[tuple[str, str]]:
    """Dataset, period, users, events, input files with hashes, date and versions."""
    project, ds = inp.project, inp.dataset
    facts = [("Project", project.name)]
    if project.path is not None:
        facts.append(("Project file", str(project.path)))
    events = next((s for s in project.sources if s.role == "events"), None)
    facts.append(("Dataset", Path(events.path).name if events else "no events source"))
    if ds is not None:
        start, end = ds.events.period()
        facts += [
            ("Period", period_text(start, end, ds.events.tz)),
            ("Users", count(ds.events.n_users)),
            ("Events", count(ds.events.n_events)),
        ]
    elif inp.overview is not None:  # data larger than memory: the engine's counts (issue #30)
        facts += [
            ("Period", inp.overview.period_text()),
            ("Users", count(inp.overview.people)),
            ("Events", count(inp.overview.events)),
        ]
    else:
        users = inp.grid.n_users.max() if inp.grid is not None and len(inp.grid.n_users) else None
        kept = (project.import_report or {}).get("rows_kept")
        facts += [
            ("Period", "unknown (the input data was not loaded)"),
            ("Users", count(users)),
            ("Events", count(kept)),
        ]
    for source in project.sources:
        for role, path in {source.role: source.path, **source.aux_paths()}.items():
            facts.append((f"Input ({role})", f"{Path(path).name} (SHA-256 in the decision record)"))
    versions = library_versions()
    facts += [
        ("Report date", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("Studio version", f"Privacy Studio {versions.pop('privacy-studio')}"),
        ("Libraries", ", ".join(f"{k} {v}" for k, v in versions.items())),
    ]
    return facts


def summary_section(inp: ReportInputs, headline: dict[str, float | str | None]) -> Section:
    """One page for decision makers: the recommendation and the headline figures with their intervals."""
    section = Section("Summary for decision makers", new_page=True)
    section.add(*(Paragraph(n, "note") for n in inp.notes))
    released = release_if_readable(inp.project.analyses)
    if released is not None:
        section.add(release_summary(released))
    details = details_of(inp)
    if details.decision:
        stale = details.signed_for_earlier(project_digest(inp.project))
        section.add(Paragraph(decision_sentence(inp, details), "warning" if stale else "body"))
    if inp.grid is None:
        return section.add(
            Paragraph("No risk results: run the analysis before reading this report.", "warning")
        )
    figures, focus = _key_figures(inp, headline)
    section.add(KeyFigures(figures), _recommendation(inp))
    candidate = recommended_candidate_sentence(inp)
    if candidate is not None:
        section.add(candidate)
    if focus is not None:
        section.add(*_focus_checks(inp, focus))
    section.add(Paragraph(f"What the figures mean: {EXPLANATIONS[MEASURE_EXPLANATION[inp.measure]].text()}"))
    return section.add(_glance(inp))


def _key_figures(
    inp: ReportInputs, headline: dict[str, float | str | None]
) -> tuple[list[KeyFigure], int | None]:
    """The summary's key figures (recommended, highest and lowest risk, profiles under the ceiling), with
    the headline numbers filled in, and the profile the summary looks at closer (recommended, else the
    least risky; None without any risk known)."""
    assert inp.grid is not None
    grid, risk = inp.grid, inp.risk()
    headline.update(measure=inp.measure, p=inp.p, ceiling=inp.ceiling)
    figures: list[KeyFigure] = []
    known = np.flatnonzero(np.isfinite(risk))
    if len(known):
        hi, lo = known[np.argmax(risk[known])], known[np.argmin(risk[known])]
        headline.update(
            max=float(risk[hi]), max_label=grid.labels[hi], min=float(risk[lo]), min_label=grid.labels[lo]
        )
        figures += [
            _key_figure(inp, f"Highest {inp.risk_label}", hi),
            _key_figure(inp, f"Lowest {inp.risk_label}", lo),
        ]
    rec = inp.recommendation
    focus = int(known[np.argmin(risk[known])]) if len(known) else None
    if rec is None:
        return figures, focus
    headline["recommended"] = rec.label
    if rec.label is not None:
        focus = grid.labels.index(rec.label)
        headline["recommended_risk"] = float(risk[focus])
        figures.insert(0, _key_figure(inp, "Recommended profile", focus, name=True))
    else:
        why = "no profile meets the release criteria"
        if recommended_candidate_sentence(inp) is not None:  # the search's release, with suppression
            why += " as it stands; see the recommended release below"
        figures.insert(0, KeyFigure("Recommended profile", "none", why))
    figures.append(
        KeyFigure(
            "Profiles under the ceiling",
            f"{len(rec.meets_ceiling)} of {len(grid.labels)}",
            f"ceiling {format_measure(inp.measure, inp.ceiling)} on {inp.risk_label}",
        )
    )
    return figures, focus


def _recommendation(inp: ReportInputs) -> Paragraph:
    """The recommendation's reasoning, or why there is none."""
    rec = inp.recommendation
    if rec is None:
        return Paragraph(
            "No recommendation: the project has no utility scores, so the studio cannot weigh risk "
            "against usefulness. Enter expert scores per profile, or run the project's analysis (it "
            "computes every profile's information loss), and regenerate.",
            "warning",
        )
    return Paragraph(rec.reasoning, "warning" if rec.warning else "body")


def _focus_checks(inp: ReportInputs, focus: int) -> list[Paragraph | KeyFigures]:
    """Every release criterion and the other figures at the profile the summary looks at closer."""
    assert inp.grid is not None
    rec = inp.recommendation
    role = (
        "the recommended profile" if rec is not None and rec.label is not None else "the least risky profile"
    )
    where = label_words(inp.grid.labels[focus])
    out: list[Paragraph | KeyFigures] = []
    if inp.analysis is not None:
        out.append(Paragraph(f"Every release criterion at {where} ({role}):"))
        out += [Paragraph(_check_line(c)) for c in inp.analysis.checks[focus]]
    out += [
        Paragraph(f"Also measured at {where} ({role}):", "note"),
        KeyFigures(evidence_against(inp, focus, criteria_shown=inp.analysis is not None)),
    ]
    return out


def _glance(inp: ReportInputs) -> HeatmapFigure:
    """The heat map of every profile's risk (without price, else at the first price choice)."""
    prices = [] if inp.grid is None else list(dict.fromkeys(inp.grid.price))
    shown = "none" if "none" in prices or not prices else prices[0]
    glance = heatmap(inp, shown)
    which = "profile" if prices in ([], ["none"]) else f"profile with the {price_name(shown)}"
    glance.caption = (
        f"At a glance: {inp.risk_label} of every {which} (darker = riskier); details in Results."
        f"{left_out_note(inp)}"
    )
    return glance


def _check_line(check: CriterionCheck) -> str:
    """``✓ pass — unicity at p = 4 (upper end …): 3.6% (limit 5.0%)``."""
    value = check.value_text()
    note = f", {check.note}" if check.note else ""
    return (
        f"{'✓ pass' if check.passed else '✗ fail'}: {check.name}: {value} (limit {share(check.limit)}){note}"
    )


def _key_figure(inp: ReportInputs, label: str, i: int, *, name: bool = False) -> KeyFigure:
    """``label``: the profile's risk with its interval (or the profile name with its risk as detail)."""
    assert inp.grid is not None
    entry = inp.grid.entry(i, inp.p)
    value, ci = value_and_interval(entry, inp.measure)
    if entry is not None and entry.method == "exact":
        ci = "exact: every choice of points of every person"
    profile = label_words(inp.grid.labels[i])
    covers = coverage(inp, i, inp.p).sentence() + all_points_text(inp, i)
    if name:
        return KeyFigure(label, profile, f"{inp.risk_label} {value} {ci}; {covers}".replace("  ", " "))
    return KeyFigure(label, value, f"{ci} for {profile}; {covers}".strip())


def method_section(inp: ReportInputs) -> Section:
    """Each measure in plain words, the adversary model, parameters and seeds: enough to reproduce."""
    section = Section("Method")  # follows the decision record's last page, which is short
    knowledge = inp.project.risk_settings().knowledge
    section.add(
        Paragraph(
            "The data was generalized to each profile of a grid (a spatial level crossed with a time-bin "
            "width); "
            "each person's trace is the set of distinct places-and-times they appear at. An outsider is "
            "assumed "
            f"to know p points of a person's trace, chosen by the '{knowledge}' knowledge model. "
            f"{EXPLANATIONS['adversary_knowledge'].text()}"
        )
    )
    section.add(
        Table(
            "Table M1. Parameters of the analysis (with the seed, the run is reproducible).",
            ["Setting", "Value"],
            _parameters(inp, knowledge),
        )
    )
    section.add(Paragraph(f"Command line that reproduces the risk figures: {reproduce_command(inp)}", "note"))
    shown = list(dict.fromkeys(MEASURE_EXPLANATION[m] for m in MEASURE_NAMES if _computed(inp, m)))
    if any(r.kanon for r in inp.project.results):
        shown.append("k_anonymity")
    if inp.project.results:
        shown.append("sparsity_theory")
    shown += ["pareto_front", "ordinal_equivalence", "power_law", "population_extrapolation", "risk_by_group"]
    section.subsections = [_explained(EXPLANATIONS[key]) for key in shown]
    return section


def _parameters(inp: ReportInputs, knowledge: str) -> list[list[str]]:
    """Table M1's rows: every setting the figures depend on, and how each input was read."""
    s = inp.project.risk_settings()
    params = [
        ["Spatial levels", ", ".join(readable(spatial_short, c) for c in s.spatial) or "–"],
        ["Time bins", ", ".join(readable(temporal_short, c) for c in s.temporal) or "–"],
        [
            "Grid cells",
            "all combinations"
            if not s.cells
            else "; ".join(label_words(" × ".join(map(str, c))) for c in s.cells),
        ],
        ["p values", ", ".join(map(str, s.p_values)) or "–"],
        ["Knowledge model", knowledge],
        [
            "People with fewer than p points",
            "evaluated on all the points they have (counted per p in the tables' data)"
            if s.short_traces == "all-points"
            else "left out of the estimates and counted",
        ],
        ["Sampled users (S)", str(s.samples)],
        ["Draws per user (R)", str(s.draws)],
        ["Random seed", str(s.seed)],
        [
            "Exact mode",
            "yes"
            if s.exact
            else "where cheap: every p whose enumeration fits the budget is exact (tables say which); "
            "elsewhere a Monte Carlo estimate with 95% Wilson intervals and a searched worst case",
        ],
        ["Measures", ", ".join(measure_words(s.measures)) or "–"],
        ["Risk ceiling", f"{format_measure(inp.measure, inp.ceiling)} on {inp.risk_label}"],
        ["Risk engine", engine_description(inp.project.engine_choice())],
    ]
    for source in inp.project.sources:
        params.append([f"Reader ({source.role})", " ".join(reader_flags(source.reader)) or "defaults"])
    return params


def measure_words(names: Iterable[str]) -> list[str]:
    """The measures a project computes, by their labels (``k-disclosure``), never their setting names."""
    return [BY_NAME[canonical(n)].label if canonical(n) in BY_NAME else n for n in names]


def _computed(inp: ReportInputs, measure: str) -> bool:
    return inp.grid is not None and bool(np.isfinite(inp.grid.values(measure, inp.p)).any())


def _explained(e: Explanation) -> Section:
    return Section(
        e.title,
        [
            Paragraph(e.what),
            Paragraph(f"What it does not mean: {e.not_what}"),
            Paragraph(f"Formula: {e.formula}", "note"),
        ],
    )


def reproduce_command(inp: ReportInputs) -> str:
    """The ``privacy-studio risk`` call with the project's grid and parameters (every setting the figures
    depend on; those left at the command's defaults are left out)."""
    s = inp.project.risk_settings()
    src = next((x for x in inp.project.sources if x.role == "events"), None)
    parts = [
        "privacy-studio risk",
        Path(src.path).name if src else "INPUT",
        *(reader_flags(src.reader) if src else []),
    ]
    defaults = RiskSettings(spatial=[], temporal=[])
    for name, flag in _RISK_FLAGS:
        value = getattr(s, name)
        if value and (name in _ALWAYS or value != getattr(defaults, name)):
            parts.append(f"{flag} {','.join(map(str, value)) if isinstance(value, list) else value}")
    if s.exact:
        parts.append("--exact")
    parts += engine_flags(inp.project.engine_choice())
    return " ".join(parts) + " --json OUT.json"


#: Settings always written out (the grid, and the p the command would otherwise derive from it).
_ALWAYS = ("spatial", "temporal", "p_values", "reference_p")
#: Each setting the ``risk`` command takes as a flag with a value, in the order the command's help lists.
_RISK_FLAGS = (
    ("spatial", "--spatial"),
    ("temporal", "--temporal"),
    ("price", "--price"),
    ("p_values", "--p"),
    ("knowledge", "--knowledge"),
    ("short_traces", "--short-traces"),
    ("measures", "--measures"),
    ("records_at_risk_k", "--risk-k"),
    ("samples", "--samples"),
    ("draws", "--draws"),
    ("seed", "--seed"),
    ("exact_budget", "--exact-budget"),
    ("search_budget", "--search-budget"),
    ("reference_p", "--reference-p"),
    ("em_samples", "--em-samples"),
)


def engine_description(choice: EngineChoice) -> str:
    """The engine in words, with its options: every engine gives the same class sizes (docs/engines.md)."""
    words = {
        "numba": "numba (in memory)",
        "duckdb": "DuckDB (out of core)",
        "spark": "Apache Spark",
        "auto": "auto (DuckDB when the input would not fit in memory, else numba)",
    }[choice.name]
    options = [f"{label} {value}" for label, _, value in _engine_options(choice)]
    return f"{words}; {', '.join(options)}" if options else words


def engine_flags(choice: EngineChoice) -> list[str]:
    """The ``privacy-studio risk`` engine flags for this choice (auto, the default, left out)."""
    flags = [] if choice.name == "auto" else [f"--engine {choice.name}"]
    return flags + [f"{flag} {value}" for _, flag, value in _engine_options(choice)]


def _engine_options(choice: EngineChoice) -> list[tuple[str, str, str]]:
    """(words, command-line flag, value) of each engine option the choice sets."""
    named = (
        ("memory limit", "--memory-limit", choice.memory_limit),
        ("spill folder", "--temp-dir", choice.temp_dir),
        ("master", "--spark-master", choice.spark_master),
    )
    return [(words, flag, value) for words, flag, value in named if value]


def reader_flags(reader: dict) -> list[str]:
    """The ``privacy-studio`` reading flags that give these reader options (defaults left out)."""
    flags = []
    if reader.get("format", "auto") != "auto":
        flags.append(f"--format {reader['format']}")
    if reader.get("delimiter"):
        flags.append(f"--delimiter {reader['delimiter']!r}")
    if reader.get("header") is False:
        flags.append("--no-header")
    if reader.get("columns"):
        flags.append(f"--columns {','.join(reader['columns'])}")
    flags += [f"--map {role}={column}" for role, column in (reader.get("mapping") or {}).items()]
    if reader.get("tz", "UTC") != "UTC":
        flags.append(f"--tz {reader['tz']}")
    flags += [f"--{key}" for key in ("dayfirst", "monthfirst") if reader.get(key)]
    flags += [
        f"--{key} {Path(str(reader[key])).name}"
        for key in ("antennas", "hierarchy", "locations")
        if reader.get(key)
    ]
    return flags


def limitations_section(inp: ReportInputs) -> Section:
    section = Section("Limitations", new_page=True)
    users = (
        count(float(np.nanmax(inp.grid.n_users)))
        if inp.grid is not None and np.isfinite(inp.grid.n_users).any()
        else "–"
    )
    section.add(
        Paragraph(
            f"Relative to the dataset: every figure counts who else is in this file ({users} people). In a "
            "larger "
            "population more people could share the same points, so the same data published as part of a "
            "bigger "
            "file would look less risky, and a sample of it more risky. See the population extrapolation."
        ),
        Paragraph(
            "Knowledge model: the figures assume the outsider knows exactly p points drawn by the chosen "
            "model. "
            "Outsiders who know more points, more precise ones, or who combine other datasets (see the "
            "matching "
            "and profiling attacks) can do better. The worst-case risk is exact only where every choice of "
            "p points was tried; elsewhere (marked ≥) it is a lower bound: the true worst case can be "
            "higher."
        ),
        Paragraph(
            "Estimates: unless the exact mode was used, unicity is estimated on a random sample of people, "
            "with a "
            "95% interval; decisions should use the upper end of the interval, as the recommendation does."
        ),
        Paragraph(
            "Scope: only the profiles of the grid were measured; predictions beyond it (power law, "
            "extrapolation) "
            "are trends, not measurements. Generalization alone does not protect against attribute "
            "disclosure "
            "(see EM- and KL-disclosure) or against linkage with other data."
        ),
    )
    if inp.grid is not None:
        at = "" if inp.p is None else f" at p = {inp.p}"
        for key, what in (
            ("n_excluded", f"were excluded from the estimates{at} (they cannot be drawn from)"),
            ("n_short", f"were evaluated on all the points they have{at} (a conservative figure)"),
        ):
            counts = _per_profile_counts(inp, key)
            if counts:
                section.add(Paragraph(f"People with fewer than p distinct points {what}: {counts}.", "note"))
    missing = [s for s in inp.project.sources if s in inp.project.missing_sources()]
    if missing:
        section.add(
            Paragraph(
                f"Input files not found when the report was made: {', '.join(s.path for s in missing)}.",
                "warning",
            )
        )
    return section


def appendix_section(inp: ReportInputs) -> Section:
    """Per profile: every p with every measure computed."""
    section = Section("Appendix: per-profile details", new_page=True)
    if inp.grid is None:
        return section.add(Paragraph("Not available: the project has no risk results yet.", "note"))
    for i, label in enumerate(inp.grid.labels):
        row = inp.project.results[i]
        entries = [
            e for _, e in sorted(inp.grid.by_p[i].items(), key=lambda kv: -1 if kv[0] is None else kv[0])
        ]
        measures = [m for m in MEASURE_NAMES if any(e.value(m) is not None for e in entries)]
        rows = [
            [
                "–" if e.p is None else str(e.p),
                *measure_cells(e, measures),
                count(e.n_sampled),
                count(e.n_excluded),
            ]
            for e in entries
        ]
        detail = f"{count(row.n_users)} users, d = {count(row.d)}"
        fill = row.fill_rate
        if isinstance(fill, float) and math.isfinite(fill):
            detail += f", fill rate {one_in(fill)}"
        table = Table(
            f"{label_words(label)} ({detail})", ["p", *measure_columns(measures), "Sampled", "Excluded"], rows
        )
        section.add(table)
    section.add(Paragraph(f"Shares are written as percentages ({share(0.5)} = one in two).", "note"))
    return section


def _per_profile_counts(inp: ReportInputs, key: str) -> str:
    """``profile: count; …`` of a count at the report's p, for the profiles where it is not zero."""
    return "; ".join(
        f"{label_words(label)}: {count(getattr(entry, key))}"
        for label, entry in zip(inp.grid.labels, inp.grid.at(inp.p), strict=True)
        if entry is not None and getattr(entry, key)
    )
