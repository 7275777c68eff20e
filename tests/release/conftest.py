"""A private copy of the sample city's project (the release records itself in the project file)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture(scope="module")
def sample_project(tmp_path_factory) -> Path:
    if not (SAMPLE / "events.csv").exists():
        pytest.skip("sample_data/events.csv is missing")
    folder = tmp_path_factory.mktemp("sample")
    for name in ("sample.psproj", "events.csv", "antennas.csv", "hierarchy.csv", "attributes.csv"):
        shutil.copy(SAMPLE / name, folder / name)
    return folder / "sample.psproj"
