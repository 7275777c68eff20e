"""Small datasets for the aggregate tests, and a private copy of the sample project."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import Dataset, ReaderOptions
from privacy_studio.core.io.report import ImportReport

TZ = "Europe/Paris"
START = int(datetime(2024, 3, 29, tzinfo=UTC).timestamp())  # the period crosses the change to summer time
SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def dataset_of(rows: list[tuple[str, int, str]], tz: str = TZ) -> Dataset:
    """A dataset of (user, utc seconds, place id) events, places as raw units."""
    users, times, places = zip(*rows, strict=True)
    events = build_event_table(np.asarray(users), np.asarray(times), np.asarray(places), tz=tz)
    return Dataset(events, None, ImportReport("test"), [], ReaderOptions(tz=tz))


@pytest.fixture
def sample_project(tmp_path) -> Path:
    if not (SAMPLE / "events.csv").exists():
        pytest.skip("sample_data/events.csv is missing")
    for name in ("sample.psproj", "events.csv", "antennas.csv", "hierarchy.csv", "attributes.csv"):
        shutil.copy(SAMPLE / name, tmp_path / name)
    return tmp_path / "sample.psproj"
