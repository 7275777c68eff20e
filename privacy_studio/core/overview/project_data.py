"""A project's data as the window and the commands open it: the events in memory when they fit, else only
the overview the DuckDB engine computes (cached) — decided by the sizing ``--engine auto`` uses."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from privacy_studio.core.io.overview import DatasetOverview
from privacy_studio.core.overview.compute import overview_of_dataset, overview_of_files
from privacy_studio.core.overview.store import cached_overview, overview_key, store_overview
from privacy_studio.core.progress import TaskControl, as_control

if TYPE_CHECKING:
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project

#: Overrides the sizing: ``larger`` opens every project DuckDB can read from its overview (tests, trials),
#: ``fits`` loads every project's events; unset or ``auto``: the sizing of ``--engine auto`` decides.
SIZE_ENV = "PRIVACY_STUDIO_DATA_SIZE"
SIZE_CHOICES = ("auto", "larger", "fits")

#: Peak bytes per event of the events loaded as a ``Dataset`` and a grid run on them in the window: the
#: 3M-person month (126,397,966 events) peaked at 11.66 GiB in ``benchmarks/bench_big_window.py``
#: (9.43 GiB once opened; 2026-11-27), 99 bytes an event; a 10M month (~42 GB) must open from its overview.
DATASET_BYTES_PER_EVENT = 100

#: What the window and the report say of an analysis that needs every event in memory.
NEEDS_MEMORY = (
    "needs the events in memory, and this project's data exceed the memory: it runs on data that fit "
    "(or choose the numba engine to load them anyway)"
)


@dataclass
class ProjectData:
    """The project's events (None when they exceed memory) and their overview (always)."""

    dataset: Dataset | None
    overview: DatasetOverview

    @property
    def in_memory(self) -> bool:
        return self.dataset is not None


def exceeds_memory(files: EventFiles, engine: EngineChoice) -> bool:
    """Whether the project opens from its overview: its engine is not numba (a choice to hold the events),
    DuckDB reads the input, and ``--engine auto`` would not load it in memory (or :data:`SIZE_ENV` says)."""
    from privacy_studio.core.engines.auto import duckdb_reads, resolve_engine

    forced = os.environ.get(SIZE_ENV, "auto").strip().lower() or "auto"
    if forced not in SIZE_CHOICES:
        raise ValueError(f"{SIZE_ENV}={forced!r}: use one of {', '.join(SIZE_CHOICES)}")
    if engine.name == "numba" or forced == "fits" or not duckdb_reads(files.path, files.options):
        return False
    if forced == "larger" or resolve_engine("auto", [files.path], files.options) != "numba":
        return True
    return not dataset_fits(files)


def dataset_fits(files: EventFiles) -> bool:
    """Whether the events loaded as a ``Dataset`` (what the window, ``report`` and ``tradeoff`` hold) and a
    grid run on them fit in the memory available: they take about :data:`DATASET_BYTES_PER_EVENT`, nearly
    three times the compact columns ``--engine auto`` sizes for its own run, plus the further numbers per
    event that sizing counts (the file's own coordinates, amounts, durations)."""
    from privacy_studio.core.engines.auto import (
        BYTES_PER_EVENT,
        USABLE_SHARE,
        available_memory,
        estimated_memory,
        input_rows,
    )

    available = available_memory()
    compact = estimated_memory([files.path], files.options)  # auto's columns, further numbers, fixed part
    need = compact + input_rows(files.path) * (DATASET_BYTES_PER_EVENT - BYTES_PER_EVENT)
    return available is None or need <= USABLE_SHARE * available


def run_engine(engine: EngineChoice, data: ProjectData) -> EngineChoice:
    """The engine a grid runs on: ``auto`` on data that exceed memory is DuckDB (whatever the sizing
    override), so the run never loads the events the window did not."""
    return replace(engine, name="duckdb") if not data.in_memory and engine.name == "auto" else engine


def files_overview(
    files: EventFiles, engine: EngineChoice | None = None, control: TaskControl | None = None
) -> DatasetOverview:
    """The overview of ``files``: from the cache when a checked entry is there, else computed and kept."""
    key = overview_key(files.path, files.options)
    found = cached_overview(key)
    if found is not None:
        as_control(control).report(1.0, "overview re-opened from the cache")
        return found
    overview = overview_of_files(files, engine, control)
    store_overview(key, overview)
    return overview


def open_project_data(
    project: Project, control: TaskControl | None = None, changed_ok: bool = False
) -> ProjectData:
    """Read the project's events when they fit, else compute (or re-open) only their overview; a clear
    error when files are missing or, unless ``changed_ok``, changed since the project measured them."""
    files = project.events_files()
    engine = project.engine_choice()
    if not exceeds_memory(files, engine):
        dataset = project.load_dataset(control, changed_ok=changed_ok)
        return ProjectData(dataset, overview_of_dataset(dataset))
    if not changed_ok:
        project.check_unchanged()
    return ProjectData(None, files_overview(files, engine, control))
