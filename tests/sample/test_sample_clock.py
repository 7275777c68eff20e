"""Local wall-clock to UTC and ISO 8601 text, against Python's zoneinfo as the reference."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.sample.city import pseudonyms
from privacy_studio.core.sample.clock import Period, local_to_utc
from privacy_studio.core.sample.writers import iso_times

# Zones whose changes are whole hours (the generator's calendar works hour by hour), both hemispheres.
ZONES = ["Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC"]
YEAR_2024 = (1_704_067_200, 1_735_689_600)  # naive local seconds of 2024-01-01 .. 2025-01-01


def _reference_utc(local: int, tz: str) -> int:
    """Naive wall-clock seconds -> UTC: the first reading of repeated times, gaps read with the old offset."""
    naive = datetime.fromtimestamp(local, UTC).replace(tzinfo=None)
    return int(naive.replace(tzinfo=ZoneInfo(tz), fold=0).timestamp())


@settings(max_examples=40, deadline=None)
@given(
    tz=st.sampled_from(ZONES),
    local=st.lists(st.integers(*YEAR_2024), min_size=1, max_size=40),
)
def test_local_to_utc_matches_zoneinfo(tz, local):
    got = local_to_utc(np.array(local, dtype=np.int64), tz)
    assert got.tolist() == [_reference_utc(v, tz) for v in local]


def test_local_to_utc_across_the_paris_spring_and_autumn_changes():
    def local(text: str) -> int:
        return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())

    def utc(text: str) -> int:
        return int(datetime.fromisoformat(text).timestamp())

    cases = {
        "2024-03-31 01:59:59": "2024-03-31T00:59:59+00:00",
        "2024-03-31 02:30:00": "2024-03-31T01:30:00+00:00",  # skipped hour: moves forward to 03:30 CEST
        "2024-03-31 03:00:00": "2024-03-31T01:00:00+00:00",
        "2024-10-27 02:30:00": "2024-10-27T00:30:00+00:00",  # repeated hour: the summer-time reading
        "2024-10-27 03:00:00": "2024-10-27T02:00:00+00:00",
    }
    got = local_to_utc(np.array([local(k) for k in cases]), "Europe/Paris")
    assert got.tolist() == [utc(v) for v in cases.values()]


@settings(max_examples=40, deadline=None)
@given(tz=st.sampled_from(ZONES), utc=st.lists(st.integers(0, 2_000_000_000), min_size=1, max_size=40))
def test_iso_times_match_datetime_isoformat(tz, utc):
    zone = ZoneInfo(tz)
    expected = [datetime.fromtimestamp(t, zone).isoformat() for t in utc]
    assert iso_times(np.array(utc), tz).to_pylist() == expected
    plain = [datetime.fromtimestamp(t, zone).strftime("%Y-%m-%d %H:%M:%S") for t in utc]
    assert iso_times(np.array(utc), tz, with_offset=False).to_pylist() == plain


def test_period_calendar():
    period = Period.starting("2024-03-04", 28, "Europe/Paris", offset_days=28)
    assert period.first_weekday == 0  # 2024-04-01 is a Monday
    assert period.iso_start() == "2024-04-01"
    lo, hi = period.bounds_utc()
    assert datetime.fromtimestamp(lo, UTC).isoformat() == "2024-03-31T22:00:00+00:00"
    assert hi - lo == 28 * 86_400


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 3000),
    seed=st.integers(0, 2**32 - 1),
    style=st.sampled_from([("abcdef", 16, 7), ("C", 10, 10), ("xy", 10, 4)]),
)
def test_pseudonyms_are_distinct_and_never_look_numeric(n, seed, style):
    lead, base, digits = style
    ids = pseudonyms(n, np.random.default_rng(seed), lead, base=base, digits=digits).tolist()
    assert len(set(ids)) == n
    allowed = set("0123456789abcdef"[:base])
    assert all(len(i) == digits + 1 and i[0] in lead and set(i[1:]) <= allowed for i in ids)


def test_pseudonyms_refuse_a_too_small_space():
    with pytest.raises(ValueError, match="do not fit"):
        pseudonyms(300, np.random.default_rng(0), "x", base=10, digits=3)


def test_iso_times_of_nothing_is_an_empty_text_column():
    empty = iso_times(np.array([], dtype=np.int64), "Europe/Paris")
    assert len(empty) == 0 and str(empty.type) == "string"
