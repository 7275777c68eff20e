"""DuckDB reading the input files itself gives the numbers of the reader + numba engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.engines.ingest import load_files
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import comparable

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def sample_options(**kw) -> ReaderOptions:
    return ReaderOptions(
        antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"), use_cache=False, **kw
    )


def both(path: str, options: ReaderOptions, risk: RiskSettings) -> tuple[list[dict], list[dict]]:
    expected = [comparable(r) for r in run_grid(load_dataset(path, options), risk)]
    with open_engine("duckdb") as engine:
        got = [comparable(r) for r in engine.run_grid(EventFiles(path, options), risk)]
    return expected, got


@pytest.mark.parametrize(
    ("tz", "cells", "knowledge"),
    [
        ("UTC", [("raw", "1h"), ("district", "1d")], "uniform"),
        ("Europe/Paris", [("grid:2", "6h"), ("zip", "1w")], "activity"),
        ("Europe/Paris", [("municipality", "all"), ("raw", "30min")], "top"),
    ],
)
def test_sample_csv_read_by_duckdb_equals_the_reader(tz, cells, knowledge):
    risk = RiskSettings(
        exact_budget=0,
        spatial=[],
        temporal=[],
        cells=cells,
        knowledge=knowledge,
        samples=400,
        draws=2,
        p_values=[1, 2, 4, 8],
    )
    expected, got = both(str(SAMPLE / "events.csv"), sample_options(tz=tz), risk)
    assert got == expected


def test_parquet_with_epoch_seconds_and_gzip_csv(tmp_path):
    table = pacsv.read_csv(SAMPLE / "events.csv")
    seconds = pa.compute.divide(
        pa.compute.cast(pa.compute.cast(table["time"], pa.timestamp("s", tz="UTC")), pa.int64()), 1
    )
    events = pa.table({"user": table["user"], "time": seconds, "location": table["location"]})
    pq.write_table(events, tmp_path / "events.parquet")
    with pa.CompressedOutputStream(str(tmp_path / "events.csv.gz"), "gzip") as out:
        pacsv.write_csv(events, out)
    risk = RiskSettings(
        exact_budget=0,
        spatial=["raw", "district"],
        temporal=["1h"],
        samples=300,
        p_values=[1, 3],
    )
    for name in ("events.parquet", "events.csv.gz"):
        expected, got = both(str(tmp_path / name), sample_options(), risk)
        assert got == expected, name


def test_rejected_rows_are_counted_by_reason_like_the_reader(tmp_path):
    rows = [
        "user,time,location",
        "a,2024-03-05T10:00:00+01:00,A00001",
        ",2024-03-05T10:00:00+01:00,A00001",
        "b,not a time,A00001",
        "c,2024-03-05T10:00:00+01:00,",
        "d,2024-03-05T10:00:00+01:00,NOPE",
        "e,1709629200,A00002",
    ]
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(rows) + "\n")
    options = sample_options()
    dataset = load_dataset(str(path), options)
    with open_engine("duckdb") as engine:
        loaded = load_files(engine, EventFiles(str(path), options), TaskControl())
    want = {reason: r.count for reason, r in dataset.report.rejected.items()}
    got = {reason: r.count for reason, r in loaded.report.rejected.items()}
    assert got == want and len(want) == 4
    assert (loaded.report.rows_read, loaded.report.rows_kept) == (6, 1)  # mixed styles: ISO wins
    assert (loaded.n_users, loaded.n_events) == (dataset.events.n_users, dataset.events.n_events)


def test_events_with_coordinates_and_no_side_file_are_projected_like_the_reader():
    # The reader puts each location at the mean of its events and centres the km grid on the locations.
    risk = RiskSettings(
        exact_budget=0,
        spatial=["raw", "grid:1"],
        temporal=["1w"],
        samples=500,
        p_values=[1, 2],
    )
    path, options = str(SAMPLE / "events.csv"), ReaderOptions(use_cache=False)
    expected = list(run_grid(load_dataset(path, options), risk))
    with open_engine("duckdb") as engine:
        got = list(engine.run_grid(EventFiles(path, options), risk))
    assert [comparable(r) for r in got] == [comparable(r) for r in expected]
    for mine, theirs in zip(got, expected, strict=True):
        centres = [mine.per_location[k] for k in ("x_km", "y_km")]
        assert centres == [pytest.approx(theirs.per_location[k], rel=1e-9) for k in ("x_km", "y_km")]


def test_rows_with_a_wrong_number_of_fields_give_one_clear_message(tmp_path):
    lines = (SAMPLE / "events.csv").read_text().splitlines()[:3000]
    lines[7] += ",extra,fields"
    lines[900] = "a,b"
    path = tmp_path / "ragged.csv"
    path.write_text("\n".join(lines) + "\n")
    risk = RiskSettings(exact_budget=0, spatial=["raw"], temporal=["1w"], samples=50, p_values=[1])
    with open_engine("duckdb") as engine, pytest.raises(ValueError) as error:
        list(engine.run_grid(EventFiles(str(path), sample_options()), risk))
    text = str(error.value)
    assert "could not read the input" in text and "--engine numba" in text and "\n" not in text


@pytest.mark.parametrize(
    ("columns", "side_file"),
    [
        ("user,time,location,x_km,y_km,lat,lon", False),
        ("user,time,location,x_km,y_km,lat,lon", True),
        ("user,time,x_km,y_km,lat,lon", False),
        ("user,time,location,x_km,y_km", True),
    ],
)
def test_the_files_own_km_win_in_duckdb_as_in_the_reader(tmp_path, columns, side_file):
    """x_km/y_km that disagree with lat/lon: both engines use the file's km; bad rows rejected alike."""
    rng = np.random.default_rng(7)
    n = 600
    place = rng.integers(0, 6, n)
    fields = {
        "user": [f"u{k}" for k in rng.integers(0, 40, n)],
        "time": [
            f"2024-03-0{1 + int(s) // 86400}T{int(s) % 86400 // 3600:02d}:00:00Z"
            for s in rng.integers(0, 3 * 86400, n)
        ],
        "location": [f"P{k}" for k in place],
        "x_km": (place * 0.9 + rng.normal(0, 0.2, n)).round(3).astype(str).tolist(),
        "y_km": (place * 0.4).round(3).astype(str).tolist(),
        "lat": (10.0 - place * 0.5).astype(str).tolist(),
        "lon": (20.0 + place * 0.5).astype(str).tolist(),
    }
    fields["x_km"][3], fields["lat"][5] = "bad", "999"
    names = columns.split(",")
    rows = zip(*(fields[name] for name in names), strict=True)
    (tmp_path / "events.csv").write_text(columns + "\n" + "".join(",".join(r) + "\n" for r in rows))
    antennas = tmp_path / "antennas.csv"
    antennas.write_text(
        "antenna_id,latitude,longitude\n" + "".join(f"P{k},45.0,{4 + k * 0.01}\n" for k in range(6))
    )
    options = ReaderOptions(antennas=str(antennas) if side_file else None, use_cache=False)
    risk = RiskSettings(
        exact_budget=0,
        spatial=[],
        temporal=[],
        cells=[("grid:1", "1h"), ("raw", "6h")],
        samples=200,
        draws=2,
        p_values=[1, 2],
    )
    expected, got = both(str(tmp_path / "events.csv"), options, risk)
    assert got == expected


