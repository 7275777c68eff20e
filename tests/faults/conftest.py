"""Shared pieces of the fault-injection suite: the outcome tally, a small valid dataset, a private cache."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.faults.harness import GOOD_OUTCOMES, Tally

TALLY = Tally()
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not TALLY.cases:
        return
    path = TALLY.write(ARTIFACTS)
    terminalreporter.write_sep("-", "fault injection")
    for name, count in TALLY.table().items():
        terminalreporter.write_line(f"{name:<20} {count}")
    for fault_class, table in TALLY.by_class().items():
        shown = ", ".join(f"{k} {v}" for k, v in table.items() if v)
        terminalreporter.write_line(f"  {fault_class}: {shown}")
    terminalreporter.write_line(f"(every case in {path})")


@pytest.fixture
def record(request: pytest.FixtureRequest):
    """Record the outcome of this case under its test id and fail unless it is a clear error or worked."""

    def check(outcome: str, detail: str = "") -> None:
        fault_class = request.node.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
        TALLY.record(request.node.nodeid.split("::", 1)[1], outcome, fault_class)
        assert outcome in GOOD_OUTCOMES, f"{outcome}: {detail}"

    return check


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(cache))
    return cache


def write_events(path: Path, users: int = 12, events: int = 15, seed: int = 3) -> Path:
    """A small valid events file: user,time,location with times in March 2024."""
    rng = random.Random(seed)
    rows = ["user,time,location"]
    for u in range(users):
        for _ in range(events):
            rows.append(
                f"u{u},2024-03-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:00:00,L{rng.randint(0, 7)}"
            )
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def events_csv(tmp_path: Path) -> Path:
    return write_events(tmp_path / "events.csv")
