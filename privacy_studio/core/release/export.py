"""Prepare a release (select, suppress, pseudonymize, measure in memory) and write it with its closed loop.

Every figure is measured on the rows as they are written, every published column included
(``written.row_events``). ``write_release`` writes the rows to a temporary file beside the target, reads
that file back with the studio's reader (it must read every row) and measures its text; only when the
figures equal those of the prepared release does the file get its final name, and the manifest is written
beside it. A release that fails the project's release criteria is written only with a stated reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from privacy_studio.core.atomic import WriteError, atomic_write
from privacy_studio.core.generalize import Traces, generalize
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project import sha256_of
from privacy_studio.core.release.judge import Policy, describe_failures, failing, judge
from privacy_studio.core.release.linkage import Linkage, link
from privacy_studio.core.release.manifest import Counts, InputFile, ReleaseManifest, manifest_path
from privacy_studio.core.release.measure import MeasureSettings, ReleaseFigures, measure, own_profile
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.release.pseudonyms import draw_pseudonyms
from privacy_studio.core.release.suppression import Removal, suppress
from privacy_studio.core.release.table import ReleaseRows, release_table
from privacy_studio.core.release.written import as_text, read_as_text, row_events, write_table
from privacy_studio.core.risk.catalogue import UNICITY
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.tradeoff.criteria import CriterionCheck

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project

SUFFIXES = (".csv", ".parquet")


@dataclass
class PreparedRelease:
    """A release ready to be written: its rows, the pseudonym mapping and the figures before and after."""

    options: ReleaseOptions
    tz: str
    before: Counts
    removed: list[Removal]
    released: Counts
    rows: ReleaseRows
    mapping: pa.Table  # original id -> pseudonym; written only on request, never into the release
    measured_before: ReleaseFigures  # the data at the profile, before suppression, as it would be written
    measured_after_step: list[ReleaseFigures]  # after each suppression step, aligned with ``removed``
    measured: ReleaseFigures  # the release as it will be written, every published column included
    settings: MeasureSettings
    result: ProfileResult | None  # the risk engine's result on the release as written
    policy: Policy
    checks: list[CriterionCheck]  # the project's release criteria applied to ``result``
    linkage: list[Linkage]  # the matching attack to each earlier release of the project

    @property
    def linked_too_far(self) -> list[Linkage]:
        """The earlier releases this one re-links more people to than the ceiling allows."""
        return [x for x in self.linkage if x.share is None or x.share > self.policy.criteria.ceiling]

    @property
    def passes(self) -> bool:
        """Whether the release as written meets every release criterion of the project, and links to no
        earlier release beyond the ceiling."""
        return bool(self.checks) and not failing(self.checks) and not self.linked_too_far

    def preview(self, n_rows: int = 20) -> tuple[list[str], list[list[str]]]:
        """Column names and the first ``n_rows`` rows as text, exactly as they will be written."""
        head = self.rows.table.slice(0, n_rows).to_pylist()
        columns = self.rows.table.column_names
        return columns, [["" if r[c] is None else str(r[c]) for c in columns] for r in head]


def _counts(traces_lengths: np.ndarray, counts: np.ndarray) -> Counts:
    return Counts(int((traces_lengths > 0).sum()), int(counts.sum()), len(counts))


def measure_written(
    text: pa.Table,
    tz: str,
    temporal: str,
    settings: MeasureSettings,
    control: TaskControl,
    owners: dict[str, str] | None = None,
) -> tuple[ReleaseFigures, ProfileResult | None]:
    """A release in its written text form, measured with every column but the pseudonym and time as place
    (and attribute disclosure of its people when ``owners`` maps written ids to input ids)."""
    return measure(row_events(text, tz), own_profile(temporal), None, settings, control, owners)


def _measure_rows(
    rows: ReleaseRows,
    tz: str,
    options: ReleaseOptions,
    settings: MeasureSettings,
    control: TaskControl,
    owners: dict[str, str] | None = None,
) -> tuple[ReleaseFigures, ProfileResult | None]:
    """Rows held in memory measured exactly as the written file will be."""
    return measure_written(as_text(rows.table), tz, options.temporal, settings, control, owners)


def _staged_figures(
    dataset: Dataset,
    options: ReleaseOptions,
    settings: MeasureSettings,
    stages: list[Traces],
    control: TaskControl,
) -> list[ReleaseFigures]:
    """Before and after each suppression step: the figures of the rows that would be written then (with
    the input ids, never written; only unicity and class sizes are kept for these)."""
    events, hierarchy = dataset.events, dataset.hierarchy
    figures_only = replace(settings, measures=(UNICITY,), sensitive=())
    share = 1.0 / len(stages)
    return [
        _measure_rows(
            release_table(events, hierarchy, stage, options, events.user_ids),
            events.tz,
            options,
            figures_only,
            control.sub(share * i, share * (i + 1), "before" if i == 0 else "after suppression"),
        )[0]
        for i, stage in enumerate(stages)
    ]


def _linkage(
    dataset: Dataset, options: ReleaseOptions, earlier: list[ReleaseManifest], control: TaskControl
) -> list[Linkage]:
    """The matching attack of this release to each earlier release of the same data."""
    return [
        link(
            dataset.events,
            dataset.hierarchy,
            options,
            m.options,
            (m.release_file, m.release_sha256),
            control.sub(i / len(earlier), (i + 1) / len(earlier)),
        )
        for i, m in enumerate(earlier)
    ]


def prepare_release(
    dataset: Dataset,
    options: ReleaseOptions,
    settings: MeasureSettings,
    control: TaskControl | None = None,
    policy: Policy | None = None,
    earlier: list[ReleaseManifest] | None = None,
) -> PreparedRelease:
    """Select the data at the profile, suppress, draw pseudonyms, measure the rows as they will be written,
    judge them by ``policy`` (default: unicity at p = 4 under 5 %) and run the matching attack to each
    ``earlier`` release of the same data; nothing is written."""
    control = as_control(control)
    options.validate()
    events, hierarchy, profile = dataset.events, dataset.hierarchy, options.profile
    control.report(0.0, f"generalizing to {profile.label}")
    try:
        traces = generalize(events, profile, hierarchy)
    except ValueError as exc:
        raise ReleaseError(f"profile {options.spatial}:{options.temporal}: {exc}") from None
    suppressed = suppress(traces, options, control.sub(0.05, 0.1))
    kept = suppressed.traces
    released_users = np.flatnonzero(kept.lengths() > 0)
    pseudonyms = draw_pseudonyms(len(released_users))
    pseudonym_of_user = np.full(events.n_users, "", dtype=pseudonyms.dtype)
    pseudonym_of_user[released_users] = pseudonyms
    control.report(0.15, "building the released rows")
    rows = release_table(events, hierarchy, kept, options, pseudonym_of_user)
    staged = _staged_figures(
        dataset, options, settings, [traces, *suppressed.after_step], control.sub(0.2, 0.8)
    )
    owners = dict(zip(pseudonyms.astype(str), events.user_ids[released_users].astype(str), strict=True))
    release_step = control.sub(0.8, 0.9, "release")
    measured, result = _measure_rows(rows, events.tz, options, settings, release_step, owners)
    policy = policy or Policy()
    linkage = _linkage(dataset, options, earlier or [], control.sub(0.9, 1.0, "earlier releases"))
    mapping = pa.table(
        {"original": events.user_ids[released_users].astype(object), "pseudonym": pseudonyms.astype(object)}
    )
    return PreparedRelease(
        options,
        events.tz,
        _counts(traces.lengths(), traces.counts),
        suppressed.removals,
        _counts(kept.lengths(), kept.counts),
        rows,
        mapping,
        staged[0],
        staged[1:],
        measured,
        settings,
        result,
        policy,
        judge(result, policy),
        linkage,
    )


def check_target(path: str | os.PathLike[str], overwrite: bool, what: str = "release") -> Path:
    """Refuse, before any work, an output the studio could not or should not write."""
    target = Path(path)
    folder = target.resolve().parent
    if not folder.is_dir():
        raise ReleaseError(f"cannot write the {what} {target}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ReleaseError(f"cannot write the {what} {target}: no permission to write in {folder}")
    if target.is_dir():
        raise ReleaseError(f"cannot write the {what} {target}: it is a folder")
    if target.exists() and not target.is_file():
        raise ReleaseError(
            f"cannot write the {what} {target}: a device or pipe, and the {what} is read back from a file"
        )
    if target.exists() and not overwrite:
        raise ReleaseError(f"{target} already exists: choose another name or allow overwriting (--overwrite)")
    return target


def check_release_name(path: str | os.PathLike[str]) -> None:
    if Path(path).suffix.lower() not in SUFFIXES:
        raise ReleaseError(f"{path}: the release file name must end in .csv or .parquet")


def read_back(path: Path, prepared: PreparedRelease, control: TaskControl, parquet: bool) -> ReleaseFigures:
    """Read a written release with the studio's reader (it must read every row and person), then measure
    its text with every published column."""
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset

    try:
        dataset = load_dataset(str(path), ReaderOptions(tz=prepared.tz, use_cache=False), control.sub(0, 0.3))
    except ReaderError as exc:
        raise ReleaseError(f"the written release could not be read back ({exc})") from None
    expected = prepared.rows.table.num_rows
    if dataset.events.n_events != expected:
        raise ReleaseError(f"the written release read back {dataset.events.n_events} rows of {expected}")
    if dataset.events.n_users != prepared.released.people:
        raise ReleaseError(
            f"the written release read back {dataset.events.n_users} people of {prepared.released.people}"
        )
    figures, _ = measure_written(
        read_as_text(path, parquet),
        prepared.tz,
        prepared.options.temporal,
        prepared.settings,
        control.sub(0.3, 1),
    )
    return figures


def project_kanon(project: Project, options: ReleaseOptions) -> dict | None:
    """The full-fingerprint k-anonymity the project measured at the release's profile, if it did."""
    for result in project.results:
        profile = (result.spatial, result.temporal, result.price or "none")
        if profile == (options.spatial, options.temporal, options.price):
            return result.kanon
    return None