def test_card_transactions_read_by_duckdb_give_the_price_bins_of_the_reader(tmp_path):
    """A transactions file (shop, time, price): shops are the places, rows without a valid price are
    rejected as the reader rejects them, and the price bins computed in SQL match numba's."""
    lines = (SAMPLE / "transactions.csv").read_text().splitlines()[:3001]
    lines[5] = lines[5].rsplit(",", 1)[0] + ",not a price"
    lines[9] = lines[9].rsplit(",", 1)[0] + ","
    path = tmp_path / "cards.csv"
    path.write_text("\n".join(lines) + "\n")
    options = ReaderOptions(hierarchy=str(SAMPLE / "shop_hierarchy.csv"), tz="Europe/Paris", use_cache=False)
    risk = RiskSettings(
        ["shop", "district"],
        ["1d"],
        p_values=[1, 2, 4],
        samples=200,
        price=["none", "3", "1"],
        seed=5,
        exact_budget=0,  # relational engines only sample: compare sampled with sampled
    )
    expected, got = both(str(path), options, risk)
    assert got == expected and len(got) == 6
    with open_engine("duckdb") as engine:
        list(engine.run_grid(EventFiles(str(path), options), risk))
        rejected = {reason: r.count for reason, r in engine.import_report.rejected.items()}
    assert rejected == {"missing or invalid price": 2}
