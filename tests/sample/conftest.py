"""Small generated cities shared by the sample tests (generated once per session: a second or two)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest

from privacy_studio.core.sample import CityPaths, SimulatedCity, generate_city, simulate_city

SMALL = {"n_users": 240, "days": 14, "seed": 5}


@pytest.fixture(scope="session")
def small_params() -> dict[str, int]:
    """Parameters of ``small_city``."""
    return dict(SMALL)


@pytest.fixture(scope="session")
def small_city(tmp_path_factory: pytest.TempPathFactory) -> CityPaths:
    """A city written to disk with the per-user CDR layout."""
    out = tmp_path_factory.mktemp("city") / "out"
    return generate_city(SMALL["n_users"], SMALL["days"], SMALL["seed"], out)


@pytest.fixture(scope="session")
def behaviour_city() -> SimulatedCity:
    """A city big enough for statistical checks of behaviour, kept in memory."""
    return simulate_city(3000, 28, 11, periods=2)


def _read_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="session")
def read_rows() -> Callable[[Path], list[dict[str, str]]]:
    """Rows of a CSV file as dicts of strings, read with the plain csv module (the reference reader)."""
    return _read_rows
