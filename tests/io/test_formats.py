"""Every input format reads to the expected events: generic CSV/TSV/Parquet/gz/zip, CDR, cards, sessions."""

from __future__ import annotations

import gzip
import zipfile
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset

EVENTS = """user,time,location,lat,lon
u2,2024-03-04T10:00:00Z,a1,45.0,4.0
u1,2024-03-04T09:00:00Z,a2,45.1,4.1
u1,2024-03-04T08:00:00Z,a1,45.0,4.0
"""


def utc(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def check_events(path: str, options: ReaderOptions | None = None) -> None:
    ev = load_dataset(path, options or ReaderOptions(use_cache=False)).events
    assert ev.user_ids.tolist() == ["u1", "u2"]
    assert ev.location_ids.tolist() == ["a1", "a2"]
    assert ev.user.tolist() == [0, 0, 1]
    assert ev.time.tolist() == [utc("2024-03-04T08:00"), utc("2024-03-04T09:00"), utc("2024-03-04T10:00")]
    assert ev.location.tolist() == [0, 1, 0]
    np.testing.assert_allclose(ev.lat, [45.0, 45.1, 45.0])
    assert ev.x_km is not None and np.isfinite(ev.x_km).all()
    assert ev.locations is not None
    np.testing.assert_allclose(ev.locations.lat, [45.0, 45.1])


def test_csv(write) -> None:
    check_events(write("e.csv", EVENTS))


def test_tsv_and_semicolon(write) -> None:
    check_events(write("e.tsv", EVENTS.replace(",", "\t")))
    check_events(write("e2.csv", EVENTS.replace(",", ";")))


def test_gzip_and_zip(write, tmp_path) -> None:
    check_events(write("e.csv.gz", gzip.compress(EVENTS.encode())))
    with zipfile.ZipFile(tmp_path / "e.zip", "w") as zf:
        zf.writestr("inner/events.csv", EVENTS)
    check_events(str(tmp_path / "e.zip"))


def test_parquet(tmp_path) -> None:
    frame = pd.read_csv(__import__("io").StringIO(EVENTS))
    frame.to_parquet(tmp_path / "e.parquet")
    check_events(str(tmp_path / "e.parquet"))
    frame["time"] = pd.to_datetime(frame["time"])  # a native timestamp column
    frame.to_parquet(tmp_path / "t.parquet")
    check_events(str(tmp_path / "t.parquet"))


def test_headerless_with_roles(write) -> None:
    body = EVENTS.split("\n", 1)[1].replace(",", "\t")
    path = write("g.tsv", body)
    check_events(path, ReaderOptions(header=False, columns=["user", "time", "location", "lat", "lon"]))
    with pytest.raises(ReaderError, match="looks like data"):
        load_dataset(path, ReaderOptions())
    with pytest.raises(ReaderError, match="--columns names 2 columns but the file has 5"):
        load_dataset(path, ReaderOptions(header=False, columns=["user", "time"]))


def test_mapping_overrides_names(write) -> None:
    path = write("m.csv", EVENTS.replace("user,", "msisdn,").replace(",location,", ",cell,"))
    check_events(path, ReaderOptions(mapping={"user": "msisdn", "location": "cell"}))
    with pytest.raises(ReaderError, match="no such column"):
        load_dataset(path, ReaderOptions(mapping={"user": "nope"}))


def test_column_names_case_insensitive_and_aliases(write) -> None:
    path = write("c.csv", "UID,Timestamp,Antenna_ID,Latitude,LNG\nu1,2024-03-04 08:00:00,a1,45,4\n")
    ev = load_dataset(path).events
    assert ev.user_ids.tolist() == ["u1"] and ev.location_ids.tolist() == ["a1"]


def test_two_candidate_columns_are_refused(write) -> None:
    path = write("two.csv", "user,uid,time,location\n1,2,2024-03-04,a\n")
    with pytest.raises(ReaderError, match="could both be the user"):
        load_dataset(path)


def test_coordinates_only(write) -> None:
    ev = load_dataset(write("xy.csv", "uid,datetime,lat,lng\n1,2024-01-01 00:00:00,40,10\n")).events
    assert ev.location.tolist() == [-1] and ev.n_locations == 0
    assert abs(ev.x_km[0]) < 1e-9 and abs(ev.y_km[0]) < 1e-9  # centred on the data


def test_projected_coordinates_only(write) -> None:
    ev = load_dataset(write("km.csv", "user,time,x_km,y_km\na,2024-01-01 00:00,1.5,-2\n")).events
    assert ev.x_km.tolist() == [1.5] and ev.y_km.tolist() == [-2.0] and ev.lat is None


CDR = """interaction,direction,correspondent_id,datetime,call_duration,antenna_id
call,in,A,2014-03-02 07:13:30,210,1
text,out,B,2014-03-02 08:00:00,,2
call,out,A,2014-03-01 07:00:00,30,1
"""
ANTENNAS = "antenna_id,latitude,longitude\n1,42.36,-71.08\n2,42.38,-71.13\n3,42.40,-71.10\n"


def test_cdr_single_file_user_from_name(write) -> None:
    antennas = write("antennas.csv", ANTENNAS)
    ds = load_dataset(write("cdr/ego.csv", CDR), ReaderOptions(antennas=antennas))
    ev = ds.events
    assert ev.user_ids.tolist() == ["ego"]
    assert ev.location_ids.tolist() == ["1", "2", "3"]  # the antennas file fixes the dictionary
    assert ev.location.tolist() == [0, 0, 1]
    assert ev.interaction_names == ("call", "text")
    assert ev.interaction.tolist() == [0, 0, 1]
    assert ev.direction.tolist() == [-1, 1, -1]
    np.testing.assert_array_equal(ev.duration, [30, 210, np.nan])
    np.testing.assert_allclose(ev.lat, [42.36, 42.36, 42.38])
    assert any("file name" in n for n in ds.report.notes)


def test_cdr_folder_one_file_per_user(write, tmp_path) -> None:
    write("cdr/ego.csv", CDR)
    write("cdr/A.csv", CDR.replace(",A,", ",ego,"))
    write("cdr/antennas.csv", ANTENNAS)
    ds = load_dataset(str(tmp_path / "cdr"))
    assert ds.events.user_ids.tolist() == ["A", "ego"]
    assert ds.events.n_events == 6
    assert ds.options.antennas is not None and ds.options.antennas.endswith("antennas.csv")
    assert len(ds.sources) == 3


def test_cdr_with_coordinates_instead_of_antenna(write) -> None:
    text = "interaction,direction,correspondent_id,datetime,call_duration,latitude,longitude\n"
    text += "call,in,sW4aFX,2014-03-02 07:13:30,210,42.366944,-71.083611\n"
    ev = load_dataset(write("u9.csv", text)).events
    assert ev.user_ids.tolist() == ["u9"] and ev.location.tolist() == [-1]
    np.testing.assert_allclose(ev.lon, [-71.083611])


def test_unknown_antenna_is_a_rejected_row(write) -> None:
    antennas = write("antennas.csv", ANTENNAS)
    path = write("ego.csv", CDR + "call,in,C,2014-03-03 07:00:00,5,99\n")
    ds = load_dataset(path, ReaderOptions(antennas=antennas))
    entry = ds.report.rejected["location not in antennas file (antennas.csv)"]
    assert (entry.count, entry.first_lines) == (1, [5])
    assert ds.report.rows_read == 4 and ds.report.rows_kept == 3


def test_transactions(write) -> None:
    text = "user_id,shop,time,price\n7,S2,2024-03-04,12.5\n7,S1,2024-03-05 10:00,3\n8,S1,2024-03-04,x\n"
    ds = load_dataset(write("cards.csv", text))
    ev = ds.events
    assert ds.report.notes[0].startswith("read as transactions")
    assert ev.location_ids.tolist() == ["S1", "S2"] and ev.location.tolist() == [1, 0]
    assert ev.amount.tolist() == [12.5, 3.0]
    assert ds.report.rejected["missing or invalid price"].first_lines == [4]


def test_sessions_midpoint(write) -> None:
    text = "user,start,end,lat,lon\na,2024-01-01 10:00:00,2024-01-01 11:00:00,1,2\n"
    text += "a,2024-01-01 12:00:00,2024-01-01 11:00:00,1,2\n"
    ds = load_dataset(write("s.csv", text))
    assert ds.events.time.tolist() == [utc("2024-01-01T10:30")]
    assert ds.events.duration.tolist() == [3600.0]
    assert ds.report.rejected["session ends before it starts"].first_lines == [3]


HIERARCHY = "antenna,zip,district\n1,z1,d1\n2,z1,d1\n3,z2,d2\n"


def test_hierarchy_lines_up_with_location_codes(write) -> None:
    from privacy_studio.core.generalize import Profile, generalize

    hierarchy = write("h.csv", HIERARCHY)
    path = write(
        "e.csv", "user,time,antenna_id\nu,2024-01-01 00:00,3\nu,2024-01-01 01:00,1\nv,2024-01-01 00:00,9\n"
    )
    ds = load_dataset(path, ReaderOptions(hierarchy=hierarchy))
    h = ds.hierarchy
    assert h is not None and h.location_level == "antenna" and h.levels == ("zip", "district")
    ids = ds.events.location_ids.tolist()
    assert ids == ["1", "2", "3"]
    assert [h.unit_ids["district"][h.unit_codes["district"][ids.index(a)]] for a in ("1", "3")] == [
        "d1",
        "d2",
    ]
    assert ds.report.rejected["location not in hierarchy file (h.csv)"].first_lines == [4]
    traces = generalize(ds.events, Profile.parse("district", "1h"), h)
    assert traces.n_units == 2


def test_locations_file_sets_the_units_that_exist(write) -> None:
    locations = write("loc.csv", "location_id\na\nb\nc\nd\n")
    ds = load_dataset(
        write("e.csv", "user,time,location\nu,2024-01-01,a\n"), ReaderOptions(locations=locations)
    )
    assert ds.events.n_locations == 4


def test_time_zone_and_dayfirst(write) -> None:
    path = write("e.csv", "user,time,location\nu,13/03/2024 08:30,a\nu,02/03/2024 08:30,a\n")
    ev = load_dataset(path, ReaderOptions(dayfirst=True, tz="Europe/Paris")).events
    assert ev.tz == "Europe/Paris"
    assert ev.time.tolist() == [utc("2024-03-02T07:30"), utc("2024-03-13T07:30")]


def test_byte_order_mark_and_crlf(write) -> None:
    check_events(write("bom.csv", ("\ufeff" + EVENTS).replace("\n", "\r\n")))


def test_progress_and_cancellation(write) -> None:
    from privacy_studio.core.progress import Cancelled, TaskControl

    path = write("e.csv", EVENTS)
    seen: list[float] = []
    load_dataset(path, ReaderOptions(use_cache=False), TaskControl(lambda f, _m: seen.append(f)))
    assert seen == sorted(seen) and seen[-1] == 1.0
    control = TaskControl()
    control.cancel()
    with pytest.raises(Cancelled):
        load_dataset(path, ReaderOptions(use_cache=False), control)


def test_forced_format_and_direction_spellings(write) -> None:
    text = "user,time,merchant,amount,direction\n"
    text += "1,2024-01-01,S,5,Incoming\n1,2024-01-02,S,6,OUT\n1,2024-01-03,T,7,?\n"
    ds = load_dataset(write("t.csv", text), ReaderOptions(format="transactions"))
    assert ds.events.location_ids.tolist() == ["S", "T"]
    assert ds.events.direction.tolist() == [1, -1, 0]
    assert ds.events.merchant_ids.tolist() == ["S", "T"]


def test_forced_sessions_ignore_a_time_column(write) -> None:
    text = "user,time,start,end,lat,lon\na,2000-01-01,2024-01-01 10:00:00,2024-01-01 10:10:00,1,2\n"
    ds = load_dataset(write("s.csv", text), ReaderOptions(format="sessions"))
    assert ds.events.time.tolist() == [utc("2024-01-01T10:05")]


def test_coordinates_only_events_with_an_antennas_file(write) -> None:
    antennas = write("antennas.csv", ANTENNAS)
    ev = load_dataset(
        write("xy.csv", "uid,datetime,lat,lng\n1,2024-01-01 00:00:00,42.37,-71.09\n"),
        ReaderOptions(antennas=antennas),
    ).events
    assert ev.location.tolist() == [-1]
    assert ev.locations is not None and len(ev.locations) == ev.n_locations == 3


@pytest.mark.parametrize("text", ["string", "large_string"])
def test_parquet_row_groups_read_in_many_batches_as_the_csv(tmp_path, monkeypatch, text) -> None:
    """One row group read in many batches (each handed the group's whole dictionary, which grows once the
    writer falls back to plain pages) gives the events the CSV gives, blank and null ids rejected alike."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privacy_studio.core.io import assemble, source

    rng = np.random.default_rng(7)
    n = 6000
    users = np.array([f"user-{i:05d}" for i in np.sort(rng.integers(0, 2500, n))], dtype=object)
    places = np.array([f"a{i}" for i in rng.integers(0, 400, n)], dtype=object)
    users[rng.integers(0, n, 40)] = " "
    places[rng.integers(0, n, 30)] = None
    times = pd.Timestamp("2024-03-04") + pd.to_timedelta(rng.integers(0, 28 * 86400, n), unit="s")
    frame = pd.DataFrame({"user": users, "time": times.strftime("%Y-%m-%d %H:%M:%S"), "location": places})
    frame.to_csv(tmp_path / "e.csv", index=False)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.cast(pa.schema([pa.field(name, getattr(pa, text)()) for name in table.column_names]))
    pq.write_table(
        table,
        tmp_path / "e.parquet",
        row_group_size=n,
    )
    monkeypatch.setattr(source, "PARQUET_BATCH_ROWS", 97)
    entries: list[int] = []
    factorize = assemble.factorize

    def counting(pieces):
        entries.append(sum(len(piece.dictionary) for piece in pieces))
        return factorize(pieces)

    monkeypatch.setattr(assemble, "factorize", counting)
    options = ReaderOptions(use_cache=False)
    from_csv = load_dataset(str(tmp_path / "e.csv"), options)
    from_parquet = load_dataset(str(tmp_path / "e.parquet"), options)
    for column in ("user_ids", "location_ids", "user", "time", "location"):
        assert getattr(from_parquet.events, column).tolist() == getattr(from_csv.events, column).tolist()
    assert from_parquet.report.rows_rejected == from_csv.report.rows_rejected > 0
    assert max(entries) <= n  # each batch kept the entries it uses, not its group's whole dictionary


def test_ids_keep_only_the_dictionary_entries_their_rows_use() -> None:
    """A batch handed a dictionary far longer than itself keeps only the entries it uses, same ids."""
    import pyarrow as pa

    from privacy_studio.core.io.convert import to_ids

    dictionary = pa.array([f"id{i}" for i in range(1000)] + [" "])
    batch = pa.DictionaryArray.from_arrays(pa.array([999, 3, None, 999, 1000, 3], pa.int32()), dictionary)
    ids, ok = to_ids(batch)
    assert len(ids.dictionary) == 3
    assert ids.to_pylist() == ["id999", "id3", None, "id999", " ", "id3"]
    assert ok.tolist() == [True, True, False, True, False, True]
