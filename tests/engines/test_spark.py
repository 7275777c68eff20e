"""Spark in local[2] runs the relational plan with the numba engine's numbers; failures are one SparkError.

One Spark session serves the whole module (the JVM takes ~10 s to start); the engines under test find it
running and use it without stopping it.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.engines.relational import _Watch
from privacy_studio.core.engines.spark_session import (
    SparkError,
    SparkOptions,
    check_reachable,
    existing_session,
    java_version,
    parse_memory,
    start_session,
)
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import (
    CLOCK_CHANGES,
    DatasetOf,
    cell_settings,
    comparable,
    disclosure,
    disclosure_labels,
    engine_times,
    naive_time_files,
    random_city,
    reader_times,
    wall,
)

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        java_version() is None and not os.environ.get("CI"),
        reason="no Java runtime: the Spark engine needs Java 17+ (apt install default-jre-headless)",
    ),
]


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory):
    spills = tmp_path_factory.mktemp("spark")
    session = start_session(SparkOptions("local[2]", threads=2, memory_limit="1g", temp_dir=str(spills)))
    yield session
    session.stop()


def sample_options(**kw) -> ReaderOptions:
    return ReaderOptions(
        antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"), use_cache=False, **kw
    )


def test_sample_files_read_by_spark_give_the_in_memory_numbers(spark):
    options = sample_options(tz="Europe/Paris")
    risk = RiskSettings(
        exact_budget=0,
        spatial=[],
        temporal=[],
        cells=[("raw", "1h"), ("grid:2", "6h")],
        p_values=[1, 2, 3],
        measures=["unicity", "kdisc", "kanon", "worst", "em", "kl"],
        samples=300,
        draws=2,
        seed=11,
        reference_p=2,
        em_samples=40,
    )
    path = str(SAMPLE / "events.csv")
    expected = list(run_grid(load_dataset(path, options), risk))
    with open_engine("spark") as engine:
        assert engine.master == "local[2]"  # the running session, not a new one
        got = list(engine.run_grid(EventFiles(path, options), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    for mine, theirs in zip(got, expected, strict=True):
        assert disclosure_labels(mine) == disclosure_labels(theirs)
        assert disclosure(mine) == pytest.approx(disclosure(theirs), rel=1e-9, nan_ok=True)
    assert not spark.sparkContext._jsc.sc().isStopped()  # the engine left the session it found running


def test_a_parquet_grid_coarsened_from_one_pass_gives_the_in_memory_numbers(spark, tmp_path):
    """Parquet rows are re-read (never stored) and every profile comes from one generalized base table."""
    table = pacsv.read_csv(SAMPLE / "events.csv")
    seconds = pa.compute.cast(pa.compute.cast(table["time"], pa.timestamp("s", tz="UTC")), pa.int64())
    path = tmp_path / "events.parquet"
    pq.write_table(pa.table({"user": table["user"], "time": seconds, "location": table["location"]}), path)
    options = sample_options(tz="Europe/Paris")
    risk = RiskSettings(
        exact_budget=0,
        spatial=["antenna", "district"],
        temporal=["1h", "1w", "all"],
        p_values=[1, 2, 4],
        measures=["unicity", "kdisc", "kanon", "worst"],
        samples=200,
        seed=3,
    )
    expected = list(run_grid(load_dataset(str(path), options), risk))
    with open_engine("spark") as engine:
        got = list(engine.run_grid(EventFiles(str(path), options), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]


def test_card_transactions_read_by_spark_give_the_in_memory_price_bins(spark, tmp_path):
    """Spark computes the price bins in SQL (refunds and zero included) as numba's generalize does."""
    lines = (SAMPLE / "transactions.csv").read_text().splitlines()[:2001]
    for k, amount in ((3, "-15.13"), (4, "0"), (6, "10.00"), (7, "100")):
        lines[k] = lines[k].rsplit(",", 1)[0] + "," + amount
    path = tmp_path / "cards.csv"
    path.write_text("\n".join(lines) + "\n")
    options = ReaderOptions(hierarchy=str(SAMPLE / "shop_hierarchy.csv"), tz="Europe/Paris", use_cache=False)
    risk = RiskSettings(
        ["shop", "district"],
        ["1d"],
        p_values=[1, 2, 4],
        samples=150,
        price=["none", "3"],
        seed=5,
        em_samples=30,
        exact_budget=0,  # relational engines only sample: compare sampled with sampled
    )
    expected = list(run_grid(load_dataset(str(path), options), risk))
    with open_engine("spark") as engine:
        got = list(engine.run_grid(EventFiles(str(path), options), risk))
    assert [comparable(r) | {"price": r.price} for r in got] == [
        comparable(r) | {"price": r.price} for r in expected
    ]
    for mine, theirs in zip(got, expected, strict=True):
        assert disclosure(mine) == pytest.approx(disclosure(theirs), rel=1e-9, nan_ok=True)


