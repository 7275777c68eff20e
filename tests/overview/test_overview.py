"""The dataset overview DuckDB computes, against a slow pandas reference and the in-memory dataset; its
cache is trusted only when its checks pass; the sizing decides (or the override forces) the overview."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privacy_studio.core.engines import EventFiles
from privacy_studio.core.engines.engine_choice import EngineChoice
from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset
from privacy_studio.core.io.overview import BadOverview, DatasetOverview
from privacy_studio.core.overview.compute import overview_of_dataset, overview_of_files
from privacy_studio.core.overview.project_data import (
    DATASET_BYTES_PER_EVENT,
    SIZE_ENV,
    exceeds_memory,
    files_overview,
)
from privacy_studio.core.overview.store import _digest, cached_overview, entry_path, overview_key

ANTENNAS = ["A1", "A2", "A3", "A4"]
START = 1_709_251_200  # 2024-03-01T00:00:00Z

rows = st.lists(
    st.tuples(
        st.sampled_from(["u1", "u2", "u3", "u4", "u5", ""]),  # "" : a missing user id
        st.integers(-1, 9 * 86400).map(lambda t: None if t < 0 else t),  # None: an unparsable time
        st.sampled_from([*ANTENNAS, "ZZ"]),  # ZZ is not in the antennas file
    ),
    min_size=1,
    max_size=60,
)


def write_input(folder: Path, data: list[tuple[str, int | None, str]]) -> EventFiles:
    (folder / "antennas.csv").write_text(
        "antenna_id,latitude,longitude\n"
        + "".join(f"{a},{45 + i / 100},{4 + i / 100}\n" for i, a in enumerate(ANTENNAS))
    )
    lines = ["user,time,location"]
    lines += [f"{u},{'soon' if t is None else START + t},{a}" for u, t, a in data]
    (folder / "events.csv").write_text("\n".join(lines) + "\n")
    return EventFiles(str(folder / "events.csv"), ReaderOptions(antennas=str(folder / "antennas.csv")))


def reference(data: list[tuple[str, int | None, str]]) -> dict:
    """What the overview must say, counted row by row with pandas from the rows as written."""
    table = pd.DataFrame(data, columns=["user", "t", "place"])
    kept = table[(table.user != "") & table.t.notna() & table.place.isin(ANTENNAS)].copy()
    kept["t"] = kept.t.astype("int64") + START
    per_user = kept.groupby("user").size()
    per_person = per_user.value_counts().sort_index()
    hours = (kept.t // 3600).value_counts()
    return {
        "people": int(kept.user.nunique()),
        "events": len(kept),
        "rejected": len(table) - len(kept),
        "missing user": int((table.user == "").sum()),
        "per_person": (per_person.index.tolist(), per_person.tolist()),
        "places": [int((kept.place == a).sum()) for a in ANTENNAS],
        "hours": {int(h): int(n) for h, n in hours.items()},
        "period": (int(kept.t.min()), int(kept.t.max())) if len(kept) else None,
        "median": float(np.median(per_user)) if len(per_user) else None,
    }


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=rows)
def test_overview_matches_a_row_by_row_count(tmp_path_factory, data) -> None:
    files = write_input(tmp_path_factory.mktemp("ov"), data)
    expected = reference(data)
    try:
        load_dataset(files.path, files.options)
    except ReaderError:  # no usable rows, or no times at all: refused in one sentence as the reader does
        with pytest.raises(ValueError):
            overview_of_files(files)
        return
    ov = overview_of_files(files)
    assert (ov.people, ov.events, ov.period) == (expected["people"], expected["events"], expected["period"])
    assert ov.per_person == expected["per_person"]
    assert ov.places.ids == ANTENNAS and ov.places.events == expected["places"]
    hours = {ov.first_hour + i: n for i, n in enumerate(ov.hourly) if n}
    assert hours == expected["hours"]
    assert ov.report.rows_read == len(data) and ov.report.rows_rejected == expected["rejected"]
    if expected["missing user"]:
        assert ov.report.rejected["missing user id"].count == expected["missing user"]
    assert ov.quantile(0.5) == expected["median"]


@pytest.fixture
def sample_files(sample_subset) -> EventFiles:
    options = ReaderOptions(
        tz="Europe/Paris", antennas=str(sample_subset["antennas"]), hierarchy=str(sample_subset["hierarchy"])
    )
    return EventFiles(str(sample_subset["events"]), options)


def test_overview_by_duckdb_is_the_in_memory_one(sample_files) -> None:
    """Same summary, counts, coordinates and import report as the dataset the reader loads."""
    by_engine = overview_of_files(sample_files).to_dict()
    in_memory = overview_of_dataset(load_dataset(sample_files.path, sample_files.options)).to_dict()
    assert by_engine.pop("computed_by") == "duckdb" and in_memory.pop("computed_by") == "memory"
    assert by_engine["report"]["notes"] and by_engine == in_memory


def test_summary_and_quantiles_are_those_of_every_person(sample_files) -> None:
    dataset = load_dataset(sample_files.path, sample_files.options)
    assert overview_of_dataset(dataset).summary() == dataset.summary()


def test_cache_is_used_only_while_its_checks_pass(sample_files, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(tmp_path / "cache"))
    first = files_overview(sample_files)
    key = overview_key(sample_files.path, sample_files.options)
    assert cached_overview(key) == first
    entry = json.loads(entry_path(key).read_text())
    entry["overview"]["people"] += 1  # tampered: the digest no longer matches
    entry_path(key).write_text(json.dumps(entry))
    assert cached_overview(key) is None and not entry_path(key).exists()
    files_overview(sample_files)
    entry = json.loads(entry_path(key).read_text())
    entry["overview"]["people"] += 1
    entry["sha256"] = _digest(entry["overview"])  # a consistent digest, but the people no longer add up
    entry_path(key).write_text(json.dumps(entry))
    assert cached_overview(key) is None


def test_another_reading_of_the_file_is_another_entry(sample_files) -> None:
    other = EventFiles(sample_files.path, ReaderOptions(tz="UTC", antennas=sample_files.options.antennas))
    assert overview_key(sample_files.path, sample_files.options) != overview_key(other.path, other.options)


def test_aggregates_that_disagree_are_refused(sample_files) -> None:
    good = overview_of_files(sample_files).to_dict()
    for key, value in (("events", good["events"] + 1), ("hourly", good["hourly"][1:])):
        with pytest.raises(BadOverview):
            DatasetOverview.from_dict({**good, key: value})


def test_sizing_decides_unless_overridden(sample_files, monkeypatch) -> None:
    auto, numba = EngineChoice("auto"), EngineChoice("numba")
    monkeypatch.delenv(SIZE_ENV, raising=False)
    assert not exceeds_memory(sample_files, auto)  # a few thousand events fit
    monkeypatch.setenv(SIZE_ENV, "larger")
    assert exceeds_memory(sample_files, auto) and not exceeds_memory(sample_files, numba)
    monkeypatch.setattr("privacy_studio.core.engines.auto.available_memory", lambda: 10_000)
    monkeypatch.setenv(SIZE_ENV, "auto")
    assert exceeds_memory(sample_files, auto)  # the sizing of --engine auto: it would not fit
    monkeypatch.setenv(SIZE_ENV, "fits")
    assert not exceeds_memory(sample_files, auto)
    monkeypatch.setenv(SIZE_ENV, "huge")
    with pytest.raises(ValueError, match=SIZE_ENV):
        exceeds_memory(sample_files, auto)


def test_events_that_fit_the_engine_but_not_the_window_open_from_the_overview(sample_files, monkeypatch):
    """``--engine auto`` would hold the compact columns, but a ``Dataset`` takes about three times as much:
    the window and ``report`` must not load it (a 10M month is about 42 GB as a ``Dataset``)."""
    from privacy_studio.core.engines import auto

    monkeypatch.delenv(SIZE_ENV, raising=False)
    rows = auto.input_rows(sample_files.path)
    between = (
        auto.FIXED_BYTES + rows * (auto.BYTES_PER_EVENT + DATASET_BYTES_PER_EVENT) / 2
    ) / auto.USABLE_SHARE
    monkeypatch.setattr(auto, "available_memory", lambda: int(between))
    assert auto.resolve_engine("auto", [sample_files.path], sample_files.options) == "numba"
    assert exceeds_memory(sample_files, EngineChoice("auto"))
    monkeypatch.setattr(auto, "available_memory", lambda: int(2 * between))
    assert not exceeds_memory(sample_files, EngineChoice("auto"))


def test_a_file_with_its_own_coordinates_needs_more_memory_as_a_dataset(tmp_path, monkeypatch):
    """Each event's own latitude and longitude (and the x/y made of them) are further numbers a ``Dataset``
    holds: memory enough for plain events with a place id is not enough for as many with coordinates."""
    from privacy_studio.core.engines import auto
    from privacy_studio.core.overview.project_data import dataset_fits

    rows = 200
    plain, located = tmp_path / "plain.csv", tmp_path / "located.csv"
    times = [f"2024-03-04 {h % 24:02d}:00:00" for h in range(rows)]
    plain.write_text(
        "user,time,location\n" + "".join(f"u{i % 7},{t},a{i % 5}\n" for i, t in enumerate(times))
    )
    located.write_text(
        "user,time,lat,lon\n" + "".join(f"u{i % 7},{t},48.{i % 9},2.{i % 4}\n" for i, t in enumerate(times))
    )
    monkeypatch.setattr(auto, "input_rows", lambda path: rows)  # for CSV it is an estimate from the size
    enough_for_plain = auto.FIXED_BYTES + rows * DATASET_BYTES_PER_EVENT
    monkeypatch.setattr(auto, "available_memory", lambda: int(enough_for_plain / auto.USABLE_SHARE) + 1)
    assert dataset_fits(EventFiles(str(plain), ReaderOptions()))
    assert not dataset_fits(EventFiles(str(located), ReaderOptions()))