class FailsCriteria(ReleaseError):
    """A release that fails the project's release criteria, asked for without a reason to accept the risk."""


def refusal(prepared: PreparedRelease, how: str = "state a reason for accepting the risk") -> str:
    """The one sentence saying which criteria the release fails as written, and the way out."""
    failures = describe_failures(prepared.checks) if prepared.checks else "no criterion could be checked"
    ceiling = 100 * prepared.policy.criteria.ceiling
    linked = [
        f"the linkage to {x.release_file} could not be measured ({x.note})"
        if x.share is None
        else f"{x.relinked:,} of the {x.in_both:,} people also in {x.release_file} ({100 * x.share:.1f} %) "
        f"are re-linked to it by the matching attack, over the ceiling of {ceiling:.1f} %"
        for x in prepared.linked_too_far
    ]
    failures = "; ".join(p for p in [describe_failures(prepared.checks), *linked] if p) or failures
    return (
        f"the release at {prepared.options.profile.label} fails the project's release criteria as written "
        f"({failures}); choose a coarser profile or more suppression, or {how}"
    )


def input_files(project: Project) -> list[InputFile]:
    """Every file the project reads (events, attributes, antennas, hierarchy, locations) with its SHA-256."""
    paths = [p for s in project.sources for p in (s.path, *s.aux_paths().values())]
    return [InputFile(Path(p).name, sha256_of(p)) for p in dict.fromkeys(paths)]


