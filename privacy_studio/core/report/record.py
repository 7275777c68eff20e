"""The decision record: why the data is released, to whom and in which form, what the attacker is assumed to
know and what was not assessed, the reasons for p and the ceiling, the residual risk, how stable the headline
is, the fingerprints of settings and inputs, and the sign-off. One function per part."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from privacy_studio.core.analyses import SeedSpread
from privacy_studio.core.naming import knowledge_name, label_words, spatial_name, temporal_name
from privacy_studio.core.numbers import count, share
from privacy_studio.core.project import Project, jsonable, sha256_of
from privacy_studio.core.report.candidates import recommended_candidate_sentence
from privacy_studio.core.report.content import KeyFigures, Paragraph, Section, Table, absent
from privacy_studio.core.report.evidence import coverage, evidence_against
from privacy_studio.core.report.inputs import MEASURE_NAMES, ReportInputs, format_measure, value_and_interval
from privacy_studio.core.report.release import (
    guarantee_text,
    layout_text,
    release_if_readable,
    release_summary,
    suppression_text,
    verdict_text,
)
from privacy_studio.core.report_details import (
    DEFAULT_CEILING_RATIONALE,
    DEFAULT_P_RATIONALE,
    ReportDetails,
    figures_digest,
)
from privacy_studio.core.user_keys import keyed_project_parts
from privacy_studio.versions import library_versions

#: Written where the officer has not filled in a text the record needs.
NOT_STATED = (
    "Not stated: fill this in (window: Project ▸ Report details…; command line: report --{flag}) before the "
    "record is signed."
)


#: What the report says instead of a decision signed over other figures than these.
EARLIER = "signed for earlier results"


def project_digest(project: Project) -> str:
    """The digest a signature covers for ``project`` as it is now (see ``report_details.figures_digest``)."""
    release = release_if_readable(project.analyses)
    return figures_digest(
        jsonable(project.settings),
        jsonable(project.tradeoff),
        jsonable(project.engine),
        jsonable(keyed_project_parts([r.to_dict() for r in project.results], project.analyses)),  # as saved
        [s.sha256 for s in project.sources],
        None if release is None else release.release_sha256,
    )


def sign_details(project: Project, details: ReportDetails, again: bool = False) -> ReportDetails:
    """``details`` as they are saved: a new signature (or signing ``again``) records the figures it is for."""
    previous = ReportDetails() if again else ReportDetails.of(project.analyses)
    return details.signed(previous, project_digest(project))


def decision_text(inp: ReportInputs, details: ReportDetails) -> str:
    """The recorded decision, or that it was signed over other figures (never an approval of these)."""
    if details.signed_for_earlier(project_digest(inp.project)):
        return (
            f"{EARLIER}: the decision was recorded before the settings, results or release changed, so it "
            "does not apply to the figures of this report until it is signed again"
        )
    return details.decision


def decision_sentence(inp: ReportInputs, details: ReportDetails) -> str:
    """The summary's line on the decision."""
    return f"Decision recorded: {decision_text(inp, details)} (see the sign-off)."


def decision_record_section(inp: ReportInputs) -> Section:
    """The whole record, in the order a reviewer reads it."""
    details = details_of(inp)
    section = Section("Decision record", new_page=True)
    section.subsections = [
        purpose_section(inp, details),
        data_section(inp, details),
        attacker_section(inp),
        rationale_section(inp, details),
        criteria_section(inp),
        residual_risk_section(inp, details),
        seed_stability_section(inp),
        fingerprints_section(inp),
        signoff_section(inp, details),
    ]
    return section


def details_of(inp: ReportInputs) -> ReportDetails:
    """The project's saved details (validated when the project was loaded)."""
    return ReportDetails.of(inp.project.analyses)


def _stated(text: str, flag: str) -> Paragraph:
    return Paragraph(text) if text.strip() else Paragraph(NOT_STATED.format(flag=flag), "warning")


