"""CSV output of the synthetic city with pyarrow: columnar, chunked, byte-for-byte reproducible.

Every file goes through ``core.atomic``: an interrupted or failed generation leaves no partial file under a
final name.
"""

from __future__ import annotations

import contextlib
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from privacy_studio.core.atomic import atomic_write, write_bytes
from privacy_studio.core.sample.clock import utc_offsets

_OPTIONS = pacsv.WriteOptions(include_header=False, quoting_style="none")


class CsvSink:
    """An append-only CSV file with a fixed header, written one table at a time.

    The rows go to a temporary file that is renamed into place by ``close()``; leaving a ``with`` block on an
    exception discards it instead.
    """

    def __init__(self, path: Path, columns: list[str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.columns = columns
        self.rows = 0
        self._stack = contextlib.ExitStack()
        self._file = self._stack.enter_context(atomic_write(path, "wb"))
        self._file.write((",".join(columns) + "\n").encode())

    def write(self, columns: dict[str, pa.Array | np.ndarray]) -> None:
        """Append the rows of ``columns`` (header order) to the file."""
        table = pa.table({name: columns[name] for name in self.columns})
        self._file.write(csv_bytes(table))
        self.rows += table.num_rows

    def close(self) -> None:
        """Finish the file: flush it and rename it into place."""
        self._stack.close()

    def __enter__(self) -> CsvSink:
        return self

    def __exit__(self, *exc: Any) -> None:
        """Finish the file, or discard it when the block ended with an exception."""
        self._stack.__exit__(*exc)


def csv_bytes(table: pa.Table) -> bytes:
    """The rows of ``table`` as CSV text without header (ids never need quoting)."""
    if table.num_rows == 0:
        return b""
    sink = pa.BufferOutputStream()
    pacsv.write_csv(table, sink, write_options=_OPTIONS)
    return sink.getvalue().to_pybytes()


def write_table(path: Path, columns: dict[str, pa.Array | np.ndarray]) -> int:
    """Write a whole small table at once; returns the number of rows."""
    with CsvSink(path, list(columns)) as sink:
        sink.write(columns)
    return sink.rows


def take(values: np.ndarray | pa.Array, codes: np.ndarray) -> pa.Array:
    """``values[codes]`` as an Arrow array, without building Python strings per row."""
    return pc.take(values if isinstance(values, pa.Array) else pa.array(values), pa.array(codes))


def iso_times(utc: np.ndarray, tz: str, *, with_offset: bool = True) -> pa.Array:
    """Local wall-clock times as ISO 8601 text: ``2024-03-04T08:13:22+01:00`` (or ``2024-03-04 08:13:22``).

    Assembled from small tables of the distinct days, the 86,400 clock times and the distinct offsets,
    which is many times faster than formatting every timestamp.
    """
    utc = np.asarray(utc, dtype=np.int64)
    if len(utc) == 0:
        return pa.array([], pa.string())
    offsets = utc_offsets(utc, tz)
    local = utc + offsets
    days, day_index = np.unique(local // 86_400, return_inverse=True)
    day_format = "%Y-%m-%dT" if with_offset else "%Y-%m-%d "
    day_text = pc.strftime(pa.array(days * 86_400, pa.timestamp("s")), format=day_format)
    parts = [pc.take(day_text, pa.array(day_index)), take(_clock(), local % 86_400)]
    if with_offset:
        distinct, inverse = np.unique(offsets, return_inverse=True)
        parts.append(take(np.array([_offset_text(int(o)) for o in distinct]), inverse))
    return pc.binary_join_element_wise(*parts, "")


@cache
def _clock() -> pa.Array:
    """``HH:MM:SS`` of every second of a day."""
    two = np.char.zfill(np.arange(60).astype(str), 2)
    text = np.char.add(np.char.add(two[:24, None, None], ":"), np.char.add(two[None, :, None], ":"))
    return pa.array(np.char.add(text, two[None, None, :]).ravel())


def _offset_text(seconds: int) -> str:
    """``+01:00``-style text of an offset in seconds."""
    sign = "+" if seconds >= 0 else "-"
    minutes = abs(seconds) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def write_per_group(
    directory: Path, header: list[str], table: pa.Table, names: np.ndarray, sizes: np.ndarray
) -> None:
    """Split consecutive row groups of ``table`` into one file per group, ``<name>.csv`` each.

    The table is serialized once and the text cut at line ends, which keeps thousands of small files cheap.
    """
    body = csv_bytes(table)
    line_ends = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == ord("\n")) + 1
    bounds = np.concatenate([[0], line_ends[np.cumsum(sizes) - 1]])
    head = (",".join(header) + "\n").encode()
    directory.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        write_bytes(directory / f"{name}.csv", head + body[bounds[i] : bounds[i + 1]])
