"""Local wall-clock time of every event agrees with ``zoneinfo`` to the second, also in zones whose offsets
or clock changes are not whole hours (Adelaide, Lord Howe, St John's, Chatham, Kathmandu, Kolkata)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import open_engine
from privacy_studio.core.events import build_event_table, to_local_seconds
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.engines.helpers import DatasetOf, comparable

ODD_ZONES = [
    "Australia/Adelaide",  # +9:30 / +10:30, changes at 16:30 UTC
    "Australia/Lord_Howe",  # +10:30 / +11: a 30-minute shift
    "America/St_Johns",  # -3:30 / -2:30
    "Pacific/Chatham",  # +12:45 / +13:45
    "Asia/Kathmandu",  # +5:45, from +5:30 in 1986
    "Asia/Kolkata",
    "Europe/Paris",
]
YEARS = (1985, 1987, 2023, 2024)


def zoneinfo_local(utc: int, tz: str) -> int:
    """Wall-clock seconds (counted as if UTC) of one instant, by the standard library."""
    offset = datetime.fromtimestamp(utc, UTC).astimezone(ZoneInfo(tz)).utcoffset()
    return utc + int(offset.total_seconds())


@cache
def transitions(tz: str) -> tuple[int, ...]:
    """Every instant of ``YEARS`` at which the zone's offset changes, found hour by hour then bisected."""
    found = []
    for year in YEARS:
        start = int(datetime(year, 1, 1, tzinfo=UTC).timestamp())
        hours = range(start, start + 366 * 86400, 3600)
        for a in hours:
            b = a + 3600
            if zoneinfo_local(a, tz) - a == zoneinfo_local(b, tz) - b:
                continue
            while b - a > 1:  # the first second with the new offset
                mid = (a + b) // 2
                same = zoneinfo_local(mid, tz) - mid == zoneinfo_local(a, tz) - a
                a, b = (mid, b) if same else (a, mid)
            found.append(b)
    return tuple(found)


def near_transitions(tz: str) -> st.SearchStrategy[int]:
    moments = transitions(tz)
    if not moments:
        return st.integers(0, 2_000_000_000)
    return st.sampled_from(moments).flatmap(lambda c: st.integers(c - 7200, c + 7200))


cases = st.sampled_from(ODD_ZONES).flatmap(
    lambda tz: st.tuples(st.just(tz), st.lists(near_transitions(tz), min_size=1, max_size=50))
)


def test_the_odd_zones_do_change_their_clocks_in_the_years_tested():
    assert len(transitions("Australia/Lord_Howe")) >= 4
    assert len(transitions("Asia/Kathmandu")) == 1
    assert any(t % 3600 == 1800 for t in transitions("Australia/Adelaide"))  # changes at hh:30 UTC


@settings(max_examples=80, deadline=None)
@given(case=cases)
def test_local_seconds_equal_zoneinfo_around_clock_changes(case):
    tz, utc = case
    utc = np.asarray(sorted(utc), dtype=np.int64)
    assert to_local_seconds(utc, tz).tolist() == [zoneinfo_local(int(t), tz) for t in utc]


def test_two_events_in_one_local_hour_after_adelaides_change_share_their_hour_bin():
    change = next(t for t in transitions("Australia/Adelaide") if t > 1_680_000_000)  # 2023-04-01 16:30 UTC
    times = np.array([change + 60, change + 3540])  # 02:01 and 02:59 local, after the clocks went back
    events = build_event_table(np.array(["a", "a"]), times, np.array(["x", "x"]), tz="Australia/Adelaide")
    traces = generalize(events, Profile.parse("raw", "1h"))
    assert traces.indptr.tolist() == [0, 1]
    assert traces.counts.tolist() == [2]


def test_duckdb_bins_like_numba_in_zones_with_half_hour_changes():
    rng = np.random.default_rng(7)
    for tz in ("Australia/Adelaide", "Australia/Lord_Howe", "Pacific/Chatham"):
        moments = [t for t in transitions(tz) if t > 1_600_000_000]
        times = np.concatenate([rng.integers(c - 5400, c + 5400, size=40) for c in moments])
        users = rng.integers(0, 25, size=len(times)).astype(str)
        places = rng.integers(0, 3, size=len(times)).astype(str)
        events = build_event_table(users, times, places, tz=tz)
        risk = RiskSettings(
            spatial=[],
            temporal=[],
            cells=[("raw", "1h"), ("raw", "30min")],
            p_values=[1, 2],
            reference_p=2,
            measures=["unicity", "kanon"],
            samples=30,
            seed=3,
            exact_budget=0,  # the sampled estimate every engine computes
        )
        expected = [comparable(r) for r in run_grid(events, risk)]
        with open_engine("duckdb", threads=1) as engine:
            got = [comparable(r) for r in engine.run_grid(DatasetOf(events, None), risk)]
        assert got == expected, tz


@settings(max_examples=60, deadline=None)
@given(case=cases)
def test_the_reader_turns_wall_clock_times_back_into_the_same_instants(case):
    """Naive times in the odd zones are localized by the reader to the instant they name (times in a
    repeated or skipped hour have their own rules, tested in tests/engines/test_wall_clock.py)."""
    from privacy_studio.core.io.timeparse import localize

    tz, utc = case
    zone = ZoneInfo(tz)
    wall = [zoneinfo_local(t, tz) for t in utc]
    naive = [datetime.fromtimestamp(w, UTC).replace(tzinfo=None) for w in wall]
    plain = [
        t
        for t, n in zip(utc, naive, strict=True)
        if n.replace(tzinfo=zone, fold=0).timestamp() == n.replace(tzinfo=zone, fold=1).timestamp() == t
    ]
    local = np.asarray([zoneinfo_local(t, tz) for t in plain], dtype=np.int64)
    assert localize(local, tz).tolist() == plain


def test_the_period_reads_in_the_data_zone_across_a_clock_change():
    """Worked example: 2024-03-31 00:30 UTC is 01:30 in Paris (winter time), 01:30 UTC is 03:30 (summer)."""
    from privacy_studio.core.io.dataset import period_text

    start = int(datetime(2024, 3, 31, 0, 30, tzinfo=UTC).timestamp())
    assert (
        period_text(start, start + 3600, "Europe/Paris")
        == "2024-03-31 01:30 to 2024-03-31 03:30 Europe/Paris"
    )
    assert period_text(start, start, "UTC") == "2024-03-31 00:30 to 2024-03-31 00:30 UTC"
