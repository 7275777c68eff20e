"""Cancelling a relational run stops it between stages and interrupts a running query."""

from __future__ import annotations

import threading
import time

import pytest

from privacy_studio.core.engines import open_engine
from privacy_studio.core.engines.relational import _Watch
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.risk.settings import RiskSettings
from tests.engines.helpers import DatasetOf, random_city


def test_cancel_between_stages_stops_the_grid():
    events, hierarchy = random_city(1, 100, 8, mean_events=5.0)
    risk = RiskSettings(spatial=["raw", "zone"], temporal=["1h"], samples=50)
    seen: list[str] = []
    control = TaskControl(lambda f, m: seen.append(m))

    def cancel_once_generalizing(fraction: float, message: str) -> None:
        seen.append(message)
        if "generalizing" in message:
            control.cancel()

    control = TaskControl(cancel_once_generalizing)
    with open_engine("duckdb") as engine, pytest.raises(Cancelled):
        list(engine.run_grid(DatasetOf(events, hierarchy), risk, control))
    assert not any("zone" in m for m in seen)  # the second profile never started


def test_a_running_query_is_interrupted():
    control = TaskControl()
    slow = "SELECT count(*) AS n FROM range(100000000000) a WHERE a.range % 7 = 3"
    with open_engine("duckdb", threads=1) as engine:
        threading.Timer(0.3, control.cancel).start()
        start = time.perf_counter()
        with pytest.raises(Cancelled), _Watch(engine, control):
            engine.execute(slow)
        assert time.perf_counter() - start < 10
        assert engine.execute("SELECT 1 AS one").column("one")[0].as_py() == 1  # still usable
