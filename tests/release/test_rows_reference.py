"""The released rows against a slow reference: bins by local calendar day, counts, suppression, pseudonyms."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import Dataset, ReaderOptions
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.release import ReleaseOptions, prepare_release
from privacy_studio.core.release.measure import MeasureSettings
from tests.release import reference

TZ = "Europe/Paris"
START = int(datetime(2024, 3, 29, tzinfo=UTC).timestamp())  # the period crosses the change to summer time

events_strategy = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 5 * 86400), st.sampled_from(["a", "b", "c"])),
    min_size=1,
    max_size=60,
)
threshold = st.none() | st.integers(1, 3)


def _dataset(rows: list[tuple[int, int, str]]) -> Dataset:
    users, offsets, places = zip(*rows, strict=True)
    events = build_event_table(
        np.asarray([f"u{u}" for u in users]), START + np.asarray(offsets), np.asarray(places), tz=TZ
    )
    return Dataset(events, None, ImportReport("test"), [], ReaderOptions(tz=TZ))


def _local_day(utc: int) -> str:
    """The local midnight starting the event's calendar day, as ISO text with that midnight's offset."""
    day = datetime.fromtimestamp(utc, ZoneInfo(TZ)).date()
    return datetime(day.year, day.month, day.day, tzinfo=ZoneInfo(TZ)).isoformat()


@given(events_strategy, threshold, threshold, threshold, st.sampled_from(["points", "counts", "events"]))
def test_released_rows_equal_the_reference(rows, m, k, n, layout):
    dataset = _dataset(rows)
    counts = layout == "counts"
    layout = "points" if counts else layout
    options = ReleaseOptions(
        "raw",
        "1d",
        rows=layout,
        counts=counts,
        min_people_per_point=m,
        k_anonymity=k,
        max_points_per_person=n,
    )
    prepared = prepare_release(dataset, options, MeasureSettings(1, 50, 0))
    # Reference: person -> {(place, local day start): events}, then the dictionary suppression.
    traces: dict[str, Counter] = {}
    for user, offset, place in rows:
        traces.setdefault(f"u{user}", Counter())[(place, _local_day(START + offset))] += 1
    ids = {point: i for i, point in enumerate(sorted({p for t in traces.values() for p in t}))}
    numbered = {u: {ids[p]: c for p, c in t.items()} for u, t in traces.items()}
    by_id = {i: p for p, i in ids.items()}
    kept = reference.suppress(numbered, m, k, n, counts or layout == "events")
    expected = Counter()
    for user, trace in kept.items():
        for point, c in trace.items():
            place, day = by_id[point]
            expected[(user, day, place, c if counts else 1)] += 1 if layout == "points" else c
    mapping = dict(
        zip(*(prepared.mapping.column(c).to_pylist() for c in ("pseudonym", "original")), strict=True)
    )
    table = prepared.rows.table.to_pydict()
    assert ("count" in table) == counts  # a count column only when asked for
    count = table["count"] if counts else [1] * len(table["user"])
    released = Counter(
        zip([mapping[p] for p in table["user"]], table["time"], table["location"], count, strict=True)
    )
    assert released == expected
    assert set(mapping.values()) == {u for u, t in kept.items() if t}
    assert table["user"] == sorted(table["user"])  # ordered by pseudonym, never by input id
