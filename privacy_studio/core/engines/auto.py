"""``--engine auto``: the in-memory numba engine when the loaded data fits in RAM, else DuckDB out-of-core."""

from __future__ import annotations

import os

from privacy_studio.core.engines.ingest import file_size, refuse_unsupported
from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.io.options import ReaderOptions

#: Rough in-memory bytes per byte of text input, by kind: columnar arrays + traces + index.
BYTES_PER_INPUT_BYTE = {"csv": 1.5, "gz": 6.0}
#: Peak bytes per event of the in-memory engine (3,813 MiB for 42.1M events of the 1M-user city read from
#: Parquet, benchmarks/bench_engines.py on 2026-11-24; 110 before issue #17's memory work). Parquet is sized
#: by its row count: its compression varies far too much.
BYTES_PER_EVENT = 95
#: Share of the available memory the in-memory engine may plan to use.
USABLE_SHARE = 0.6


def available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where there is no such file)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def input_kind(path: str) -> str:
    name = path.lower()
    if name.endswith(".parquet") or (
        os.path.isdir(path) and any(f.lower().endswith(".parquet") for f in os.listdir(path))
    ):
        return "parquet"
    return "gz" if name.endswith((".gz", ".zip")) else "csv"


def parquet_rows(path: str) -> int:
    """Rows of a Parquet file or folder of Parquet files, from their footers (nothing else is read)."""
    import pyarrow.parquet as pq

    files = (
        [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.lower().endswith(".parquet")]
        if os.path.isdir(path)
        else [path]
    )
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def estimated_memory(paths: list[str]) -> int:
    """Bytes the in-memory engine would need for ``paths``: Parquet by row count, text by size and kind."""
    total = 0
    for p in paths:
        if not os.path.exists(p):
            continue
        kind = input_kind(p)
        if kind == "parquet":
            total += parquet_rows(p) * BYTES_PER_EVENT
        else:
            total += int(file_size(p) * BYTES_PER_INPUT_BYTE[kind])
    return total


def resolve_engine(name: str, input_paths: list[str] | str, options: ReaderOptions | None = None) -> str:
    """The engine to run: ``name`` itself, or for ``auto`` "duckdb" when the in-memory load would not fit."""
    if name != "auto":
        return name
    paths = [
        os.fspath(p) for p in ([input_paths] if isinstance(input_paths, str | os.PathLike) else input_paths)
    ]
    available = available_memory()
    if available is None or not all(duckdb_reads(p, options or ReaderOptions()) for p in paths):
        return "numba"
    return "duckdb" if estimated_memory(paths) > USABLE_SHARE * available else "numba"


def duckdb_reads(path: str, options: ReaderOptions) -> bool:
    """Whether the DuckDB engine reads this input itself (else only the in-memory reader can)."""
    try:
        refuse_unsupported(EventFiles(path, options))
    except ValueError:
        return False
    return True
