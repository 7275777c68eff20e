"""The columnar cache returns an identical dataset, is keyed by content and options, and can be bypassed."""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from privacy_studio.core.events import EventTable
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.io import cache as cache_module
from privacy_studio.core.io.cache import cache_key

CDR = """interaction,direction,correspondent_id,datetime,call_duration,antenna_id
call,in,A,2014-03-02 07:13:30,210,1
text,out,B,2014-03-02 08:00:00,,2
"""


def assert_same_events(a: EventTable, b: EventTable) -> None:
    for f in fields(EventTable):
        if f.name.startswith("_"):
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "locations":
            assert (x is None) == (y is None)
            if x is not None:
                for name in ("ids", "lat", "lon", "x_km", "y_km"):
                    np.testing.assert_array_equal(getattr(x, name), getattr(y, name))
        elif isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


def test_round_trip_equality(write, private_cache: Path) -> None:
    antennas = write("antennas.csv", "antenna_id,latitude,longitude\n1,42.3,-71\n2,42.4,-71.1\n")
    hierarchy = write("h.csv", "antenna,zip\n1,z1\n2,z2\n")
    path = write("ego.csv", CDR)
    options = ReaderOptions(antennas=antennas, hierarchy=hierarchy, tz="America/New_York")
    first = load_dataset(path, options)
    assert len(list(private_cache.iterdir())) == 1
    again = load_dataset(path, options)
    assert "re-opened from the columnar cache" in again.report.notes
    assert isinstance(again.events.time, np.memmap)
    assert_same_events(first.events, again.events)
    assert again.hierarchy is not None and first.hierarchy is not None
    assert again.hierarchy.levels == first.hierarchy.levels
    np.testing.assert_array_equal(again.hierarchy.unit_codes["zip"], first.hierarchy.unit_codes["zip"])
    assert again.sources == first.sources
    assert again.summary() == first.summary()


def test_key_follows_content_and_options(write) -> None:
    path = write("e.csv", "user,time,location\nu,2024-01-01,a\n")
    key = cache_key(path, ReaderOptions())
    assert cache_key(path, ReaderOptions(use_cache=False)) == key
    assert cache_key(path, ReaderOptions(tz="Europe/Paris")) != key
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("v,2024-01-02,b\n")
    assert cache_key(path, ReaderOptions()) != key
    assert load_dataset(path).events.n_events == 2


def test_same_size_edit_is_seen(write) -> None:
    path = write("e.csv", "user,time,location\nu,2024-01-01,a\n")
    assert load_dataset(path).events.location_ids.tolist() == ["a"]
    st = os.stat(path)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("user,time,location\nu,2024-01-01,b\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and mtime: the sampled bytes differ
    assert load_dataset(path).events.location_ids.tolist() == ["b"]


def test_bypass(write, private_cache: Path) -> None:
    path = write("e.csv", "user,time,location\nu,2024-01-01,a\n")
    ds = load_dataset(path, ReaderOptions(use_cache=False))
    assert list(private_cache.iterdir()) == []
    assert "re-opened from the columnar cache" not in ds.report.notes


def test_unwritable_cache_only_costs_speed(write, monkeypatch, tmp_path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(blocker / "sub"))
    path = write("e.csv", "user,time,location\nu,2024-01-01,a\n")
    assert load_dataset(path).events.n_events == 1


def test_an_entry_of_an_older_layout_is_replaced(write, private_cache: Path) -> None:
    """A folder cannot be renamed over a non-empty one: storing must replace the old entry, not keep it."""
    import json

    from privacy_studio.core.io import cache

    path = write("ego.csv", CDR)
    dataset = load_dataset(path, ReaderOptions(use_cache=False))
    old = private_cache / "entry"
    old.mkdir()
    (old / "meta.json").write_text(json.dumps({"version": -1}), encoding="utf-8")
    cache.store("entry", dataset)
    again = cache.load("entry", dataset.options)
    assert again is not None
    assert_same_events(dataset.events, again.events)


@given(
    values=hnp.arrays(
        st.sampled_from([np.int32, np.int64, np.float64, np.dtype("U7")]),
        hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=40),
    )
)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_stored_column_is_checked_against_the_digest_of_its_bytes(values, tmp_path) -> None:
    """Re-opening reads each file in blocks instead of through its memory map: the same digest as the
    array's bytes, for every dtype of column the cache stores (empty ones included)."""
    path = tmp_path / "column.npy"
    np.save(path, values)
    mapped = np.load(path, mmap_mode="r")
    assert cache_module._file_digest(path, mapped.offset, mapped.nbytes) == cache_module._digest(values)