def purpose_section(inp: ReportInputs, details: ReportDetails) -> Section:
    """Purpose, recipient and the columns published: the latest release's own record when there is one."""
    m = release_if_readable(inp.project.analyses)
    rows = [
        ["Purpose", details.purpose or "not stated"],
        ["Recipient", details.recipient or "not stated"],
    ]
    if m is None:
        rows.append(["Release format (published columns)", details.release_format or "not stated"])
    else:
        rows += [
            ["Release file", f"{m.release_file} (SHA-256 {m.release_sha256})"],
            ["Profile", m.profile_label],
            [
                "Release format (published columns)",
                f"{layout_text(m.options)}; columns {', '.join(m.columns)}",
            ],
            ["Suppression", suppression_text(m)],
            ["Guarantee", guarantee_text(m)],
            ["Release criteria", verdict_text(m)],
            ["Accepted risk", m.accepted_risk or "none"],
        ]
        if details.release_format:
            rows.append(["Release format as stated by the officer", details.release_format])
    blocks: list = [Table("Table R1. The release this record is about.", ["", "As stated"], rows)]
    stated = {"purpose": details.purpose, "recipient": details.recipient}
    if m is None:
        stated["release-format"] = details.release_format
    missing = [flag for flag, text in stated.items() if not text.strip()]
    if missing:
        blocks.append(_stated("", missing[0]))
    if details.description.strip():
        blocks.append(Paragraph(details.description))
    return Section("Purpose, recipient and release format", blocks)


def data_section(inp: ReportInputs, details: ReportDetails) -> Section:
    """The officer's description of the data (or the studio's own), and every level of the grid in words."""
    blocks: list = [Paragraph(details.data_description or _described_data(inp))]
    s = inp.project.risk_settings()
    rows = [[level, spatial_name(level)] for level in s.spatial]
    rows += [[width, temporal_name(width)] for width in s.temporal]
    if rows:
        blocks.append(
            Table(
                "Table R2. What the grid's level names mean (a profile is one of each).",
                ["Name", "Means"],
                rows,
            )
        )
    return Section("Data", blocks)


def _described_data(inp: ReportInputs) -> str:
    ds, events = inp.dataset, next((x for x in inp.project.sources if x.role == "events"), None)
    name = Path(events.path).name if events else "no events file"
    if ds is None and inp.overview is not None:
        ov = inp.overview
        return (
            f"Events file {name}: {count(ov.events)} events of {count(ov.people)} pseudonymous people, each "
            "a place and a time (counted by the out-of-core engine: the data exceed the memory); the studio "
            "measures how these traces single people out."
        )
    if ds is None:
        return f"Events file {name} (not loaded when this report was made, so its size is not restated here)."
    return (
        f"Events file {name}: {count(ds.events.n_events)} events of {count(ds.events.n_users)} pseudonymous "
        "people, each a place and a time; the studio measures how these traces single people out."
    )


def attacker_section(inp: ReportInputs) -> Section:
    """What the attacker is assumed to know, and what this report does not assess."""
    s = inp.project.risk_settings()
    knowledge = s.knowledge
    p_values = ", ".join(map(str, s.p_values)) or "–"
    assumed = (
        f"Assumed known: {knowledge_name(knowledge)} (p = {p_values}), each as exact as the released "
        "levels, and the fact that the person is in the file. The attacker then looks for the records that "
        "fit; a person is at risk when few or one do."
    )
    analyses = inp.project.analyses
    gaps = [
        "linkage with other datasets beyond the linkage attacks in the Results, when run",
        "repeated or updated releases of the same people (each release adds points an attacker can combine)",
        "insiders who know how the data was collected or who hold the original identifiers",
    ]
    if not analyses.get("attacks"):
        gaps.append("matching and profiling attacks (not run for this project)")
    if not analyses.get("anonymizability"):
        gaps.append("k-anonymizability of whole traces (not run for this project)")
    return Section(
        "Attacker model",
        [Paragraph(assumed), Paragraph("Not assessed: " + "; ".join(gaps) + ".", "warning")],
    )


