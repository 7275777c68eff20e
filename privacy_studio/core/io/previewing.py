"""A live preview of how a file will be read: raw first rows, parsed values, format, mapping, problems."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from privacy_studio.core.io.dataset import iso_utc
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.load import folder_files
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.places import Places, read_places
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.io.sniff import detect_delimiter, sample_lines, sniff
from privacy_studio.core.io.source import (
    FLOAT_ROLES,
    BatchReader,
    Columns,
    FileLayout,
    csv_options,
    inspect_file,
)
from privacy_studio.core.io.timeparse import check_tz


@dataclass
class Preview:
    """What the import dialog shows while the user adjusts the options."""

    columns: list[str]
    raw_rows: list[list[str]]
    parsed_rows: list[dict[str, Any]] = field(default_factory=list)
    detected_format: str | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    delimiter: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def preview(path: str, options: ReaderOptions | None = None, n_rows: int = 20) -> Preview:
    """Read only the head of ``path`` and describe it; problems are listed, never raised."""
    options = options if options is not None else ReaderOptions()
    path = os.fspath(path)
    stem = None
    try:
        check_tz(options.tz)
        if os.path.isdir(path):
            files, options = folder_files(path, options)
            path, stem = files[0], os.path.basename(files[0]).split(".")[0]
        raw_columns, raw_rows, delimiter = _raw_head(path, options, n_rows)
    except ReaderError as exc:
        return Preview([], [], problems=[str(exc)])
    result = Preview(raw_columns, raw_rows, delimiter=delimiter)
    try:
        layout = inspect_file(path, options, user_from_name=stem)
        report = ImportReport(path)
        places = read_places(options.antennas, options.locations, options.hierarchy, report)
    except ReaderError as exc:
        result.problems.append(str(exc))
        return result
    result.detected_format, result.mapping = layout.fmt, dict(layout.roles)
    reader = BatchReader(layout, options, places, report, None)
    try:
        for batch in _head_batches(layout, n_rows, reader):
            reader.feed(batch, 0)
    except ReaderError as exc:
        result.problems.append(str(exc))
        return result
    result.parsed_rows = _parsed(reader.out, places)
    for reason, entry in report.rejected.items():
        result.problems.extend(f"line {line}: {reason}" for line in entry.first_lines)
    result.problems.extend(f"line {n}: wrong number of fields" for n, _ in reader.invalid if n is not None)
    result.problems.extend(report.notes)
    return result


def _raw_head(
    path: str, options: ReaderOptions, n_rows: int
) -> tuple[list[str], list[list[str]], str | None]:
    sniffed = sniff(path)
    if sniffed.kind == "parquet":
        head = next(pq.ParquetFile(path).iter_batches(batch_size=n_rows), None)
        if head is None:
            return [], [], None
        table = pa.Table.from_batches([head])
        rows = [[("" if v is None else str(v)) for v in row.values()] for row in table.to_pylist()]
        return table.column_names, rows, None
    lines = sample_lines(sniffed.sample, n_rows + 1)
    delimiter = options.delimiter or detect_delimiter(lines, path)
    split = [ln.split(delimiter) for ln in lines]
    if options.header:
        return split[0], split[1:], delimiter
    return [f"column {i + 1}" for i in range(len(split[0]))], split[:n_rows], delimiter


def _head_batches(layout: FileLayout, n_rows: int, reader: BatchReader) -> list[pa.RecordBatch]:
    if layout.sniffed.kind == "parquet":
        head = next(
            pq.ParquetFile(layout.path).iter_batches(batch_size=n_rows, columns=layout.used_columns), None
        )
        return [] if head is None else [head]
    keep = n_rows + (1 if layout.header else 0)
    text = "\n".join(layout.sniffed.sample.splitlines()[:keep]) + "\n"
    read, parse, convert = csv_options(layout, False, reader._on_invalid_row)
    try:
        table = pacsv.read_csv(pa.BufferReader(text.encode()), read, parse, convert)
    except pa.ArrowInvalid as exc:
        raise ReaderError(f"cannot parse the file ({str(exc).splitlines()[0]})", layout.path) from None
    return table.to_batches()


def _parsed(out: Columns, places: Places | None) -> list[dict[str, Any]]:
    """Kept rows as the studio will see them (file order, before sorting and projection)."""
    if out.n_rows == 0:
        return []
    n = out.n_rows
    numeric = {role: buf.view() for role, buf in out.numeric.items()}
    users = pa.chunked_array(out.ids["user"]).to_pylist()
    if "location" in out.ids:
        locs = pa.chunked_array(out.ids["location"]).to_pylist()
    elif places is not None and "location" in numeric:
        locs = [places.ids[c] for c in numeric.pop("location").tolist()]
    else:
        locs = [None] * n
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"user": users[i], "time_utc": iso_utc(numeric["time"][i]), "location": locs[i]}
        for role in FLOAT_ROLES:
            if role in numeric:
                value = float(numeric[role][i])
                row[role] = None if math.isnan(value) else value
        rows.append(row)
    return rows


__all__ = ["Preview", "preview"]
