"""The files the generator writes: reproducible, complete and consistent with each other."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from privacy_studio.core.atomic import TEMP_PREFIX
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.sample import generate_city, simulate_city, writers
from privacy_studio.core.sample.generate import CDR_COLUMNS
from privacy_studio.core.sample.population import AGE_BANDS, CUSTOMER_TYPES, GENDERS, INCOME_BANDS


def _contents(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_gives_identical_bytes(small_city, tmp_path, small_params):
    again = generate_city(
        small_params["n_users"], small_params["days"], small_params["seed"], tmp_path / "again"
    )
    first, second = _contents(small_city.root), _contents(again.root)
    assert sorted(first) == sorted(second)
    assert len(first) > 12  # the fixed files plus one CDR file per active user
    for name in first:
        assert first[name] == second[name], name


def test_different_seed_gives_different_data(small_city, tmp_path, small_params):
    other = generate_city(
        small_params["n_users"], small_params["days"], small_params["seed"] + 1, tmp_path / "other"
    )
    for name in ("events.csv", "antennas.csv", "attributes.csv", "transactions.csv"):
        assert (small_city.root / name).read_bytes() != (other.root / name).read_bytes(), name


def test_in_memory_simulation_equals_the_files(small_city, read_rows, small_params):
    city = simulate_city(small_params["n_users"], small_params["days"], small_params["seed"], periods=2)
    for period, path in ((0, small_city.events), (1, small_city.period2_events)):
        table = city.event_table(period)
        rows = read_rows(path)
        assert [r["user"] for r in rows] == table.user_ids[table.user].tolist()
        assert [r["location"] for r in rows] == table.location_ids[table.location].tolist()
        times = [int(datetime.fromisoformat(r["time"]).timestamp()) for r in rows]
        assert times == table.time.tolist()
    assert len(read_rows(small_city.transactions)) == len(city.payments[0])


def test_events_use_known_antennas_with_their_coordinates(small_city, read_rows):
    antennas = {r["antenna_id"]: r for r in read_rows(small_city.antennas)}
    hierarchy = {r["antenna"] for r in read_rows(small_city.hierarchy)}
    assert set(antennas) == hierarchy
    for path in (small_city.events, small_city.period2_events):
        rows = read_rows(path)
        assert rows
        for r in rows:
            a = antennas[r["location"]]
            assert float(r["lat"]) == float(a["latitude"]) and float(r["lon"]) == float(a["longitude"])


def test_event_km_coordinates_agree_with_latitude_longitude(small_city, read_rows):
    rows = read_rows(small_city.events)
    lat = np.array([float(r["lat"]) for r in rows])
    lon = np.array([float(r["lon"]) for r in rows])
    x = np.array([float(r["x_km"]) for r in rows])
    y = np.array([float(r["y_km"]) for r in rows])
    # Degrees to km near 45.76 N: 111.2 km per degree of latitude, times cos(latitude) for longitude.
    assert np.allclose(np.diff(y), np.diff(lat) * 111.195, atol=0.01)
    assert np.allclose(np.diff(x), np.diff(lon) * 111.195 * np.cos(np.radians(45.76)), atol=0.01)


def test_hierarchy_is_nested(small_city, read_rows):
    rows = read_rows(small_city.hierarchy)
    parent: dict[str, dict[str, set[str]]] = {"zip": defaultdict(set), "district": defaultdict(set)}
    for r in rows:
        parent["zip"][r["zip"]].add(r["district"])
        parent["district"][r["district"]].add(r["municipality"])
    assert all(len(v) == 1 for v in parent["zip"].values())
    assert all(len(v) == 1 for v in parent["district"].values())
    n_antennas, n_zips, n_districts = len(rows), len(parent["zip"]), len(parent["district"])
    n_municipalities = len({r["municipality"] for r in rows})
    assert n_antennas > n_zips > n_districts > n_municipalities >= 3


def test_times_lie_in_their_period_with_the_zone_offset(small_city, read_rows, small_params):
    zone = ZoneInfo("Europe/Paris")
    first_day = datetime(2024, 3, 4, tzinfo=zone)
    for path, start in (
        (small_city.events, first_day),
        (small_city.period2_events, first_day + timedelta(days=small_params["days"])),
    ):
        end = start + timedelta(days=small_params["days"])
        for r in read_rows(path):
            t = datetime.fromisoformat(r["time"])
            assert start <= t < end
            assert t.utcoffset() == t.astimezone(zone).utcoffset()


def test_events_are_sorted_by_user_then_time(small_city, read_rows):
    rows = read_rows(small_city.events)
    first_seen: dict[str, int] = {}
    for i, r in enumerate(rows):
        first_seen.setdefault(r["user"], i)
    keys = [(first_seen[r["user"]], datetime.fromisoformat(r["time"])) for r in rows]
    assert keys == sorted(keys)


def test_per_user_cdr_files_hold_the_same_events(small_city, read_rows):
    events = read_rows(small_city.events)
    by_user = defaultdict(list)
    for r in events:
        local = datetime.fromisoformat(r["time"]).strftime("%Y-%m-%d %H:%M:%S")
        by_user[r["user"]].append((local, r["location"]))
    files = sorted(small_city.cdr_dir.glob("*.csv"))
    assert {f.stem for f in files} == set(by_user)
    phone_users = {r["user_id"] for r in read_rows(small_city.attributes)}
    for f in files:
        header = f.read_text().splitlines()[0]
        assert header == "interaction,direction,correspondent_id,datetime,call_duration,antenna_id"  # toolbox
        rows = read_rows(f)
        assert [(r["datetime"], r["antenna_id"]) for r in rows] == by_user[f.stem]
        for r in rows:
            assert r["interaction"] in ("call", "text") and r["direction"] in ("in", "out")
            assert (r["call_duration"] == "") == (r["interaction"] == "text")
            assert r["call_duration"] == "" or int(r["call_duration"]) > 0
            assert len(r["correspondent_id"]) == 8 and not r["correspondent_id"][0].isdigit()
        assert {r["correspondent_id"] for r in rows} <= phone_users


def test_attributes_cover_every_user_once(small_city, read_rows, small_params):
    rows = read_rows(small_city.attributes)
    assert len(rows) == small_params["n_users"] == len({r["user_id"] for r in rows})
    assert {r["user"] for r in read_rows(small_city.events)} <= {r["user_id"] for r in rows}
    for r in rows:
        assert r["gender"] in GENDERS and r["age_band"] in AGE_BANDS
        assert r["income_band"] in INCOME_BANDS and r["customer_type"] in CUSTOMER_TYPES


def test_card_payments_and_their_ground_truth(small_city, read_rows):
    shops = {r["shop"]: r for r in read_rows(small_city.shop_hierarchy)}
    assert set(shops) == {r["shop_id"] for r in read_rows(small_city.shops)}
    antennas = {r["antenna"]: r for r in read_rows(small_city.hierarchy)}
    for shop in shops.values():
        assert antennas[shop["antenna"]]["district"] == shop["district"]
    payments = read_rows(small_city.transactions)
    assert payments and all(r["shop"] in shops and float(r["price"]) > 0 for r in payments)
    truth = read_rows(small_city.card_truth)
    card_users = {r["card_user"] for r in truth}
    assert card_users == {r["user_id"] for r in payments}
    assert len(card_users) == len(truth) == len({r["user"] for r in truth})
    phone_users = {r["user_id"] for r in read_rows(small_city.attributes)}
    assert {r["user"] for r in truth} <= phone_users and not card_users & phone_users


def test_second_period_uses_fresh_pseudonyms_with_ground_truth(small_city, read_rows):
    truth = read_rows(small_city.period2_truth)
    pseudonyms = {r["pseudonym"] for r in truth}
    assert pseudonyms == {r["user"] for r in read_rows(small_city.period2_events)}
    assert len(pseudonyms) == len(truth) == len({r["user"] for r in truth})
    phone_users = {r["user_id"] for r in read_rows(small_city.attributes)}
    assert {r["user"] for r in truth} <= phone_users and not pseudonyms & phone_users


def test_meta_counts_match_the_files(small_city, read_rows, small_params):
    meta = json.loads(small_city.meta.read_text())
    counts = meta["counts"]
    assert (
        meta["parameters"]["seed"] == small_params["seed"]
        and meta["parameters"]["n_users"] == small_params["n_users"]
    )
    assert counts["events_period1"] == len(read_rows(small_city.events))
    assert counts["events_period2"] == len(read_rows(small_city.period2_events))
    assert counts["transactions"] == len(read_rows(small_city.transactions))
    assert counts["antennas"] == len(read_rows(small_city.antennas))
    assert counts["card_users"] == len(read_rows(small_city.card_truth))
    zips = Counter(r["zip"] for r in read_rows(small_city.hierarchy))
    assert counts["zips"] == len(zips)
    for name in meta["files"]:
        assert (small_city.root / name).exists(), name
    assert str(counts["events_period1"]) in small_city.readme.read_text()


def test_single_cdr_file_and_single_period(tmp_path, read_rows):
    paths = generate_city(30, 3, 1, tmp_path / "one", cdr_layout="single", periods=1)
    assert paths.cdr_dir is None and not (paths.root / "cdr").exists()
    assert paths.period2_events is None and not (paths.root / "period2").exists()
    meta = json.loads(paths.meta.read_text())
    assert len(meta["periods"]) == 1 and "events_period2" not in meta["counts"]
    written = {p.relative_to(paths.root).as_posix() for p in paths.files()}
    assert set(meta["files"]) | {"meta.json", "README.txt"} == written
    rows = read_rows(paths.cdr_file)
    assert list(rows[0]) == ["user", *CDR_COLUMNS]
    assert [r["user"] for r in rows] == [r["user"] for r in read_rows(paths.events)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_users": 0}, "number of users"),
        ({"days": 0}, "number of days"),
        ({"seed": -1}, "seed"),
        ({"start": "next tuesday"}, "start date"),
        ({"start": "2024-03-04T10:00+01:00"}, "plain local date"),
        ({"tz": "Mars/Olympus"}, "unknown time zone"),
        ({"cdr_layout": "zip"}, "CDR layout"),
        ({"periods": 3}, "number of periods"),
    ],
)
def test_bad_parameters_give_one_clear_message(tmp_path, kwargs, message):
    args = {"n_users": 10, "days": 2, "seed": 0, "out_dir": tmp_path / "x"} | kwargs
    with pytest.raises(ValueError, match=message):
        generate_city(**args)


def test_cancelling_stops_before_the_meta_file(tmp_path):
    def cancel_in_period_two(fraction: float, message: str) -> None:
        if "period 2" in message:
            control.cancel()

    control = TaskControl(cancel_in_period_two)
    with pytest.raises(Cancelled):
        generate_city(50, 3, 0, tmp_path / "c", control=control)
    assert (tmp_path / "c" / "events.csv").exists() and not (tmp_path / "c" / "meta.json").exists()


def test_a_failure_midway_leaves_no_partial_file(tmp_path, monkeypatch):
    """The events file gets its first chunk, then the disk fails: nothing appears under a final name."""
    calls = []
    original = writers.CsvSink.write

    def fail_at_the_transactions(self, columns):
        calls.append(self.path.name)
        if self.path.name == "transactions.csv":
            raise OSError(28, "No space left on device")
        original(self, columns)

    monkeypatch.setattr(writers.CsvSink, "write", fail_at_the_transactions)
    with pytest.raises(OSError, match="No space left"):
        generate_city(50, 3, 0, tmp_path / "f")
    assert calls[-2:] == ["events.csv", "transactions.csv"]
    written = {p.name for p in (tmp_path / "f").iterdir()}
    assert "antennas.csv" in written  # finished before the failure, so kept
    assert "events.csv" not in written and "transactions.csv" not in written
    assert not [name for name in written if name.startswith(TEMP_PREFIX)]


def test_refuses_to_write_into_a_non_empty_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("precious")
    with pytest.raises(ValueError, match="not empty"):
        generate_city(10, 2, 0, tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "precious"


@pytest.mark.parametrize(("n_users", "days", "tz"), [(1, 1, "UTC"), (3, 2, "Australia/Sydney")])
def test_tiny_cities_are_complete(tmp_path, read_rows, n_users, days, tz):
    paths = generate_city(n_users, days, 0, tmp_path / "tiny", tz=tz)
    counts = json.loads(paths.meta.read_text())["counts"]
    assert counts["events_period1"] == len(read_rows(paths.events))
    assert counts["events_period2"] == len(read_rows(paths.period2_events))
    assert counts["transactions"] == len(read_rows(paths.transactions))
    assert len(read_rows(paths.attributes)) == n_users
