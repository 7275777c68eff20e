"""Prepare an aggregate (bound, count, add OpenDP's noise; nothing written) and write it with its manifest.

The file holds one row per cell of the profile's full grid, empty cells included: leaving out a cell
because nobody is in it would tell who is not there, which the noise does not cover.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from privacy_studio.core.aggregate.cells import BoundedCounts, CellGrid, bounded_counts, contributions
from privacy_studio.core.aggregate.figures import AggregateFigures
from privacy_studio.core.aggregate.footing import score_vs_finest
from privacy_studio.core.aggregate.manifest import AggregateManifest, CellsInfo, privacy_spent
from privacy_studio.core.aggregate.noise import Mechanism, add_noise, calibrate, post_process
from privacy_studio.core.aggregate.options import AggregateError, AggregateOptions
from privacy_studio.core.atomic import WriteError, atomic_write
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project import sha256_of
from privacy_studio.core.release.export import check_target
from privacy_studio.core.release.manifest import InputFile, manifest_path
from privacy_studio.core.release.options import ReleaseError
from privacy_studio.core.release.table import bin_starts
from privacy_studio.core.risk.settings import RiskSettings

if TYPE_CHECKING:
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project

#: The column holding each cell's released count of people.
VALUE_COLUMN = "people"


@dataclass
class PreparedAggregate:
    """An aggregate ready to be written: the noisy cells as rows, the mechanism and the figures."""

    options: AggregateOptions
    tz: str
    grid: CellGrid
    counts: BoundedCounts
    mechanism: Mechanism
    released: np.ndarray  # per cell (cell order), after clamping at 0
    table: pa.Table  # the rows as they will be written
    figures: AggregateFigures
    cells: CellsInfo

    def preview(self, n_rows: int = 20) -> tuple[list[str], list[list[str]]]:
        """Column names and the first ``n_rows`` rows as text, exactly as they will be written."""
        columns = self.table.column_names
        head = self.table.slice(0, n_rows).to_pylist()
        return columns, [[str(r[c]) for c in columns] for r in head]


def _places_from(options: AggregateOptions) -> str:
    """Where the list of places comes from, in words (the guarantee does not cover it)."""
    level = options.profile.spatial
    if level.kind == "level":
        return f"the units of level {level.name} in the hierarchy file"
    if level.kind == "grid":
        return f"the {level.km:g} km grid cells holding a known place or an event of the input"
    return "the places of the input (its location ids, or its distinct coordinates)"


def cell_table(grid: CellGrid, released: np.ndarray, tz: str) -> pa.Table:
    """One row per cell, ordered by time then place: time bin start, place (or origin and destination),
    people."""
    cell = np.arange(grid.n_cells, dtype=np.int64)
    pair, time_bin = cell // grid.n_bins, cell % grid.n_bins
    order = np.lexsort((pair, time_bin))
    texts, _ = bin_starts(grid.origin, grid.seconds, time_bin[order], tz)
    ids = np.asarray(grid.unit_ids, dtype=object)
    columns: dict[str, pa.Array] = {"time": pa.array(texts, type=pa.string())}
    if grid.kind == "density":
        columns["location"] = pa.array(ids[pair[order]], type=pa.string())
    else:
        columns["origin"] = pa.array(ids[pair[order] // grid.n_units], type=pa.string())
        columns["destination"] = pa.array(ids[pair[order] % grid.n_units], type=pa.string())
    columns[VALUE_COLUMN] = pa.array(released[order], type=pa.int64())
    return pa.table(columns)


def _period(grid: CellGrid, tz: str) -> str:
    first_last = np.asarray([0, grid.n_bins - 1], dtype=np.int64)
    texts, _ = bin_starts(grid.origin, grid.seconds, first_last, tz)
    return f"{texts[0]} to {texts[1]}"


def grid_profiles(project: Project) -> list[Profile]:
    """The profiles of the project's risk grid (none when it has no grid yet)."""

    try:
        return RiskSettings.from_dict(project.settings).profiles()
    except (ValueError, TypeError, KeyError):
        return []


