"""A release as its reader sees it: every published column, grouped by pseudonym.

The figures a release prints are measured on the bytes written, not on the traces they came from: the
table is serialized exactly as it is written (CSV or Parquet), read back as text and each row becomes one
point whose place is the text of every column but the pseudonym and the time (a count, a centre, an
amount all count). A person who has the same row twice gets it numbered, so equal multisets of rows, and
only those, give equal point sets. The same path measures the table held in memory (the preview) and the
file on disk (the closed loop), so both give identical figures.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from privacy_studio.core.events import EventTable, build_event_table
from privacy_studio.core.kernels.gil_free import cumsum64

#: Separates the columns inside a row's place text (never part of a released value).
SEPARATOR = "\x1f"


def write_table(table: pa.Table, fh, parquet: bool) -> None:
    """The one way a release's rows are serialized."""
    if parquet:
        pq.write_table(table, fh)
    else:
        pacsv.write_csv(table, fh, pacsv.WriteOptions(quoting_style="needed"))


def serialized(table: pa.Table, parquet: bool) -> bytes:
    """The bytes :func:`write_table` would write."""
    buffer = io.BytesIO()
    write_table(table, buffer, parquet)
    return buffer.getvalue()


def _csv_as_text(source: pa.BufferReader | str) -> pa.Table:
    """CSV with every column read as text, never converted (a value is what the file spells)."""
    names = pacsv.open_csv(source).schema.names
    if isinstance(source, pa.BufferReader):
        source.seek(0)
    options = pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, strings_can_be_null=False)
    return pacsv.read_csv(source, convert_options=options)


def as_text(table: pa.Table) -> pa.Table:
    """A table as its CSV file spells it: the one text form every release is measured in, whatever its
    format, so the preview, a CSV and a Parquet file of the same rows measure alike."""
    return _csv_as_text(pa.BufferReader(serialized(table, parquet=False)))


def read_as_text(path: str | os.PathLike[str], parquet: bool) -> pa.Table:
    """A written release (CSV, or Parquet) read back in the text form of :func:`as_text`."""
    if parquet:
        return as_text(pq.read_table(str(path)))
    return _csv_as_text(str(path))


def utc_seconds(times: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """UTC epoch seconds of ISO texts with their offset (``2024-03-04T00:00:00+01:00``)."""
    distinct = pc.unique(times)
    parsed = pd.to_datetime(pd.Series(distinct.to_pylist(), dtype=object), utc=True, format="ISO8601")
    seconds = ((parsed - pd.Timestamp(0, tz="UTC")) // pd.Timedelta(seconds=1)).to_numpy(np.int64)
    return seconds[pc.index_in(times, distinct).to_numpy(zero_copy_only=False)]


def row_events(table: pa.Table, tz: str) -> EventTable:
    """One event per row: the pseudonym, the row's time, and every other column as the place.

    The columns stay Arrow arrays until the event table is built (Arrow's kernels let other threads run):
    turned into a million Python strings at once, and grouped by pandas, they held the GIL up to 0.5 s
    on the 100k city's release."""
    others = [n for n in table.column_names if n not in ("user", "time")]
    users, times = table.column("user"), table.column("time")
    if others:
        parts = [table.column(n) for n in others]
        place = pc.binary_join_element_wise(*parts, SEPARATOR) if len(parts) > 1 else parts[0]
    else:
        place = pa.array([""], type=pa.string()).take(pa.array(np.zeros(table.num_rows, dtype=np.int64)))
    nth = repeat_numbers([users, times, place])
    if nth.any():  # the same row twice for one person: number the repeats so multisets stay multisets
        numbered = pc.binary_join_element_wise(place, pc.cast(pa.array(nth), pa.string()), SEPARATOR + "#")
        place = pc.if_else(pa.array(nth > 0), numbered, place)
    return build_event_table(users, utc_seconds(times), place, tz=tz)  # Arrow strings, coded as they are


def repeat_numbers(columns: list[pa.ChunkedArray | pa.Array]) -> np.ndarray:
    """For each row, how many earlier rows have the same values in every column (0 for a first one)."""
    codes = [_codes(c) for c in columns]
    order = np.lexsort(codes[::-1])  # stable: equal rows keep their order
    n = len(order)
    new = np.zeros(n, dtype=bool)  # where a run of equal rows starts, in sorted order
    new[:1] = True
    for code in codes:
        ranked = code[order]
        new[1:] |= ranked[1:] != ranked[:-1]
    starts = np.flatnonzero(new)
    nth = np.empty(n, dtype=np.int64)
    nth[order] = np.arange(n) - starts[cumsum64(new) - 1]
    return nth


def _codes(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Equal values, equal integer codes (Arrow's dictionary encoding)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return pc.dictionary_encode(column).indices.to_numpy(zero_copy_only=False)