def rationale_section(inp: ReportInputs, details: ReportDetails) -> Section:
    """Why this p and this ceiling: the officer's words, or the studio's defaults (marked as such)."""
    ceiling = format_measure(inp.measure, inp.ceiling)
    blocks = [
        Paragraph(f"Reference p = {inp.p}. {details.p_reason}"),
        Paragraph(f"Ceiling {ceiling} on {inp.risk_label}. {details.ceiling_reason}"),
    ]
    defaults = [
        what
        for what, text, default in (
            ("p", details.p_reason, DEFAULT_P_RATIONALE),
            ("ceiling", details.ceiling_reason, DEFAULT_CEILING_RATIONALE),
        )
        if text == default
    ]
    if defaults:
        blocks.append(
            Paragraph(
                f"The reasons for the {' and the '.join(defaults)} are the studio's defaults; the officer "
                "should confirm or replace them. The sources are listed in the studio's documentation "
                "(docs/tradeoff.md, Decision record).",
                "note",
            )
        )
    return Section("Reference p and ceiling", blocks)


def criteria_section(inp: ReportInputs) -> Section:
    """Every profile checked against every release criterion (the trade-off analysis's own checks)."""
    analysis = inp.analysis
    if analysis is None:
        return absent(
            "Release criteria", "the trade-off could not be derived (no utility scores or results)."
        )
    names = [c.name for c in analysis.checks[0]] if analysis.checks else []
    rows = [
        [
            label_words(label),
            *(f"{'pass' if c.passed else 'FAIL'}: {c.value_text()}" for c in checks),
            "yes" if all(c.passed for c in checks) else "no",
        ]
        for label, checks in zip(analysis.labels, analysis.checks, strict=True)
    ]
    limits = "; ".join(f"{c.name} at most {_limit_text(c.limit)}" for c in analysis.checks[0])
    return Section(
        "Release criteria",
        [
            Paragraph(" ".join(analysis.criteria.reason_lines())),
            Table(
                f"Table R3. Every profile against the release criteria ({limits}); an unmeasured value "
                "fails.",
                ["Profile", *names, "Meets all"],
                rows,
            ),
        ],
    )


def _limit_text(value: float | None) -> str:
    return "not measured" if value is None else share(value)


def residual_risk_section(inp: ReportInputs, details: ReportDetails) -> Section:
    """The risk that remains if the recommended profile is released, with what speaks against it."""
    section = Section("Residual risk after release")
    released = release_if_readable(inp.project.analyses)
    if released is not None:
        section.add(release_summary(released))
        if details.protections.strip():
            section.add(Paragraph(f"Further protections stated by the officer: {details.protections}"))
        return section
    rec, grid = inp.recommendation, inp.grid
    if grid is None or rec is None:
        return section.add(
            Paragraph(
                "Not assessed: the project has no risk results or no utility to recommend from.", "warning"
            )
        )
    if rec.label is None:
        section.add(*_no_profile_meets(inp))
    else:
        i = grid.labels.index(rec.label)
        entry = grid.entry(i, inp.p)
        value, ci = value_and_interval(entry, inp.measure)
        section.add(
            Paragraph(
                f"If {label_words(rec.label)} is released, {inp.risk_label} is {value} {ci}".rstrip()
                + f" (an estimate with its 95% interval); it {coverage(inp, i, inp.p).sentence()}. "
                "The other measures of this profile:"
            ),
            KeyFigures(evidence_against(inp, i)),
        )
    if details.protections.strip():
        section.add(Paragraph(f"Further protections stated by the officer: {details.protections}"))
    return section


