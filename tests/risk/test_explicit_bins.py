"""Explicit knowledge lands in the bins of the events it describes, at every time width (a file's times
read like the data's: epoch seconds, ISO with an offset, naive wall-clock times in the data's zone)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.core.test_generalize import reference_local_bin

WIDTHS = {"1h": 3600, "6h": 6 * 3600, "1d": 86400, "1w": 7 * 86400, "all": None}
TZ = "Australia/Adelaide"
START = 1_680_300_000  # 2023-03-31: the window covers Adelaide's change of 2 April (at 16:30 UTC)


def time_text(t: int, style: int) -> str:
    """One of the three spellings of an instant a knowledge file may use."""
    local = datetime.fromtimestamp(t, UTC).astimezone(ZoneInfo(TZ))
    if style == 0:
        return str(t)
    if style == 1:
        return local.isoformat()
    return local.replace(tzinfo=None).isoformat(sep=" ")


def unambiguous(t: int) -> bool:
    """The naive wall-clock time of ``t`` names only ``t`` (not inside the repeated hour)."""
    zone = ZoneInfo(TZ)
    naive = datetime.fromtimestamp(t, UTC).astimezone(zone).replace(tzinfo=None)
    return all(naive.replace(tzinfo=zone, fold=f).timestamp() == t for f in (0, 1))


def reference_risk(users, times, locs, known, width):
    """(unicity, k-disclosure) over the listed users, each knowing its listed events' (place, bin)."""
    traces: dict[str, set] = {}
    for u, t, x in zip(users, times, locs, strict=True):
        traces.setdefault(u, set()).add((x, reference_local_bin(t, TZ, width)))
    sizes = []
    for events in known.values():
        points = {(x, reference_local_bin(t, TZ, width)) for t, x in events}
        sizes.append(sum(points <= trace for trace in traces.values()))
    return float(np.mean([s == 1 for s in sizes])), float(np.mean([1 / s for s in sizes]))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), width=st.sampled_from(sorted(WIDTHS)))
def test_explicit_knowledge_is_binned_as_the_events_at_every_width(tmp_path_factory, seed, width):
    rng = np.random.default_rng(seed)
    n = 12
    users = [f"u{i}" for i in rng.integers(0, n, size=80)]
    times = (START + rng.integers(0, 4 * 86400, size=80)).tolist()
    locs = [f"L{i}" for i in rng.integers(0, 4, size=80)]
    events = build_event_table(np.asarray(users), np.asarray(times), np.asarray(locs), tz=TZ)
    known: dict[str, list] = {}
    lines = ["user_id,time,location_id"]
    style = int(rng.integers(0, 3))  # one spelling per file, as the data reader expects
    for j in rng.choice(80, size=10, replace=False):
        if style == 2 and not unambiguous(times[j]):
            continue
        known.setdefault(users[j], []).append((times[j], locs[j]))
        lines.append(f"{users[j]},{time_text(times[j], style)},{locs[j]}")
    path = tmp_path_factory.mktemp("known") / "known.csv"
    path.write_text("\n".join(lines) + "\n")
    risk = RiskSettings(["raw"], [width], knowledge=f"explicit:{path}", measures=["unicity", "kdisc"])
    (result,) = list(run_grid(events, risk))
    (row,) = result.by_p
    unicity, kdisc = reference_risk(users, times, locs, known, WIDTHS[width])
    assert row.n_sampled == len(known)
    assert row.unicity == pytest.approx(unicity)
    assert row.k_disclosure == pytest.approx(kdisc)


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_a_known_event_at_the_instant_of_the_users_own_event_is_accepted(tmp_path, width):
    times = [START, START + 3 * 86400 + 1800]  # the second one after Adelaide's clocks went back
    events = build_event_table(
        np.array(["a", "a", "b"]), np.array([*times, START]), np.array(["x", "y", "y"]), tz=TZ
    )
    path = tmp_path / "known.csv"
    path.write_text(f"user_id,time,location_id\na,{time_text(times[1], 1)},y\na,{time_text(times[0], 1)},x\n")
    (result,) = list(run_grid(events, RiskSettings(["raw"], [width], knowledge=f"explicit:{path}")))
    assert result.by_p[0].unicity == 1.0
    assert math.isfinite(result.by_p[0].k_disclosure)
