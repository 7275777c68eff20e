"""A small project the tests open as if its data exceeded memory (``PRIVACY_STUDIO_DATA_SIZE=larger``)."""

from __future__ import annotations

from pathlib import Path

import privacy_studio.core.io as core_io
import privacy_studio.core.io.load as io_load
from privacy_studio.core.overview.project_data import SIZE_ENV
from privacy_studio.core.project import Project
from privacy_studio.core.risk.settings import RiskSettings

#: One coarse profile and two p: enough to go through every step quickly.
SETTINGS = RiskSettings(
    spatial=["district"],
    temporal=["1w"],
    cells=[("district", "1w")],
    p_values=[1, 2],
    reference_p=2,
    em_samples=200,
)


def large_project(folder: Path, events: Path, antennas: Path, hierarchy: Path) -> Path:
    """A saved project on ``--engine auto`` over ``events`` (Europe/Paris times, antennas, hierarchy)."""
    project = Project(name="large", settings=SETTINGS.to_dict())
    project.engine = {**project.engine, "name": "auto"}
    reader = {"tz": "Europe/Paris", "antennas": str(antennas), "hierarchy": str(hierarchy)}
    project.add_source(events, reader)
    return project.save(folder / "large.psproj")


def forced_large(sample_subset: dict[str, Path], folder: Path, monkeypatch) -> tuple[Path, list[str]]:
    """A project on the sample subset that opens as larger than memory (its cache in ``folder``), and the
    list of files the in-memory reader is asked to read from now on (a test asserts it stays empty)."""
    monkeypatch.setenv(SIZE_ENV, "larger")
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(folder / "cache"))
    loaded: list[str] = []
    real = io_load.load_dataset

    def spy(path, *args, **kwargs):
        loaded.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(io_load, "load_dataset", spy)
    monkeypatch.setattr(core_io, "load_dataset", spy, raising=False)
    events = sample_subset["events"]
    return large_project(folder, events, sample_subset["antennas"], sample_subset["hierarchy"]), loaded