def test_epoch_seconds_in_gzip_csv(spark, tmp_path):
    table = pacsv.read_csv(SAMPLE / "events.csv")
    seconds = pa.compute.cast(pa.compute.cast(table["time"], pa.timestamp("s", tz="UTC")), pa.int64())
    events = pa.table({"user": table["user"], "time": seconds, "location": table["location"]})
    path = str(tmp_path / "events.csv.gz")
    with pa.CompressedOutputStream(path, "gzip") as out:
        pacsv.write_csv(events, out)
    risk = RiskSettings(
        exact_budget=0,
        spatial=["district"],
        temporal=["1d"],
        samples=200,
        p_values=[1, 2],
        reference_p=2,
        knowledge="activity",
    )
    expected = [comparable(r) for r in run_grid(load_dataset(path, sample_options()), risk)]
    with open_engine("spark") as engine:
        got = [comparable(r) for r in engine.run_grid(EventFiles(path, sample_options()), risk)]
    assert got == expected


PROFILES = [("raw", "1h"), ("zone", "6h"), ("grid:1.5", "1d"), ("region", "30min")]


@settings(max_examples=3, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_users=st.integers(1, 25),
    n_locations=st.integers(1, 10),
    knowledge=st.sampled_from(["uniform", "activity", "top"]),
    cells=st.lists(st.sampled_from(PROFILES), min_size=1, max_size=2, unique=True),
    tz=st.sampled_from(["Europe/Paris", "UTC", "America/New_York"]),
)
def test_spark_equals_numba_on_random_data(spark, seed, n_users, n_locations, knowledge, cells, tz):
    events, hierarchy = random_city(seed, n_users, n_locations, mean_events=4.0, tz=tz)
    risk = cell_settings(
        cells,
        knowledge=knowledge,
        measures=["unicity", "kdisc", "kanon", "worst"],
        samples=20,
        draws=2,
        seed=seed,
    )
    expected = [comparable(r) for r in run_grid(events, risk, hierarchy)]
    with open_engine("spark") as engine:
        got = [comparable(r) for r in engine.run_grid(DatasetOf(events, hierarchy), risk)]
    assert got == expected


def test_a_running_spark_job_is_interrupted(spark):
    control = TaskControl()
    slow = "SELECT count(*) AS n FROM range(0, 100000000000, 1, 2) a WHERE a.id % 7 = 3"
    with open_engine("spark") as engine:
        threading.Timer(1.0, control.cancel).start()
        start = time.perf_counter()
        with pytest.raises(Cancelled), _Watch(engine, control):
            engine.execute(slow)
        assert time.perf_counter() - start < 30
        with pytest.raises(Cancelled):
            engine.execute("SELECT 1 AS one")  # nothing new starts in the cancelled run
        events, hierarchy = random_city(3, 5, 3, mean_events=3.0)
        risk = RiskSettings(
            exact_budget=0,
            spatial=["raw"],
            temporal=["1d"],
            p_values=[1],
            samples=5,
            reference_p=1,
        )
        assert [r.n_users for r in engine.run_grid(DatasetOf(events, hierarchy), risk)] == [
            5
        ]  # a new run works


def test_a_cancel_still_running_for_an_earlier_run_never_reaches_the_next(spark):
    events, hierarchy = random_city(4, 6, 3, mean_events=3.0)
    risk = RiskSettings(
        exact_budget=0,
        spatial=["raw"],
        temporal=["1d"],
        p_values=[1],
        samples=5,
        reference_p=1,
    )
    with open_engine("spark") as engine:
        engine.cancel()
        cancelled_group, done = engine._group, threading.Event()

        def keep_cancelling() -> None:  # what the cancel loop does while an action of that run is still going
            while not done.is_set():
                spark.sparkContext.cancelJobGroup(cancelled_group)

        threading.Thread(target=keep_cancelling, daemon=True).start()
        try:
            results = engine.run_grid(DatasetOf(events, hierarchy), risk)
        finally:
            done.set()
    assert [r.n_users for r in results] == [6]
    assert engine._group != cancelled_group  # the run's jobs are in a group of their own


