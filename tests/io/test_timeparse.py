"""Timestamp parsing against a plain-Python reference (datetime + zoneinfo) on random instants."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.io import ReaderError
from privacy_studio.core.io.timeparse import TimeParser

ZONES = ("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata")
instants = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2037, 12, 31)).map(
    lambda d: d.replace(microsecond=0)
)


def parse(values: list[str | None], tz: str = "UTC", **kw: bool) -> tuple[list[int], list[bool]]:
    parser = TimeParser(tz, kw.get("dayfirst", False), kw.get("monthfirst", False), "time", "f.csv")
    secs, ok = parser.parse(pa.array(values, pa.string()))
    return secs.tolist(), ok.tolist()


def reference_naive(wall: datetime, tz: str) -> int:
    """UTC seconds of a wall-clock time: earlier instant when repeated, shifted past a DST gap."""
    zone = ZoneInfo(tz)
    local = wall.replace(tzinfo=zone, fold=0)
    if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != wall:  # inside a gap
        after = (wall + timedelta(hours=1)).replace(tzinfo=zone)
        return int(after.timestamp()) - int(after.timestamp()) % 3600
    return int(local.timestamp())


@given(st.lists(instants, min_size=1, max_size=20), st.sampled_from(ZONES))
def test_naive_iso_read_in_zone(walls: list[datetime], tz: str) -> None:
    secs, ok = parse([w.isoformat(sep=" ") for w in walls], tz)
    assert all(ok)
    assert secs == [reference_naive(w, tz) for w in walls]


@given(st.lists(instants, min_size=1, max_size=20), st.integers(-12 * 4, 14 * 4), st.booleans())
def test_offsets_are_honoured_whatever_tz(walls: list[datetime], quarter_hours: int, zulu: bool) -> None:
    offset = timedelta(minutes=15 * quarter_hours)
    stamps = [w.replace(tzinfo=UTC if zulu else __import__("datetime").timezone(offset)) for w in walls]
    text = [s.isoformat().replace("+00:00", "Z") if zulu else s.isoformat() for s in stamps]
    secs, ok = parse(text, "Asia/Kolkata")
    assert all(ok)
    assert secs == [int(s.timestamp()) for s in stamps]


def test_mixed_naive_and_offset_rows() -> None:
    secs, ok = parse(
        ["2024-01-01 12:00:00", "2024-01-01T12:00:00+02:00", "2024-01-01T12:00:00Z"], "Europe/Paris"
    )
    base = int(datetime(2024, 1, 1, 12, tzinfo=UTC).timestamp())
    assert ok == [True, True, True]
    assert secs == [base - 3600, base - 7200, base]


@given(st.lists(instants, min_size=1, max_size=20), st.booleans())
def test_slashed_dates(walls: list[datetime], dayfirst: bool) -> None:
    fmt = "%d/%m/%Y %H:%M:%S" if dayfirst else "%m/%d/%Y %H:%M:%S"
    secs, ok = parse([w.strftime(fmt) for w in walls], dayfirst=dayfirst, monthfirst=not dayfirst)
    assert all(ok)
    assert secs == [int(w.replace(tzinfo=UTC).timestamp()) for w in walls]


def test_ambiguous_slashed_dates_are_refused() -> None:
    with pytest.raises(ReaderError, match=r"ambiguous.*--dayfirst"):
        parse(["01/02/2024", "03/04/2024"])
    with pytest.raises(ReaderError, match="pass --dayfirst"):
        parse(["13/02/2024", "03/04/2024"])
    secs, ok = parse(["02/13/2024", "03/04/2024"])  # unambiguously month-first
    assert ok == [True, True] and secs[0] == int(datetime(2024, 2, 13, tzinfo=UTC).timestamp())


def test_invalid_calendar_dates_are_rejected_rows() -> None:
    _, ok = parse(["31/02/2024 10:00", "29/02/2024 10:00", "29/02/2023", "1/1/2024 25:00"], dayfirst=True)
    assert ok == [False, True, False, False]


@given(st.lists(st.integers(0, 4_000_000_000), min_size=1, max_size=20))
def test_epoch_seconds(values: list[int]) -> None:
    secs, ok = parse([str(v) for v in values])
    assert all(ok) and secs == values


def test_bad_values_are_rows_not_errors() -> None:
    secs, ok = parse(["2024-01-01 10:00", "yesterday", None, "", "2024-13-01 00:00"])
    assert ok == [True, False, False, False, False]
    assert secs[0] == int(datetime(2024, 1, 1, 10, tzinfo=UTC).timestamp())


def test_a_column_of_non_times_is_one_error() -> None:
    with pytest.raises(ReaderError, match="not times"):
        parse(["apple", "pear", "plum"])


def test_native_arrow_types() -> None:
    parser = TimeParser("Europe/Paris", False, False, "time", "f.parquet")
    naive = pa.array([datetime(2024, 7, 1, 12)], pa.timestamp("us"))
    aware = pa.array([datetime(2024, 7, 1, 12, tzinfo=UTC)], pa.timestamp("ms", tz="UTC"))
    assert parser.parse(naive)[0].tolist() == [int(datetime(2024, 7, 1, 10, tzinfo=UTC).timestamp())]
    assert parser.parse(aware)[0].tolist() == [int(datetime(2024, 7, 1, 12, tzinfo=UTC).timestamp())]
    assert parser.parse(pa.array([np.int64(86400)]))[0].tolist() == [86400]


@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-(2**33), 2**33), max_size=40))
def test_integer_epochs_equal_the_float_path(values: list[int]) -> None:
    """Whole-second integer columns skip the float64 round trip and give what it gives (range included)."""
    import pyarrow.compute as pc

    from privacy_studio.core.io.timeparse import _epoch

    column = pa.array(values, type=pa.int64())
    got, got_ok = _epoch(column)
    want, want_ok = _epoch(pc.cast(column, pa.float64(), safe=False))
    np.testing.assert_array_equal(got_ok, want_ok)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64
