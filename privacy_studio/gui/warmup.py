"""Compile the risk kernels at start-up on a tiny made-up dataset, so the user's first run is not frozen."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import Dataset, ReaderOptions
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.catalogue import MEASURE_NAMES
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid

USERS, EVENTS_PER_USER = 12, 8


def tiny_dataset() -> Dataset:
    """A dozen users with a few events at a few locations: enough to go through every kernel."""
    rng = np.random.default_rng(0)
    n = USERS * EVENTS_PER_USER
    user = np.repeat(np.arange(USERS), EVENTS_PER_USER)
    time = 1_700_000_000 + rng.integers(0, 7 * 86400, n)
    location = rng.integers(0, 5, n)
    events = build_event_table(user, time, location)
    return Dataset(events, None, ImportReport("warm-up", n, n), [], ReaderOptions())


def warm_up_kernels(control: TaskControl | None = None) -> int:
    """Run a small grid with every measure once (kernels load from the numba cache or compile now)."""
    settings = RiskSettings(
        spatial=["raw"],
        temporal=["1h", "all"],
        p_values=[1, 2],
        measures=list(MEASURE_NAMES),
        samples=USERS,
    )
    return sum(1 for _ in run_grid(tiny_dataset(), settings, control=control))
