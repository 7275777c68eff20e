"""DuckDB's own limits: half the available memory by default, spills in the cache folder, threads that fit
the pool, and a run its estimate says cannot finish refused in one sentence before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest

from privacy_studio.core.engines import EventFiles, duckdb_engine, open_engine
from privacy_studio.core.engines.memory import memory_bytes
from privacy_studio.core.io import ReaderOptions
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.settings import RiskSettings

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
Usage = namedtuple("Usage", "total used free")


def setting(engine, name: str) -> str:
    return engine.execute(f"SELECT current_setting('{name}') AS v").column("v")[0].as_py()


def pool_of(engine) -> int:
    return memory_bytes(setting(engine, "memory_limit").replace(" ", ""))


def test_without_a_limit_duckdb_takes_half_the_available_memory_less_the_reserve(monkeypatch):
    monkeypatch.setattr(duckdb_engine, "available_memory", lambda: 16 * 10**9)
    with open_engine("duckdb") as engine:
        assert abs(pool_of(engine) - 6 * 10**9) / 6e9 < 0.02  # 8 GB for the process, 6 GB of it the pool
        assert engine.pool == 6 * 10**9


def test_spills_go_to_the_cache_folder_and_are_removed_on_close(private_cache):
    with open_engine("duckdb", memory_limit="1GB") as engine:
        spill = setting(engine, "temp_directory")
        assert Path(spill).is_relative_to(private_cache)
        folder = Path(spill).parent
        assert folder.is_dir()
    assert not folder.exists()
    with open_engine("duckdb", memory_limit="1GB", temp_dir=str(private_cache / "mine")) as engine:
        assert Path(setting(engine, "temp_directory")).is_relative_to(private_cache / "mine")


@pytest.mark.skipif(duckdb_engine.fcntl is None, reason="no advisory locks here: nothing is removed")
def test_spill_folders_of_ended_runs_are_removed_and_live_ones_kept(private_cache, tmp_path):
    """A killed run cannot remove its spill folder: the next engine opened there removes it (its owner lock
    is free), but never the folder of a run still holding its lock (in another process: its process id
    names a process that has ended, as after a reuse or on another machine), nor a folder without a lock
    (an older studio's) or not named as a spill folder."""
    spill = tmp_path / "spill"
    orphan = spill / f"{duckdb_engine.SPILL_PREFIX}1-abc"
    live = spill / f"{duckdb_engine.SPILL_PREFIX}1-def"
    unlocked_kind = spill / f"{duckdb_engine.SPILL_PREFIX}{os.getpid()}-old"
    other = spill / "someone-else-123"
    for folder in (orphan / "spill", live, unlocked_kind, other):
        folder.mkdir(parents=True)
    (orphan / "spill" / "duckdb_temp_block-1.block").write_bytes(b"x" * 1000)
    duckdb_engine.hold_owner_lock(str(orphan)).close()  # its run ended: the lock file stays, free
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from privacy_studio.core.engines import duckdb_engine as d; "
         "lock = d.hold_owner_lock(sys.argv[1]); print('held', flush=True); sys.stdin.read()", str(live)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with open_engine("duckdb", memory_limit="1GB", temp_dir=str(spill)) as engine:
            own = Path(setting(engine, "temp_directory")).parent
            assert (own / duckdb_engine.OWNER_LOCK).is_file()
        assert not orphan.exists() and live.is_dir() and unlocked_kind.is_dir() and other.is_dir()
        assert not own.exists()
    finally:
        holder.communicate("")
    with open_engine("duckdb", memory_limit="1GB", temp_dir=str(spill)):
        pass
    assert not live.exists(), "once its holder has ended, the folder goes too"


def test_threads_follow_the_pool_and_insertion_order_is_not_kept():
    cores = os.cpu_count() or 1
    with open_engine("duckdb", memory_limit="48MB") as engine:
        assert int(setting(engine, "threads")) == 1  # a small pool runs one thread rather than failing
        assert str(setting(engine, "preserve_insertion_order")).lower() == "false"
    with open_engine("duckdb", memory_limit="48MB", threads=2) as engine:
        assert int(setting(engine, "threads")) == 2  # as asked
    assert duckdb_engine.default_threads(64 * 2**30) == cores


def test_a_run_that_cannot_finish_is_refused_in_one_sentence_before_it_starts(monkeypatch):
    options = ReaderOptions(antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"))
    files = EventFiles(str(SAMPLE / "events.csv"), options)
    rows, need = duckdb_engine.work_bytes(files)
    assert rows >= 78_000 and need > rows * duckdb_engine.WORK_BYTES_PER_EVENT  # the sample's 78k events
    monkeypatch.setattr(duckdb_engine.shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 1000, 1000))
    settings = RiskSettings(spatial=["district"], temporal=["1h"], p_values=[1, 2], samples=50)
    said: list[str] = []
    control = TaskControl(lambda fraction, message: said.append(message))
    with open_engine("duckdb", memory_limit="1MB") as engine, pytest.raises(ValueError) as caught:
        next(engine.run_grid(files, settings, control))
    message = str(caught.value)
    assert message.startswith("this run cannot finish on the duckdb engine")
    assert message.count(". ") == 0 and "\n" not in message and "--temp-dir" in message
    assert "--memory-limit" not in message
    assert said == []  # refused before reading anything


def test_a_run_within_memory_and_disk_is_accepted(monkeypatch):
    options = ReaderOptions(antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"))
    files = EventFiles(str(SAMPLE / "events.csv"), options)
    with open_engine("duckdb", memory_limit="1GB") as engine:
        engine.check_capacity(files)  # 78k events: far below 1 GB and the free disk


def test_traces_that_cannot_fit_in_memory_are_refused_in_one_sentence_before_it_starts(monkeypatch):
    """The kernels hold one profile's traces and index in memory (they cannot spill): too little memory
    available for the estimate is said before any work, naming both figures."""
    options = ReaderOptions(antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"))
    files = EventFiles(str(SAMPLE / "events.csv"), options)
    rows, _ = duckdb_engine.work_bytes(files)
    settings = RiskSettings(spatial=["district"], temporal=["1h"], p_values=[1, 2], samples=50)
    said: list[str] = []
    control = TaskControl(lambda fraction, message: said.append(message))
    with open_engine("duckdb", memory_limit="1GB") as engine:
        monkeypatch.setattr(duckdb_engine, "available_memory", lambda: rows * 10)
        with pytest.raises(ValueError) as caught:
            next(engine.run_grid(files, settings, control))
    message = str(caught.value)
    assert message.startswith("this run cannot finish on the duckdb engine")
    assert "traces" in message and "available" in message and "\n" not in message
    assert said == []
