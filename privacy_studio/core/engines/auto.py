"""``--engine auto``: the in-memory numba engine when its compact columns fit in the memory available (the
kernel's MemAvailable, what psutil reports), else DuckDB out-of-core."""

from __future__ import annotations

import os

from privacy_studio.core.engines.ingest import file_size, refuse_unsupported
from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.io.options import ReaderOptions

#: Peak bytes per event of the in-memory engine reading Parquet into compact columns (user int32, int32
#: seconds from the period's start, place int32; nothing per event from the place table) and running the
#: 12-profile grid of ``benchmarks/bench_scale.py``, with :data:`FIXED_BYTES`. Whole-run peaks (2 numba
#: threads, 2026-11-27, int32 times): 10M people (421,127,995 events) 10,279-10,335 MiB, at the first
#: profiles' traces and index; 1M (42,096,373) 1,792 MiB. 28 B with 1,000 MiB fixed is 18 % over the 10M
#: peak and 18 % over the 1M one, where the fixed part weighs most (the EM sums of the finest profile's
#: points, the dictionaries); peaks moved ~7 % between commits and the search's buffers grow with the
#: thread count. 36 B (+ 600 MiB) with int64 times, 40 before, 95 before the compact columns.
BYTES_PER_EVENT = 28
#: Every further per-event number the reader keeps (coordinates of the file's own, amounts, durations).
BYTES_PER_NUMBER = 8
#: The interpreter, numba, pyarrow, the dictionaries of a month and the per-point sums of its finest
#: profile (bounded by places x time bins, not by people).
FIXED_BYTES = 1000 * 2**20
#: Rows per byte of text input are estimated from its first lines; gzip/zip files expand about this much.
COMPRESSION_RATIO = 4.0
#: Share of the available memory the in-memory engine may plan to use: the estimate is a measured whole-run
#: peak (every temporary included), so a fifth of what is available is kept for other programs' growth.
#: 0.6 while the bytes per event were a guess; at 0.6 a 10M month (15.8 GB) needed 26 GB available.
USABLE_SHARE = 0.8


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


def input_rows(path: str) -> int:
    """Rows of one input: Parquet from its footers, text from its size over the first lines' mean length."""
    if input_kind(path) == "parquet":
        return parquet_rows(path)
    from privacy_studio.core.io.sniff import sniff

    sniffed = sniff(path)
    lines = max(sniffed.sample.count("\n"), 1)
    per_line = max(len(sniffed.sample.encode()) / lines, 1.0)
    size = file_size(path) * (COMPRESSION_RATIO if sniffed.compression else 1.0)
    return int(size / per_line)


def bytes_per_event(path: str, options: ReaderOptions) -> int:
    """Peak bytes per event of the compact columns for this input: the fixed three, plus every further
    number the reader keeps per event (lat/lon of the file's own also give projected x/y)."""
    from privacy_studio.core.io.errors import ReaderError
    from privacy_studio.core.io.source import FLOAT_ROLES, inspect_file

    if os.path.isdir(path):  # a folder of Parquet files: their first file tells the columns
        path = os.path.join(path, next(f for f in sorted(os.listdir(path)) if f.lower().endswith(".parquet")))
    try:
        roles = inspect_file(path, options).roles
    except ReaderError:  # the reader will say what is wrong; size it as the plain three columns
        return BYTES_PER_EVENT
    numbers = sum(role in roles for role in FLOAT_ROLES)
    if "lat" in roles and "x_km" not in roles:
        numbers += 2
    return BYTES_PER_EVENT + BYTES_PER_NUMBER * numbers


def estimated_memory(paths: list[str], options: ReaderOptions | None = None) -> int:
    """Peak bytes the in-memory engine needs for ``paths``: rows × bytes per event, plus a fixed part."""
    total = 0
    for p in paths:
        if not os.path.exists(p) or (os.path.isdir(p) and input_kind(p) != "parquet"):
            continue
        total += input_rows(p) * bytes_per_event(p, options or ReaderOptions())
    return total + FIXED_BYTES if total else 0


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
    return "duckdb" if estimated_memory(paths, options) > USABLE_SHARE * available else "numba"


def duckdb_reads(path: str, options: ReaderOptions) -> bool:
    """Whether the DuckDB engine reads this input itself (else only the in-memory reader can)."""
    try:
        refuse_unsupported(EventFiles(path, options))
    except ValueError:
        return False
    return True
