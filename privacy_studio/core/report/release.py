"""The Release part of the report: what the last release wrote (``analyses["release"]``, the manifest kept in
the project by ``privacy-studio release`` and File › Export release) and what the file measured as written."""

from __future__ import annotations

from typing import Any

from privacy_studio.core.analyses import AnalysisError
from privacy_studio.core.numbers import count, interval, share
from privacy_studio.core.release.linkage import Linkage
from privacy_studio.core.release.manifest import ReleaseManifest, last_release
from privacy_studio.core.release.measure import ReleaseFigures
from privacy_studio.core.release.options import ReleaseOptions
from privacy_studio.core.report.content import Paragraph, Section, Table, absent

TITLE = "Release"


def release_section(analyses: dict[str, Any]) -> Section:
    """The file, its profile and options, the counts each suppression removed and the figures on the file."""
    try:
        manifest = last_release(analyses)
    except AnalysisError as exc:
        return Section(TITLE, [Paragraph(f"The stored release record could not be read ({exc}).", "warning")])
    if manifest is None:
        return absent(
            TITLE,
            "no release was written from this project (privacy-studio release …, or File › Export release).",
        )
    o = manifest.options
    rows = layout_text(o)
    section = Section(
        TITLE,
        [
            Paragraph(
                f"{manifest.release_file} was written on {manifest.created} at {manifest.profile_label}: "
                f"{rows}; columns {', '.join(manifest.columns)}; new random pseudonyms"
                + ("; the pseudonym mapping was saved apart" if manifest.mapping_written else "")
                + f". SHA-256 {manifest.release_sha256}."
            ),
            Paragraph(verdict_text(manifest), "body" if manifest.passes else "warning"),
            _removals(manifest),
            _figures(manifest),
            *_project_figures(manifest),
            Paragraph(
                "The figures on the release were measured on the file as written, read back with the "
                "studio's own reader at its own granularity (its units as places, its time bins); the file "
                "was given its name only after they matched the release prepared in memory.",
                "note",
            ),
        ],
    )
    return section


def release_if_readable(analyses: dict[str, Any]) -> ReleaseManifest | None:
    """The latest release of the data at a profile, or None (also when its record cannot be read: the
    Release section says why)."""
    try:
        return last_release(analyses)
    except AnalysisError:
        return None


def suppression_text(m: ReleaseManifest) -> str:
    """The suppression chosen, in words (``none``)."""
    options = m.options.to_dict()
    steps = [r.describe(options[r.step]) for r in m.removed if not r.again]
    return "; ".join(steps) or "none"


def guarantee_text(m: ReleaseManifest) -> str:
    """The figures measured on the rows as written, every published column included."""
    f = m.measured_on_release
    unicity = f"{share(f.unicity)} {interval(f.unicity_ci)}".strip()
    return (
        f"measured on the rows as written (columns {', '.join(m.columns)}): smallest class k = {f.k}, "
        f"{share(f.share_unique)} of the {count(f.people)} people released have a unique set of rows, "
        f"unicity at p = {f.p} is {unicity} (an estimate on {count(f.n_sampled - f.n_excluded)} of them; "
        f"{count(f.n_excluded)} with fewer than {f.p} rows left out)"
    )


def verdict_text(m: ReleaseManifest) -> str:
    """Whether the file met the project's release criteria, and the reason given when it did not."""
    if m.passes:
        linked = "".join(f" Against earlier releases: {linkage_text(x)}." for x in m.linkage_to_earlier)
        return "The file meets every release criterion of the project." + linked
    failures = [f"{c.name} {c.value_text()} (limit {share(c.limit)})" for c in m.criteria if not c.passed]
    if not m.criteria:
        failures = ["it was not judged against them (released by an older studio)"]
    failed = "; ".join(failures + [linkage_text(x) for x in m.linkage_to_earlier])  # no empty first item
    reason = f' The risk was accepted with the reason: "{m.accepted_risk}".' if m.accepted_risk else ""
    return f"The file FAILS the project's release criteria: {failed}.{reason}"


def linkage_text(x: Linkage) -> str:
    """The matching attack to one earlier release in words."""
    if x.share is None:
        return f"the linkage to the earlier release {x.release_file} could not be measured ({x.note})"
    return (
        f"the matching attack re-links {count(x.relinked)} of the {count(x.in_both)} people also in the "
        f"earlier release {x.release_file} ({share(x.share)}, at {x.profile}; an upper bound for files "
        "without counts)"
    )


def release_summary(m: ReleaseManifest) -> Paragraph:
    """One paragraph on the latest release, for the summary and the residual risk."""
    return Paragraph(
        f"Latest release: {m.release_file} ({m.created}) at {m.profile_label}, {layout_text(m.options)}; "
        f"suppression: {suppression_text(m)}. It holds {count(m.released.people)} of "
        f"{count(m.before.people)} people. {guarantee_text(m)[0].upper()}{guarantee_text(m)[1:]}. "
        f"{verdict_text(m)}",
        "body" if m.passes else "warning",
    )


def layout_text(o: ReleaseOptions) -> str:
    """The row layout in words."""
    if o.rows == "events":
        return "one row per event"
    count = " with its event count" if o.counts else " (no event count)"
    return f"one row per person, spatial unit and time bin{count}"


def _removals(m: ReleaseManifest) -> Table:
    options = m.options.to_dict()
    rows = [["data at the profile", count(m.before.people), count(m.before.events), count(m.before.points)]]
    for r in m.removed:
        rows.append(
            [f"removed: {r.describe(options[r.step])}", count(r.people), count(r.events), count(r.points)]
        )
    rows.append(["released", count(m.released.people), count(m.released.events), count(m.released.points)])
    note = (
        "" if m.removed else "No suppression was chosen: every person and event at the profile is released."
    )
    return Table("People, events and points released", ["", "people", "events", "points"], rows, note)


def _figures(m: ReleaseManifest) -> Table:
    def row(name: str, f: ReleaseFigures) -> list[str]:
        left_out = f"{count(f.n_excluded)} of {count(f.n_sampled)} sampled with fewer than {f.p} points"
        unicity = f"{share(f.unicity)} {interval(f.unicity_ci)}".strip()
        return [name, count(f.people), str(f.k), share(f.share_unique), unicity, left_out]

    return Table(
        f"Risk before suppression and on the release (unicity at p = {m.measured_on_release.p}: an estimate)",
        ["", "people", "k", "unique whole traces", "unicity (95% interval)", "left out of unicity"],
        [
            row("before suppression", m.measured_before_suppression),
            row("on the release file", m.measured_on_release),
        ],
    )


def _project_figures(m: ReleaseManifest) -> list[Paragraph]:
    """The project's own full-fingerprint figures at the profile (if its run had them), to compare."""
    if not m.project_kanon:
        return []
    k, unique = m.project_kanon.get("k"), m.project_kanon.get("share_below", {}).get("2")
    return [
        Paragraph(
            f"For comparison, the project's own risk run at {m.profile_label} found k = {k} and "
            f"{share(unique)} unique whole traces on the data."
        )
    ]
