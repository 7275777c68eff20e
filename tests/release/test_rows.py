"""The released rows: time as the bin's local start, per-event rows, centres, pseudonyms."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.generalize import MONDAY_EPOCH
from privacy_studio.core.project import Project
from privacy_studio.core.release import ReleaseOptions, prepare_release, write_release
from privacy_studio.core.release.measure import MeasureSettings
from privacy_studio.core.release.pseudonyms import draw_pseudonyms
from privacy_studio.core.release.table import bin_starts, taken

DAY = 86400


def test_bin_starts_carry_the_offset_of_their_own_day():
    """Paris switched to summer time on Sunday 2024-03-31: that day starts at +01:00, the next at +02:00."""
    monday = MONDAY_EPOCH + (np.datetime64("2024-03-25") - np.datetime64("1970-01-05")).astype(int) * DAY
    texts, utc = bin_starts(monday, DAY, np.array([6, 7, 6]), "Europe/Paris")
    assert texts.tolist() == [
        "2024-03-31T00:00:00+01:00",
        "2024-04-01T00:00:00+02:00",
        "2024-03-31T00:00:00+01:00",
    ]
    assert utc[1] - utc[0] == DAY - 3600  # the 31st had 23 hours
    weeks, _ = bin_starts(monday, 7 * DAY, np.array([0, 1]), "Europe/Paris")
    assert weeks.tolist() == ["2024-03-25T00:00:00+01:00", "2024-04-01T00:00:00+02:00"]


def test_pseudonyms_are_distinct_random_hex():
    drawn = draw_pseudonyms(5000)
    assert len(set(drawn.tolist())) == 5000
    assert all(re.fullmatch(r"[0-9a-f]{16}", p) for p in drawn[:50])
    assert not set(drawn.tolist()) & set(draw_pseudonyms(5000).tolist())


def test_per_event_rows_with_centres_and_columns_read_back(sample_project: Path, tmp_path: Path):
    dataset = Project.load(sample_project).load_dataset()
    options = ReleaseOptions("zip", "1d", rows="events", centres=True, min_people_per_point=5)
    prepared = prepare_release(dataset, options, MeasureSettings(2, 300, 1))
    manifest = write_release(prepared, tmp_path / "events.csv", accept_risk="a test of the layout")
    table = pacsv.read_csv(tmp_path / "events.csv")
    assert table.column_names == ["user", "time", "location", "lat", "lon"]
    assert table.num_rows == manifest.released.events == manifest.measured_on_release.rows
    removed = manifest.removed[0]
    assert manifest.before.events - removed.events == manifest.released.events
    # Centres are those of the zip codes: one position per unit, inside the sample city.
    columns = [table.column(c).to_pylist() for c in ("location", "lat", "lon")]
    pairs = set(zip(*columns, strict=True))
    assert len(pairs) == len(set(table.column("location").to_pylist()))
    lat = np.asarray(table.column("lat"))
    assert np.all((lat > 45) & (lat < 47))
    # Every time is a local midnight, and a row's place is a zip code of the hierarchy.
    with (tmp_path / "events.csv").open(encoding="utf-8") as fh:
        times = [line.split(",")[1] for line in fh.readlines()[1:]]
    assert all(re.fullmatch(r'"2024-0[34]-\d\dT00:00:00\+0[12]:00"', t) for t in times)
    zips = {str(z) for z in table.column("location").to_pylist()}
    assert zips <= set(dataset.hierarchy.unit_ids["zip"].tolist())


def test_the_figures_after_the_last_step_are_those_of_the_release(sample_project: Path):
    dataset = Project.load(sample_project).load_dataset()
    settings = MeasureSettings(2, 300, 1)
    options = ReleaseOptions("district", "1w", max_points_per_person=3, min_people_per_point=500)
    prepared = prepare_release(dataset, options, settings)
    assert [r.step for r in prepared.removed] == ["max_points_per_person", "min_people_per_point"]
    people = [prepared.before.people, *(f.people for f in prepared.measured_after_step)]
    assert [a - b for a, b in itertools.pairwise(people)] == [r.people for r in prepared.removed]
    assert prepared.measured_after_step[-1].class_sizes == prepared.measured.class_sizes
    assert prepared.measured_after_step[-1].people == prepared.released.people == prepared.measured.people
    with_k = prepare_release(dataset, ReleaseOptions("district", "1w", k_anonymity=3), settings)
    assert min(with_k.measured_after_step[0].class_sizes) >= 3


@given(
    st.lists(st.text(max_size=6), min_size=1, max_size=8).flatmap(
        lambda values: st.tuples(st.just(values), st.lists(st.integers(0, len(values) - 1), max_size=30))
    )
)
def test_taken_is_the_values_at_the_codes(values_and_codes):
    """The Arrow take that builds the released columns gives what indexing the values gives."""
    values, codes = values_and_codes
    column = taken(values, np.asarray(codes, dtype=np.int64))
    assert column.type == pa.string() and column.to_pylist() == [values[c] for c in codes]
