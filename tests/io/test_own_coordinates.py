"""A file's own x_km/y_km are the events' coordinates even beside lat/lon (issue #16 item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.io import ReaderOptions, load_dataset

# lat/lon deliberately far from anything x_km/y_km could be the projection of.
ROWS = [
    ("u1", "2024-03-05T10:00:00Z", "A", 1.5, 2.0, 10.0, 20.0),
    ("u1", "2024-03-05T11:00:00Z", "A", 2.5, 4.0, 10.0, 20.0),
    ("u2", "2024-03-05T10:30:00Z", "B", -3.0, 0.25, 11.0, 21.0),
]


def write(tmp_path, rows=ROWS, header="user,time,location,x_km,y_km,lat,lon"):
    path = tmp_path / "events.csv"
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def test_events_keep_the_files_km_and_places_sit_at_their_events_mean(tmp_path):
    events = load_dataset(write(tmp_path), ReaderOptions(use_cache=False)).events
    order = np.argsort(events.time)
    assert events.x_km[order].tolist() == [1.5, -3.0, 2.5]
    assert events.y_km[order].tolist() == [2.0, 0.25, 4.0]
    assert events.lat[order].tolist() == [10.0, 11.0, 10.0]
    places = events.locations
    by_id = dict(
        zip(places.ids.tolist(), zip(places.x_km.tolist(), places.y_km.tolist(), strict=True), strict=True)
    )
    assert by_id == {"A": (2.0, 3.0), "B": (-3.0, 0.25)}


def test_without_location_ids_the_files_km_are_kept(tmp_path):
    rows = [r[:2] + r[3:] for r in ROWS]
    dataset = load_dataset(
        write(tmp_path, rows, "user,time,x_km,y_km,lat,lon"), ReaderOptions(use_cache=False)
    )
    assert sorted(dataset.events.x_km.tolist()) == [-3.0, 1.5, 2.5]
    assert any("own x_km/y_km" in note for note in dataset.report.notes)


def test_a_side_file_places_its_places_and_the_events_keep_their_km(tmp_path):
    (tmp_path / "antennas.csv").write_text("antenna_id,latitude,longitude\nA,45.0,4.0\nB,45.01,4.0\n")
    options = ReaderOptions(antennas=str(tmp_path / "antennas.csv"), use_cache=False)
    dataset = load_dataset(write(tmp_path), options)
    events = dataset.events
    assert sorted(events.x_km.tolist()) == [-3.0, 1.5, 2.5]
    places = events.locations
    gap = places.y_km[places.ids.tolist().index("B")] - places.y_km[places.ids.tolist().index("A")]
    assert gap == pytest.approx(1.11, abs=0.01)  # 0.01° of latitude, projected by the studio
    assert any("side file's lat/lon" in note for note in dataset.report.notes)


def test_rows_with_invalid_km_are_rejected_not_filled(tmp_path):
    rows = [*ROWS, ("u3", "2024-03-05T12:00:00Z", "A", "x", 1.0, 10.0, 20.0)]
    dataset = load_dataset(write(tmp_path, rows), ReaderOptions(use_cache=False))
    assert dataset.events.n_events == 3
    assert dataset.report.rows_rejected == 1