def _no_profile_meets(inp: ReportInputs) -> list[Paragraph]:
    """What the record covers when no profile of the grid meets the criteria as it stands: the release the
    protection search recommends (the decision ``project run`` made), else nothing yet."""
    candidate = recommended_candidate_sentence(inp)
    if candidate is not None:
        lead = (
            "No profile of the grid meets the release criteria as it stands; the protection search found "
            "a suppression under which one does. This record is about that release; its residual risk, "
            "measured on the rows written, is shown here once it is written."
        )
        return [Paragraph(lead), candidate]
    return [
        Paragraph(
            "No profile of the grid meets the release criteria, so this record covers no release at these "
            "levels. Coarser levels, suppression of the rarest points or people, or other protections "
            "(restricted access, aggregation) are needed first.",
            "warning",
        )
    ]


def seed_stability_section(inp: ReportInputs) -> Section:
    """How much the headline moves between random seeds (``project run`` repeats it), or that it was not
    measured."""
    spread = inp.analysis.seed_spread if inp.analysis is not None else None
    spread = spread or inp.project.analysis(SeedSpread)
    if spread is None:
        seed = inp.project.risk_settings().seed
        return Section(
            "Seed stability",
            [
                Paragraph(
                    f"Not measured: every figure comes from one run with random seed {seed}. The 95% "
                    "intervals cover the random choice of people and points within that run; "
                    "'privacy-studio project run' repeats the headline over several seeds to show how much"
                    " it moves.",
                    "note",
                )
            ],
        )
    if spread.exact:
        return Section("Seed stability", [Paragraph(spread.sentence())])
    rows = [
        [str(seed), format_measure(spread.measure, value)]
        for seed, value in zip(spread.seeds, spread.values, strict=True)
    ]
    name = MEASURE_NAMES.get(spread.measure, spread.measure)
    what = name if spread.p is None else f"{name} at p = {spread.p}"
    return Section(
        "Seed stability",
        [
            Paragraph(spread.sentence()),
            Table(
                f"{what.capitalize()} of {label_words(spread.profile)}, one run per seed.",
                ["Seed", "Value"],
                rows,
            ),
        ],
    )


def settings_digest(inp: ReportInputs) -> str:
    """SHA-256 of the settings that decide the figures (grid, parameters, engine, trade-off choices)."""
    project = inp.project
    chosen = {"settings": project.settings, "tradeoff": project.tradeoff, "engine": project.engine}
    text = json.dumps(jsonable(chosen), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprints_section(inp: ReportInputs) -> Section:
    """Hashes that tie this report to exactly these settings and input files, and the studio's version."""
    rows = [["Project settings (grid, parameters, engine, criteria)", settings_digest(inp)]]
    for source in inp.project.sources:
        files = {
            source.role: (source.path, source.sha256),
            **{k: (p, None) for k, p in source.aux_paths().items()},
        }
        for role, (path, sha) in files.items():
            digest = sha or (sha256_of(path) if Path(path).is_file() else "file not found")
            rows.append([f"{Path(path).name} ({role})", digest])
    version = library_versions()["privacy-studio"]
    return Section(
        "Fingerprints",
        [
            Table("Table R4. SHA-256 of the settings and of every input file.", ["What", "SHA-256"], rows),
            Paragraph(f"Made with Privacy Studio {version}; library versions are on the title page.", "note"),
        ],
    )


def signoff_section(inp: ReportInputs, details: ReportDetails) -> Section:
    """Name, role, date and decision of the person who signs; blanks to fill in by hand when not given. A
    decision signed over other figures is shown as such, never as an approval of these."""
    blank = "_" * 28
    rows = [
        ["Name", details.signer_name or blank],
        ["Role", details.signer_role or blank],
        ["Date", details.sign_date or blank],
        ["Decision", decision_text(inp, details) or "release approved / approved with conditions / refused"],
        ["Signature", blank],
    ]
    blocks: list = [Table("Table R5. Sign-off.", ["", ""], rows)]
    if details.signed_for_earlier(project_digest(inp.project)):
        blocks.append(Paragraph(f"The decision was {EARLIER}: sign again over these figures.", "warning"))
    return Section("Sign-off", blocks)
