"""What the relational engines cannot do is refused with one clear ValueError, before any heavy work."""

from __future__ import annotations

from pathlib import Path

import pytest

from privacy_studio.core.engines import ENGINES, EventFiles, open_engine, resolve_engine
from privacy_studio.core.io import ReaderOptions
from privacy_studio.core.risk.settings import RiskSettings

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
EVENTS = str(SAMPLE / "events.csv")


def run(source, **kw) -> None:
    risk = RiskSettings(spatial=["raw"], temporal=["1h"], samples=50, **kw)
    with open_engine("duckdb") as engine:
        list(engine.run_grid(source, risk))


@pytest.mark.parametrize(
    ("source", "settings", "message"),
    [
        (EventFiles(EVENTS, ReaderOptions(mapping={"user": "nope"})), {}, "nope"),
        (EventFiles(EVENTS, ReaderOptions(dayfirst=True)), {}, "numba engine only"),
        (EventFiles(EVENTS, ReaderOptions(format="sessions")), {}, "numba engine only"),
        (EventFiles(str(SAMPLE)), {}, "numba engine only"),
        (EventFiles(str(SAMPLE / "missing.csv")), {}, "not found"),
        (EventFiles(EVENTS), {"knowledge": f"explicit:{SAMPLE / 'events.csv'}"}, "numba engine only"),
        (EventFiles(EVENTS), {"exact": True}, "numba engine only"),
        (EventFiles(EVENTS), {"spatial": ["district"]}, "hierarchy"),
        (EventFiles(EVENTS), {"spatial": ["grid:x"]}, "grid size"),
    ],
)
def test_unsupported_input_is_one_clear_error(source, settings, message):
    risk = {"spatial": ["raw"], "temporal": ["1h"], "samples": 50, **settings}
    with pytest.raises(ValueError, match=message), open_engine("duckdb") as engine:
        list(engine.run_grid(source, RiskSettings(**risk)))


def test_engine_names_and_flags_are_checked():
    assert ENGINES == ("numba", "duckdb", "spark")
    with pytest.raises(ValueError, match="unknown engine"):
        open_engine("postgres")
    with pytest.raises(ValueError, match="memory limit"):
        open_engine("duckdb", memory_limit="lots")
    assert resolve_engine("duckdb", [EVENTS]) == "duckdb"
    assert resolve_engine("auto", [EVENTS], ReaderOptions()) == "numba"  # 4 MB fits anywhere


def test_auto_picks_duckdb_when_the_input_would_not_fit(monkeypatch):
    from privacy_studio.core.engines import auto

    monkeypatch.setattr(auto, "available_memory", lambda: 1_000_000)
    assert resolve_engine("auto", EVENTS) == "duckdb"
    assert resolve_engine("auto", str(SAMPLE)) == "numba"  # a folder: only the in-memory reader reads it
    monkeypatch.setattr(auto, "available_memory", lambda: None)
    assert resolve_engine("auto", EVENTS) == "numba"