def test_shuffle_partitions_grow_with_the_input_but_never_shrink(spark):
    key = "spark.sql.shuffle.partitions"
    with open_engine("spark") as engine:
        default = int(engine.session.conf.get(key))
        engine.expect_rows(10)
        assert int(engine.session.conf.get(key)) == default
        engine.expect_rows(41_000_001)
        assert int(engine.session.conf.get(key)) == 21
        engine.expect_rows(1000)
        assert int(engine.session.conf.get(key)) == 21
    assert int(spark.conf.get(key)) == default  # the caller's session keeps its setting


@settings(max_examples=3, deadline=None)
@given(
    ids=st.lists(st.text(min_size=0, max_size=6), min_size=1, max_size=400),
    partitions=st.integers(1, 9),
)
def test_ranks_spread_over_partitions_are_the_codes_np_unique_gives(spark, ids, partitions):
    with open_engine("spark") as engine:
        engine.session.conf.set("spark.sql.shuffle.partitions", str(partitions))
        engine.register("ps_ids", pa.table({"uid": ids}))
        engine.create_ranked("ps_ranked", "SELECT DISTINCT uid FROM ps_ids", "uid", "u")
        got = engine.execute("SELECT uid, u FROM ps_ranked ORDER BY u")
    assert got.column("u").to_pylist() == list(range(len(set(ids))))
    assert got.column("uid").to_pylist() == np.unique(ids).tolist()


@pytest.mark.parametrize("tz", ["Europe/Paris", "Australia/Lord_Howe"])
def test_spark_reads_naive_times_around_clock_changes_like_the_reader(spark, tmp_path, tz):
    local = np.concatenate([np.arange(wall(c) - 3600, wall(c) + 7200, 307) for c in CLOCK_CHANGES[tz]])
    options = ReaderOptions(tz=tz, use_cache=False)
    for path in naive_time_files(tmp_path, local):
        assert engine_times("spark", path, options) == reader_times(path, options), path.name


def test_a_failed_query_is_one_short_sentence(spark):
    with open_engine("spark") as engine, pytest.raises(SparkError) as error:
        engine.execute("SELECT nope FROM ps_nowhere")
    text = str(error.value)
    assert text.startswith("Spark failed while running a query:") and "ps_nowhere" in text
    assert "\n" not in text and len(text) < 600


@pytest.mark.parametrize(
    ("master", "message"),
    [
        ("bogus", "is not a master URL"),
        ("local[2", "is not a master URL"),
        ("local[3]", "already runs in this process"),
        ("spark://elsewhere:7077", "already runs in this process"),
    ],
)
def test_impossible_masters_are_refused_before_any_work(spark, master, message):
    with pytest.raises(SparkError, match=message):
        open_engine("spark", spark_master=master)


def test_an_unreachable_master_is_named_at_once():
    with socket.socket() as probe:  # a port nobody listens on once this socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.perf_counter()
    with pytest.raises(SparkError, match=f"cannot reach the Spark master at 127.0.0.1:{port}"):
        check_reachable(f"spark://127.0.0.1:{port}")
    assert time.perf_counter() - start < 10


def test_no_java_is_one_clear_message(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-java"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    assert java_version() is None
    with pytest.raises(SparkError, match="needs a Java 17"):
        start_session(SparkOptions("local[1]"))


def test_no_pyspark_is_one_clear_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)  # what an install without the spark extra sees
    with pytest.raises(SparkError, match=r"needs PySpark: install privacy-studio\[spark\]"):
        existing_session()


def test_memory_limits_in_spark_notation():
    assert parse_memory("1.5GB") == "1536m"
    assert parse_memory("512 MB") == "512m"
    assert parse_memory("2g") == "2048m"
    for bad, message in (("lots", "not understood"), ("100MB", "too small")):
        with pytest.raises(SparkError, match=message):
            parse_memory(bad)