def prepare_aggregate(
    dataset: Dataset,
    options: AggregateOptions,
    control: TaskControl | None = None,
    profiles: list[Profile] | None = None,
) -> PreparedAggregate:
    """Bound each person's contributions, count, add OpenDP's noise, clamp and measure; nothing is written.

    ``profiles``: the project's grid, so the density map is also scored against the finest of them.
    """
    control = as_control(control)
    options.validate()
    events = dataset.events
    if events.n_events == 0:
        raise AggregateError("the data has no events: there is nothing to aggregate")
    control.report(0.0, f"counting {options.kind} at {options.profile.label}")
    try:
        grid, rows = contributions(events, options.spatial, options.temporal, options.kind, dataset.hierarchy)
    except (ValueError, ReleaseError) as exc:
        raise AggregateError(f"profile {options.spatial}:{options.temporal}: {exc}") from None
    counts = bounded_counts(rows, grid.n_cells, options.max_points_per_person)
    control.report(0.2, "calibrating the noise with OpenDP")
    mechanism = calibrate(options.epsilon, options.delta, options.max_points_per_person)
    control.report(0.3, f"adding noise to {grid.n_cells:,} cells")
    released = post_process(add_noise(counts.bounded, mechanism))
    control.report(0.7, "building the rows")
    table = cell_table(grid, released, events.tz)
    cells = CellsInfo(
        grid.n_units, grid.n_bins, grid.n_cells, _places_from(options), _period(grid, events.tz)
    )
    control.report(0.8, "scoring the density map against the finest profile")
    finest = score_vs_finest(events, dataset.hierarchy, profiles or [], options.profile, grid, released)
    figures = AggregateFigures.measure(options.kind, counts, released, finest)
    control.report(1.0, "aggregate ready")
    return PreparedAggregate(options, events.tz, grid, counts, mechanism, released, table, figures, cells)


def check_aggregate_targets(out: str | os.PathLike[str], overwrite: bool) -> tuple[Path, Path]:
    """The file and its manifest, refused before any work if they cannot or should not be written."""
    if Path(out).suffix.lower() != ".csv":
        raise AggregateError(f"{out}: the aggregate file name must end in .csv")
    try:
        return check_target(out, overwrite, "aggregate"), check_target(
            manifest_path(out), overwrite, "manifest"
        )
    except ReleaseError as exc:
        raise AggregateError(str(exc)) from None


def write_aggregate(
    prepared: PreparedAggregate,
    out: str | os.PathLike[str],
    *,
    project: Project | None = None,
    overwrite: bool = False,
    control: TaskControl | None = None,
    budget: float | None = None,
) -> AggregateManifest:
    """Write the cells (read back and compared before the file gets its name), then the manifest, which
    records what the project's earlier releases had spent (and ``budget``, the ε they are all held to)."""
    control = as_control(control)
    target, manifest_file = check_aggregate_targets(out, overwrite)
    digest: list[str] = []

    def same_as_prepared(written: Path) -> None:
        back = pacsv.read_csv(written, convert_options=pacsv.ConvertOptions(column_types=_types(prepared)))
        if not back.equals(prepared.table):
            raise AggregateError("the written aggregate does not read back as prepared; nothing was written")
        digest.append(sha256_of(written))

    try:
        control.report(0.0, f"writing {target.name}")
        with atomic_write(target, "wb", check=same_as_prepared) as fh:
            pacsv.write_csv(prepared.table, fh, pacsv.WriteOptions(quoting_style="needed"))
    except WriteError as exc:
        raise AggregateError(str(exc)) from None
    manifest = AggregateManifest(
        file=target.name,
        sha256=digest[0],
        rows=prepared.table.num_rows,
        columns=prepared.table.column_names,
        options=prepared.options,
        tz=prepared.tz,
        cells=prepared.cells,
        mechanism=prepared.mechanism,
        not_private=prepared.figures,
        project_file=None if project is None or project.path is None else str(project.path),
        project_sha256=None if project is None or project.path is None else sha256_of(project.path),
        inputs=[] if project is None else [InputFile(s.path, sha256_of(s.path)) for s in project.sources],
        before=None if project is None else privacy_spent(project.analyses),
        budget=budget,
    )
    try:
        manifest.write(manifest_file)
    except WriteError as exc:
        raise AggregateError(f"{exc}; the aggregate {target} has no manifest, write it again") from None
    control.report(1.0, "aggregate written")
    return manifest


def _types(prepared: PreparedAggregate) -> dict[str, pa.DataType]:
    return {f.name: f.type for f in prepared.table.schema}
