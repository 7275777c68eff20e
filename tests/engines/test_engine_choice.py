"""The project's engine choice: validation, the auto rule, and runs that give the in-memory numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.engines.engine_choice import EngineChoice
from privacy_studio.core.engines.memory import memory_bytes
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.risk.settings import RiskSettings
from tests.engines.helpers import assert_worst_at_least

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
#: Per-p fields every engine reports identically for the same seed.
#: What every engine gives alike; the numba engine's worst case comes from a targeted search, never below
#: the others' (tests/engines/helpers.py: assert_worst_at_least).
SAME = ("p", "unicity", "unicity_ci", "k_disclosure", "class_sizes", "n_draws")


@pytest.fixture(scope="module")
def sample_files() -> EventFiles:
    options = ReaderOptions(
        tz="Europe/Paris", antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv")
    )
    return EventFiles(str(SAMPLE / "events.csv"), options)


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ({"name": "oracle"}, "unknown engine 'oracle'"),
        ({"name": "duckdb", "memory_limit": ""}, "memory_limit must be a non-empty text"),
        ({"name": "spark", "spark_master": 7077}, "spark_master must be a non-empty text"),
        ({"name": "numba", "threads": 2}, "unknown engine option"),
        ({"name": "duckdb", "memory_limit": "banana"}, "memory limit 'banana' not understood"),
    ],
)
def test_impossible_choices_are_named(choice: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EngineChoice.from_dict(choice)


def test_auto_keeps_small_files_in_memory(sample_files: EventFiles) -> None:
    assert EngineChoice("auto").resolved(sample_files) == "numba"
    assert EngineChoice("auto").resolved(None) == "numba"
    assert EngineChoice("duckdb").resolved(sample_files) == "duckdb"


def test_parquet_is_sized_by_its_rows_and_large_inputs_go_out_of_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privacy_studio.core.engines import auto

    path = tmp_path / "events.parquet"
    n = 5000
    table = pa.table(
        {"user": [f"u{i % 50}" for i in range(n)], "time": list(range(n)), "location": ["A"] * n}
    )
    pq.write_table(table, path, compression="zstd")
    need = n * auto.BYTES_PER_EVENT + auto.FIXED_BYTES  # the compact columns: user, time, place (issue #30)
    assert auto.estimated_memory([str(path)]) == need
    monkeypatch.setattr(auto, "available_memory", lambda: 2 * need)
    assert auto.resolve_engine("auto", str(path)) == "numba"
    monkeypatch.setattr(auto, "available_memory", lambda: need)
    assert auto.resolve_engine("auto", str(path)) == "duckdb"


def test_per_event_numbers_of_the_file_add_to_the_estimate(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from privacy_studio.core.engines import auto

    n = 3000
    base = {"user": [f"u{i % 7}" for i in range(n)], "time": list(range(n)), "location": ["A"] * n}
    pq.write_table(pa.table(base), tmp_path / "plain.parquet")
    pq.write_table(pa.table({**base, "lat": [45.0] * n, "lon": [4.0] * n}), tmp_path / "latlon.parquet")
    # lat and lon, plus the x/y projected from them: four numbers more per event
    extra = auto.estimated_memory([str(tmp_path / "latlon.parquet")]) - auto.estimated_memory(
        [str(tmp_path / "plain.parquet")]
    )
    assert extra == 4 * auto.BYTES_PER_NUMBER * n
    pacsv.write_csv(pa.table(base), tmp_path / "plain.csv")
    rows = auto.input_rows(str(tmp_path / "plain.csv"))
    assert abs(rows - n) / n < 0.1  # from the first lines' length: an estimate


def test_duckdb_choice_reads_the_files_and_matches_the_in_memory_run(sample_files: EventFiles) -> None:
    settings = RiskSettings(
        exact_budget=0, spatial=["district", "antenna"], temporal=["1w"], p_values=[1, 2, 4], samples=300
    )
    dataset = load_dataset(sample_files.path, sample_files.options)
    in_memory = list(EngineChoice("numba").run_grid(dataset, settings, sample_files))
    from_files = list(EngineChoice("duckdb", memory_limit="512MB").run_grid(dataset, settings, sample_files))
    assert [r.label for r in from_files] == [r.label for r in in_memory]
    for got, want in zip(from_files, in_memory, strict=True):
        assert got.n_users == want.n_users and got.nnz == want.nnz and got.d == want.d
        for g, w in zip(got.by_p, want.by_p, strict=True):
            assert {k: getattr(g, k) for k in SAME} == {k: getattr(w, k) for k in SAME}
        assert_worst_at_least(want, got)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("8GB", 8 * 10**9), ("8g", 8 * 10**9), ("1.5GiB", 3 * 2**29), (" 512 MB ", 512 * 10**6), ("100B", 100)],
)
def test_memory_sizes_read_as_duckdb_reads_them(text: str, expected: int) -> None:
    assert memory_bytes(text) == expected


def test_duckdb_keeps_a_quarter_of_large_limits_for_what_its_pool_does_not_count() -> None:
    for limit, pool in (("8GB", 6 * 10**9), ("48MB", 48 * 10**6)):
        with open_engine("duckdb", memory_limit=limit) as engine:
            shown = engine.execute("SELECT current_setting('memory_limit') AS m").column("m")[0].as_py()
        assert abs(memory_bytes(shown.replace(" ", "")) - pool) / pool < 0.02, (limit, shown)
