"""Prepare a release (select, suppress, pseudonymize, measure in memory) and write it with its closed loop.

``write_release`` writes the rows to a temporary file beside the target, reads that file back with the
studio's reader and measures it; only when the figures equal those of the prepared release does the file
get its final name, and the manifest is written beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from privacy_studio.core.atomic import WriteError, atomic_write
from privacy_studio.core.generalize import generalize
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project import sha256_of
from privacy_studio.core.release.manifest import Counts, InputFile, ReleaseManifest, manifest_path
from privacy_studio.core.release.measure import (
    MeasureSettings,
    ReleaseFigures,
    measure,
    own_profile,
    table_events,
)
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.release.pseudonyms import draw_pseudonyms
from privacy_studio.core.release.suppression import Removal, suppress
from privacy_studio.core.release.table import ReleaseRows, release_table

if TYPE_CHECKING:
    from privacy_studio.core.events import EventTable
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
    measured_before: ReleaseFigures  # the data at the profile, before suppression
    measured_after_step: list[ReleaseFigures]  # after each suppression step, aligned with ``removed``
    measured: ReleaseFigures  # the release as held in memory, at its own granularity
    settings: MeasureSettings

    def preview(self, n_rows: int = 20) -> tuple[list[str], list[list[str]]]:
        """Column names and the first ``n_rows`` rows as text, exactly as they will be written."""
        head = self.rows.table.slice(0, n_rows).to_pylist()
        columns = self.rows.table.column_names
        return columns, [["" if r[c] is None else str(r[c]) for c in columns] for r in head]


def _counts(traces_lengths: np.ndarray, counts: np.ndarray) -> Counts:
    return Counts(int((traces_lengths > 0).sum()), int(counts.sum()), len(counts))


def _measure_rows(
    rows: ReleaseRows,
    dataset: Dataset,
    options: ReleaseOptions,
    settings: MeasureSettings,
    control: TaskControl,
) -> ReleaseFigures:
    """Rows held in memory measured at their own granularity, as the written file will be read back."""
    events = table_events(rows.table, rows.utc, dataset.events.tz)
    return measure(events, own_profile(options.temporal), None, settings, control)


def prepare_release(
    dataset: Dataset,
    options: ReleaseOptions,
    settings: MeasureSettings,
    control: TaskControl | None = None,
) -> PreparedRelease:
    """Select the data at the profile, suppress, draw pseudonyms and measure; nothing is written."""
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
    measured_before = measure(events, profile, hierarchy, settings, control.sub(0.2, 0.4, "before"))
    # After each step, its traces as a release of one row per point (input ids: never written).
    as_points = replace(options, rows="points", columns=[], centres=False)
    n_steps = len(suppressed.after_step)
    after_step = [
        _measure_rows(
            release_table(events, hierarchy, step_traces, as_points, events.user_ids),
            dataset,
            options,
            settings,
            control.sub(0.4 + 0.4 * i / n_steps, 0.4 + 0.4 * (i + 1) / n_steps, "after suppression"),
        )
        for i, step_traces in enumerate(suppressed.after_step)
    ]
    measured = _measure_rows(rows, dataset, options, settings, control.sub(0.8, 1.0, "release"))
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
        measured_before,
        after_step,
        measured,
        settings,
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


def _write_table(table: pa.Table, fh, parquet: bool) -> None:
    if parquet:
        pq.write_table(table, fh)
    else:
        pacsv.write_csv(table, fh, pacsv.WriteOptions(quoting_style="needed"))


def read_back(path: Path, prepared: PreparedRelease, control: TaskControl) -> ReleaseFigures:
    """Read a written release with the studio's reader and measure it at its own granularity."""
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset

    try:
        dataset = load_dataset(str(path), ReaderOptions(tz=prepared.tz, use_cache=False), control.sub(0, 0.3))
    except ReaderError as exc:
        raise ReleaseError(f"the written release could not be read back ({exc})") from None
    expected = prepared.rows.table.num_rows
    if dataset.events.n_events != expected:
        raise ReleaseError(f"the written release read back {dataset.events.n_events} rows of {expected}")
    events = dataset.events
    if prepared.options.profile.price is not None:  # the reader has no role for an amount range
        events = _ranged_events(path, prepared.tz)
    return measure(
        events, own_profile(prepared.options.temporal), None, prepared.settings, control.sub(0.3, 1)
    )


def _ranged_events(path: Path, tz: str) -> EventTable:
    """A written release whose amount is a range, read as text, its times from their ISO offsets."""
    if path.suffix.lower() == ".parquet":
        table = pq.read_table(path)
    else:
        text = dict.fromkeys(("user", "time", "location", "amount"), pa.string())
        table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=text))
    utc = pc.cast(table.column("time"), pa.timestamp("s", tz="UTC")).cast(pa.int64()).to_numpy()
    return table_events(table, utc, tz)


def project_kanon(project: Project, options: ReleaseOptions) -> dict | None:
    """The full-fingerprint k-anonymity the project measured at the release's profile, if it did."""
    for result in project.results:
        profile = (result.get("spatial"), result.get("temporal"), result.get("price") or "none")
        if profile == (options.spatial, options.temporal, options.price):
            return result.get("kanon")
    return None


def write_release(
    prepared: PreparedRelease,
    out: str | os.PathLike[str],
    *,
    project: Project | None = None,
    mapping_out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    control: TaskControl | None = None,
) -> ReleaseManifest:
    """Write the release, prove it by reading it back, then the mapping (if asked) and the manifest."""
    control = as_control(control)
    if prepared.released.people == 0:
        raise ReleaseError("the chosen suppression removes everybody: there is nothing to release")
    check_release_name(out)
    target = check_target(out, overwrite)
    manifest_file = check_target(manifest_path(target), overwrite, "manifest")
    if mapping_out is not None:
        check_target(mapping_out, overwrite, "pseudonym mapping")
        if Path(mapping_out).resolve() in (target.resolve(), manifest_file.resolve()):
            raise ReleaseError("the pseudonym mapping must go to a file of its own, not the release")
    proof: list[tuple[ReleaseFigures, str]] = []

    def closed_loop(written: Path) -> None:
        figures = read_back(written, prepared, control.sub(0.2, 1.0, "reading back"))
        if figures != prepared.measured:
            raise ReleaseError(
                "the written release does not measure as prepared; nothing was written (please report this)"
            )
        proof.append((figures, sha256_of(written)))

    try:
        control.report(0.0, f"writing {target.name}")
        with atomic_write(target, "wb", check=closed_loop) as fh:
            _write_table(prepared.rows.table, fh, target.suffix.lower() == ".parquet")
            control.report(0.2, "written; reading it back")
        if mapping_out is not None:
            with atomic_write(mapping_out, "wb") as fh:
                pacsv.write_csv(prepared.mapping, fh)
    except WriteError as exc:
        raise ReleaseError(str(exc)) from None
    measured_on_release, release_sha256 = proof[0]
    manifest = ReleaseManifest(
        release_file=target.name,
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
        project_kanon=None if project is None else project_kanon(project, prepared.options),
        project_file=None if project is None or project.path is None else str(project.path),
        project_sha256=None if project is None or project.path is None else sha256_of(project.path),
        inputs=[] if project is None else [InputFile(s.path, sha256_of(s.path)) for s in project.sources],
        mapping_file=None if mapping_out is None else str(mapping_out),
    )
    try:
        manifest.write(manifest_file)
    except WriteError as exc:
        raise ReleaseError(f"{exc}; the release {target} has no manifest, write it again") from None
    control.report(1.0, "release written")
    return manifest
