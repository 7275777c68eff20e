"""DuckDB under a memory limit several times below the input's size spills to its temp folder and still
returns the in-memory engine's numbers."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import comparable

LIMIT_MB = 48


def write_events(path, n_events: int, seed: int = 0) -> None:
    """A skewed city: 40k subscribers with 32-hex-digit ids, 1500 antennas with Zipf popularity, 30 days,
    ISO times (~70 bytes a row)."""
    rng = np.random.default_rng(seed)
    ids = np.asarray([rng.bytes(16).hex() for _ in range(40_000)])  # pseudonyms as hex digests
    user = rng.integers(0, 40_000, n_events)
    when = 1_700_000_000 + rng.integers(0, 30 * 86400, n_events)
    where = rng.zipf(1.3, n_events) % 1500
    table = pa.table(
        {
            "user": pa.array(ids[user]),
            "time": pa.compute.strftime(
                pa.array(when * 1_000_000, pa.timestamp("us", tz="UTC")), format="%Y-%m-%dT%H:%M:%SZ"
            ),
            "location": pa.array([f"antenna-{x:05d}" for x in where]),
        }
    )
    pacsv.write_csv(table, path)


@pytest.mark.slow
def test_duckdb_spills_under_a_small_memory_limit_with_the_same_numbers(tmp_path):
    data, spill = tmp_path / "events.csv", tmp_path / "spill"
    write_events(data, 2_200_000)
    assert os.path.getsize(data) > 3 * LIMIT_MB * 2**20
    risk = RiskSettings(
        exact_budget=0,
        spatial=["raw"],
        temporal=["1d"],
        samples=1000,
        p_values=[1, 2, 4],
        draws=1,
        measures=["unicity", "kdisc", "kanon", "worst"],
    )
    options = ReaderOptions(use_cache=False)
    expected = [comparable(r) for r in run_grid(load_dataset(str(data), options), risk)]
    spilled: set[str] = set()

    def look(fraction: float, message: str) -> None:
        spilled.update(f for _, _, files in os.walk(spill) for f in files if f.endswith(".tmp"))

    with open_engine("duckdb", memory_limit=f"{LIMIT_MB}MB", temp_dir=str(spill), threads=1) as engine:
        assert engine.execute("SELECT current_setting('memory_limit') AS m").column("m")[0].as_py()
        got = [
            comparable(r) for r in engine.run_grid(EventFiles(str(data), options), risk, TaskControl(look))
        ]
    assert got == expected
    assert spilled, "DuckDB never wrote to its temp folder: the test data fit in memory"
