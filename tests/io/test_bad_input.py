"""Bad input gives one clear ReaderError or rejected rows with the right reasons and line numbers."""

from __future__ import annotations

import gzip
import math
import os
import tempfile
from collections import Counter
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset
from privacy_studio.core.io.report import FIRST_LINES

HEADER = "user,time,location,lat,lon"
GOOD = "u1,2024-03-04 10:00:00,a1,45.0,4.0"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("\n\n  \n", "the file is empty"),
        (HEADER + "\n", "header but no data rows"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary data"),
        (b"user,time\n\xff\xfe\xfa,\xc3\x28 2024\n" * 3, "not UTF-8"),
        ("user,time,user,location\nu,2024-01-01,v,a\n", "names column 'user' twice"),
        ("time,location\n2024-01-01,a\n", "no user column"),
        ("user,location\nu,a\n", "no time column"),
        ("user,time\nu,2024-01-01\n", "no place column"),
        ("user,time,lat\nu,2024-01-01,3\n", "latitude and longitude must come together"),
        ("user,time,location\nu,apple,a\nv,pear,b\n", "are not times"),
        ("user,time,location\nu,01/02/2024,a\n", "ambiguous"),
    ],
)
def test_clear_errors(write, content: str | bytes, message: str) -> None:
    with pytest.raises(ReaderError, match=message) as info:
        load_dataset(write("bad.csv", content))
    assert "bad.csv" in str(info.value)


def test_wrong_delimiter(write) -> None:
    path = write("e.csv", f"{HEADER}\n{GOOD}\n")
    with pytest.raises(ReaderError, match="looks comma-separated"):
        load_dataset(path, ReaderOptions(delimiter=";"))


def test_missing_files_and_bad_options(write, tmp_path) -> None:
    with pytest.raises(ReaderError, match="file not found"):
        load_dataset(str(tmp_path / "nope.csv"))
    path = write("e.csv", f"{HEADER}\n{GOOD}\n")
    with pytest.raises(ReaderError, match="file not found"):
        load_dataset(path, ReaderOptions(antennas=str(tmp_path / "none.csv")))
    with pytest.raises(ReaderError, match="unknown time zone"):
        load_dataset(path, ReaderOptions(tz="Mars/Olympus"))
    os.makedirs(tmp_path / "empty_dir")
    with pytest.raises(ReaderError, match="no data files"):
        load_dataset(str(tmp_path / "empty_dir"))
    with pytest.raises(ValueError, match="unknown column role"):
        ReaderOptions(mapping={"colour": "x"})
    with pytest.raises(ValueError, match="exclude each other"):
        ReaderOptions(dayfirst=True, monthfirst=True)


def test_damaged_compressed_files(write) -> None:
    good = gzip.compress((f"{HEADER}\n" + f"{GOOD}\n" * 2000).encode())
    with pytest.raises(ReaderError, match=r"bad\.csv\.gz"):
        load_dataset(write("bad.csv.gz", good[: len(good) // 2]))
    with pytest.raises(ReaderError, match="zip"):
        load_dataset(write("bad.zip", b"PK\x03\x04" + b"garbage" * 10))


def test_bad_side_files(write) -> None:
    path = write("e.csv", f"{HEADER}\n{GOOD}\n")
    bad = write("antennas.csv", "antenna_id,latitude,longitude\n1,nan,4\n")
    with pytest.raises(ReaderError, match="line 2: missing or invalid latitude"):
        load_dataset(path, ReaderOptions(antennas=bad))
    twice = write("h.csv", "antenna,zip\n1,z\n1,y\n")
    with pytest.raises(ReaderError, match="listed twice"):
        load_dataset(path, ReaderOptions(hierarchy=twice))


def test_no_usable_rows_is_an_error_with_the_report(write) -> None:
    path = write("e.csv", f"{HEADER}\nu,2024-01-01,a,,\nv,2024-01-01,a,x,y\n")
    with pytest.raises(
        ReaderError, match=r"(?s)no usable rows.*2 × missing or invalid coordinate \(lines 2, 3\)"
    ):
        load_dataset(path)


# -- random malformed lines against a plain-Python reference ------------------------------------------

CORRUPTIONS = {
    "blank": lambda f: "",
    "few fields": lambda f: ",".join(f[:3]),
    "many fields": lambda f: ",".join([*f, "extra"]),
    "no user": lambda f: ",".join(["", *f[1:]]),
    "bad time": lambda f: ",".join([f[0], "2024-13-45 10:00:00", *f[2:]]),
    "text time": lambda f: ",".join([f[0], "soon", *f[2:]]),
    "no location": lambda f: ",".join([*f[:2], "", *f[3:]]),
    "nan lat": lambda f: ",".join([*f[:3], "nan", f[4]]),
    "blank lon": lambda f: ",".join([*f[:4], ""]),
    "lat out of range": lambda f: ",".join([*f[:3], "95.5", f[4]]),
}
REASON = {
    "blank": "blank line",
    "few fields": "wrong number of fields (expected 5)",
    "many fields": "wrong number of fields (expected 5)",
    "no user": "missing user id",
    "bad time": "unparsable time",
    "text time": "unparsable time",
    "no location": "missing location id",
    "nan lat": "missing or invalid coordinate",
    "blank lon": "missing or invalid coordinate",
    "lat out of range": "missing or invalid coordinate",
}

good_rows = st.tuples(
    st.sampled_from(["u1", "u2", "alice", "7"]),
    st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2025, 1, 1)).map(
        lambda d: d.replace(microsecond=0)
    ),
    st.sampled_from(["a1", "a2", "b"]),
    st.floats(-89, 89).map(lambda x: round(x, 5)),
    st.floats(-179, 179).map(lambda x: round(x, 5)),
)


@given(
    st.lists(good_rows, min_size=3, max_size=40),
    st.lists(st.tuples(st.sampled_from(sorted(CORRUPTIONS)), st.integers(0, 10_000)), max_size=12),
)
def test_random_malformed_lines(rows: list[tuple], corruptions: list[tuple[str, int]]) -> None:
    lines = [f"{u},{t.isoformat(sep=' ')},{loc},{lat},{lon}" for u, t, loc, lat, lon in rows]
    kinds = ["good"] * len(lines)
    for kind, where in corruptions[: len(rows) // 2]:
        i = where % len(lines)
        if kinds[i] == "good":
            lines[i] = CORRUPTIONS[kind](lines[i].split(","))
            kinds[i] = kind
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "events.csv")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join([HEADER, *lines]) + "\n")
        ds = load_dataset(path, ReaderOptions(use_cache=False))
    report = ds.report
    expected = Counter(REASON[k] for k in kinds if k != "good")
    assert {r: e.count for r, e in report.rejected.items()} == dict(expected)
    for reason, entry in report.rejected.items():
        lines_expected = [i + 2 for i, k in enumerate(kinds) if k != "good" and REASON[k] == reason]
        assert entry.first_lines == lines_expected[:FIRST_LINES]
    assert report.rows_read == len(lines) and report.rows_kept == kinds.count("good")
    ev = ds.events
    got = sorted(
        (ev.user_ids[u], int(t), ev.location_ids[loc], float(la))
        for u, t, loc, la in zip(ev.user, ev.time, ev.location, ev.lat, strict=True)
    )
    want = sorted(
        (u, int(t.replace(tzinfo=UTC).timestamp()), loc, float(lat))
        for (u, t, loc, lat, _), k in zip(rows, kinds, strict=True)
        if k == "good"
    )
    assert got == want
    assert not any(math.isnan(x) for x in ev.lon)
