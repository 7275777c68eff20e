"""The generated files load through the studio's own readers without a single rejected row."""

from __future__ import annotations

import pytest

io = pytest.importorskip("privacy_studio.core.io")


def _load(path, **options):
    dataset = io.load_dataset(str(path), io.ReaderOptions(tz="Europe/Paris", use_cache=False, **options))
    report = dataset.report
    assert report.rows_read > 0 and report.rows_kept == report.rows_read and not report.rejected
    return dataset


def test_events_with_antennas_and_hierarchy_load_completely(small_city, read_rows):
    data = _load(small_city.events, antennas=str(small_city.antennas), hierarchy=str(small_city.hierarchy))
    assert data.events.n_events == len(read_rows(small_city.events))
    assert data.hierarchy is not None and tuple(data.hierarchy.levels) == ("zip", "district", "municipality")


def test_second_period_and_card_payments_load_completely(small_city, read_rows):
    assert _load(small_city.period2_events).events.n_events == len(read_rows(small_city.period2_events))
    payments = _load(small_city.transactions)
    assert payments.events.n_events == len(read_rows(small_city.transactions))
    assert payments.events.n_users == len(read_rows(small_city.card_truth))


def test_per_user_cdr_folder_loads_completely(small_city, read_rows):
    data = _load(small_city.cdr_dir, antennas=str(small_city.antennas))
    assert data.events.n_events == len(read_rows(small_city.events))
    assert set(data.events.user_ids.tolist()) == {r["user"] for r in read_rows(small_city.events)}
