"""A small project the tests open as if its data exceeded memory (``PRIVACY_STUDIO_DATA_SIZE=larger``)."""

from __future__ import annotations

from pathlib import Path

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
