"""A private copy of the sample city's project (the release records itself in the project file)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def _copy_sample(folder: Path) -> Path:
    if not (SAMPLE / "events.csv").exists():
        pytest.skip("sample_data/events.csv is missing")
    for name in ("sample.psproj", "events.csv", "antennas.csv", "hierarchy.csv", "attributes.csv"):
        shutil.copy(SAMPLE / name, folder / name)
    return folder / "sample.psproj"


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory) -> Path:
    return _copy_sample(tmp_path_factory.mktemp("sample"))


@pytest.fixture
def fresh_project(tmp_path) -> Path:
    """A copy of its own, with no earlier release (each release is linked to the project's earlier ones)."""
    return _copy_sample(tmp_path)