def write_release(
    prepared: PreparedRelease,
    out: str | os.PathLike[str],
    *,
    project: Project | None = None,
    mapping_out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    control: TaskControl | None = None,
    accept_risk: str | None = None,
) -> ReleaseManifest:
    """Write the release, prove it by reading it back, then the mapping (if asked) and the manifest. A
    release that fails the release criteria is refused (:class:`FailsCriteria`) unless ``accept_risk``
    gives the reason it is written anyway; the reason goes into the manifest."""
    control = as_control(control)
    if prepared.released.people == 0:
        raise ReleaseError("the chosen suppression removes everybody: there is nothing to release")
    reason = (accept_risk or "").strip() or None
    if not prepared.passes and reason is None:
        raise FailsCriteria(refusal(prepared))
    check_release_name(out)
    target = check_target(out, overwrite)
    manifest_file = check_target(manifest_path(target), overwrite, "manifest")
    if mapping_out is not None:
        check_target(mapping_out, overwrite, "pseudonym mapping")
        if Path(mapping_out).resolve() in (target.resolve(), manifest_file.resolve()):
            raise ReleaseError("the pseudonym mapping must go to a file of its own, not the release")
    proof: list[tuple[ReleaseFigures, str]] = []
    parquet = target.suffix.lower() == ".parquet"

    def closed_loop(written: Path) -> None:
        figures = read_back(written, prepared, control.sub(0.2, 1.0, "reading back"), parquet)
        if figures != prepared.measured:
            raise ReleaseError(
                "the written release does not measure as prepared; nothing was written (please report this)"
            )
        proof.append((figures, sha256_of(written)))

    try:
        control.report(0.0, f"writing {target.name}")
        with atomic_write(target, "wb", check=closed_loop) as fh:
            write_table(prepared.rows.table, fh, parquet)
            control.report(0.2, "written; reading it back")
        if mapping_out is not None:
            with atomic_write(mapping_out, "wb") as fh:
                pacsv.write_csv(prepared.mapping, fh)
    except WriteError as exc:
        raise ReleaseError(str(exc)) from None
    manifest = _manifest(prepared, target.name, proof[0], project, mapping_out is not None, reason)
    try:
        manifest.write(manifest_file)
    except WriteError as exc:
        raise ReleaseError(f"{exc}; the release {target} has no manifest, write it again") from None
    control.report(1.0, "release written")
    return manifest


def _manifest(
    prepared: PreparedRelease,
    name: str,
    proof: tuple[ReleaseFigures, str],
    project: Project | None,
    mapping_written: bool,
    reason: str | None,
) -> ReleaseManifest:
    """The manifest of a release written as ``name`` and measured back as ``proof`` (figures, SHA-256)."""
    measured_on_release, release_sha256 = proof
    return ReleaseManifest(
        release_file=name,
        release_sha256=release_sha256,
        release_rows=prepared.rows.table.num_rows,
        columns=prepared.rows.table.column_names,
        options=prepared.options,
        tz=prepared.tz,
        before=prepared.before,
        removed=prepared.removed,
        released=prepared.released,
        measured_on_release=measured_on_release,
        measured_before_suppression=prepared.measured_before,
        criteria=list(prepared.checks),
        linkage_to_earlier=list(prepared.linkage),
        accepted_risk=None if prepared.passes else reason,
        project_kanon=None if project is None else project_kanon(project, prepared.options),
        project_file=None if project is None or project.path is None else project.path.name,
        project_sha256=None if project is None or project.path is None else sha256_of(project.path),
        inputs=[] if project is None else input_files(project),
        mapping_written=mapping_written,
    )
