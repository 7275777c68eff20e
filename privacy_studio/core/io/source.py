"""Reading one data file batch by batch into validated numpy columns, rejecting bad rows with line numbers.

CSV/TSV (plain, gzip, zip) go through pyarrow's streaming CSV reader with every used column read as text
(ids as dictionaries), then converted per batch with vectorized kernels; Parquet goes through its batch
iterator. Rows with the wrong number of fields are skipped by pyarrow and reported; when that happens
the file is read again single-threaded, the only mode in which pyarrow knows their line numbers.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from privacy_studio.core.io.buffers import Growable, OffsetTimes
from privacy_studio.core.io.columns import (
    check_header,
    check_roles,
    detect_format,
    headerless_names,
    resolve_roles,
)
from privacy_studio.core.io.convert import dictionary_codes, to_direction, to_float, to_ids
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.places import Places
from privacy_studio.core.io.prefetch import prefetched
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.io.sniff import (
    Sniffed,
    delimiter_name,
    detect_delimiter,
    sample_lines,
    sniff,
    to_stream,
)
from privacy_studio.core.io.timeparse import OUT_OF_RANGE, TimeParser, outside_supported_range
from privacy_studio.core.progress import TaskControl

ID_ROLES = ("user", "location", "merchant", "interaction")
FLOAT_ROLES = ("lat", "lon", "x_km", "y_km", "amount", "duration")
BLOCK_SIZE = 1 << 20


@dataclass
class FileLayout:
    """What a data file holds before it is read in full: columns, their roles, the format."""

    path: str
    sniffed: Sniffed
    names: list[str]
    roles: dict[str, str]
    fmt: str
    delimiter: str = ","
    header: bool = True
    user_from_name: str | None = None

    @property
    def first_line(self) -> int:
        """File line of the first data row."""
        return 2 if self.header and self.sniffed.kind == "csv" else 1

    @property
    def used_columns(self) -> list[str]:
        """Columns that play a role, in file order."""
        return sorted(set(self.roles.values()), key=self.names.index)

    def unused_columns(self) -> list[str]:
        used = set(self.roles.values())
        return [n for n in self.names if n not in used and not n.startswith("_skip")]


def inspect_file(path: str, options: ReaderOptions, user_from_name: str | None = None) -> FileLayout:
    """Sniff ``path`` and resolve its columns; raise ReaderError if it cannot be read as asked."""
    sniffed = sniff(path)
    if sniffed.kind == "parquet":
        try:
            names = pq.ParquetFile(path).schema_arrow.names
        except (pa.ArrowInvalid, OSError) as exc:
            raise ReaderError(f"damaged Parquet file ({exc})", path) from None
        delimiter, header = ",", True
    else:
        lines = sample_lines(sniffed.sample)
        if not lines:
            raise ReaderError("the file is empty", path)
        detected = detect_delimiter(lines, path)
        delimiter = options.delimiter or detected
        fields = lines[0].split(delimiter)
        if len(fields) == 1 and detected != delimiter and lines[0].count(detected) > 0:
            raise ReaderError(
                f"with the {delimiter_name(delimiter)} delimiter every line is one column, "
                f"but the file looks "
                f"{delimiter_name(detected)}-separated; drop --delimiter or pass the right one",
                path,
                line=1,
            )
        header = options.header
        if header:
            names = [f.strip().strip('"') for f in fields]
            check_header(names, path)
            if len(lines) < 2 and len(sniffed.sample.splitlines()) < 2:
                raise ReaderError("the file has a header but no data rows", path)
        else:
            names = headerless_names(options, len(fields), path)
    if (header and sniffed.kind == "csv") or sniffed.kind == "parquet":
        roles = resolve_roles(names, options, path)
    else:
        roles = {n: n for n in names if not n.startswith("_skip")}
        roles.update(resolve_roles(names, options, path) if options.mapping else {})
    fmt = detect_format(roles, options.format)
    if "user" in roles:
        user_from_name = None  # a file's own user column wins over its name, in a folder too
    elif user_from_name is None and fmt == "cdr":
        user_from_name = _stem(path)
    check_roles(fmt, roles, names, path, user_from_name is not None)
    if sniffed.kind == "parquet":
        refuse_nested_columns(path, set(roles.values()))
    return FileLayout(path, sniffed, names, roles, fmt, delimiter, header, user_from_name)


def refuse_nested_columns(path: str, used: set[str]) -> None:
    """ReaderError naming the first used Parquet column that holds lists, structs or maps (one value per
    cell is needed)."""
    for column in pq.ParquetFile(path).schema_arrow:
        if column.name in used and pa.types.is_nested(column.type):
            raise ReaderError(
                f"holds {column.type} values; the studio reads one plain value per cell, "
                "so flatten the column first",
                path,
                column=column.name,
            )


def first_long_line(path: str, sniffed: Sniffed, limit: int) -> int | None:
    """1-based number of the first line longer than ``limit`` bytes (read as a stream), or None."""
    stream = to_stream(path, sniffed)
    try:
        number, length = 1, 0
        while chunk := stream.read(1 << 20):
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                if length + end - start > limit:
                    return number
                number, length, start = number + 1, 0, end + 1
            length += len(chunk) - start
            if length > limit:
                return number
        return None
    finally:
        stream.close()


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ext in (".gz", ".zip", ".csv", ".tsv", ".txt", ".parquet"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
    return name


NUMERIC_TYPES = {"time": np.int64, "location": np.int32, "direction": np.int8} | dict.fromkeys(
    FLOAT_ROLES, np.float64
)


@dataclass
class Columns:
    """Kept rows of one or more files: ids as Arrow dictionary pieces, numbers in growable buffers.

    ``ids`` holds user / location / merchant / interaction pieces; ``numeric`` holds time, location codes
    (when side files fix the dictionary), coordinates, amounts, durations and directions. With
    ``offset_times`` (the in-memory engine's compact tables) times are int32 seconds from an origin
    (:class:`OffsetTimes`).
    """

    capacity: int = 0  # expected number of rows: the buffers' first size
    ids: dict[str, list[pa.DictionaryArray]] = field(default_factory=dict)
    numeric: dict[str, Growable] = field(default_factory=dict)
    offset_times: bool = False

    @property
    def n_rows(self) -> int:
        return self.numeric["time"].size if "time" in self.numeric else 0

    def add(self, role: str, values: pa.Array | np.ndarray) -> None:
        if isinstance(values, pa.Array):
            self.ids.setdefault(role, []).append(values)
        else:
            if role not in self.numeric:
                offsets = role == "time" and self.offset_times
                cap = self.capacity
                self.numeric[role] = OffsetTimes(cap) if offsets else Growable(NUMERIC_TYPES[role], cap)
            self.numeric[role].append(values)


class _LineMap:
    """Row index -> 1-based file line, accounting for rows pyarrow skipped (their lines are known)."""

    def __init__(self, first_line: int) -> None:
        self.first = first_line
        self.skipped: list[int] = []

    def lines(self, rows: np.ndarray) -> np.ndarray:
        line = self.first + rows.astype(np.int64)
        if self.skipped:
            s = np.sort(np.asarray(self.skipped, dtype=np.int64))
            kept_before = s - self.first - np.arange(len(s))
            line += np.searchsorted(kept_before, rows, side="right")
        return line


class _RetrySingleThreaded(Exception):
    """pyarrow skipped a malformed row without telling its line: read again single-threaded."""


#: Batches read between two returns of freed memory to the system (see :func:`reading_memory`).
RELEASE_EVERY = 4


@contextmanager
def reading_memory() -> Iterator[pa.MemoryPool]:
    """Arrow allocates in the system allocator while a file is read, its freed memory returned every
    :data:`RELEASE_EVERY` batches and at the end: each batch's decoded pages and temporaries are freed
    while the kept columns grow, and Arrow's default allocator kept most of them resident (13 bytes an
    event more after reading the 300k-person month: 757 MB instead of 592; issue #30). Buffers remember
    their allocator, so restoring the default afterwards is safe."""
    before, pool = pa.default_memory_pool(), pa.system_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield pool
    finally:
        pa.set_memory_pool(before)
        pool.release_unused()


def read_file(
    layout: FileLayout,
    options: ReaderOptions,
    places: Places | None,
    report: ImportReport,
    control: TaskControl,
    file_label: str | None = None,
    offset_times: bool = False,
) -> Columns:
    """Read and validate every row of one file; rejected rows go to ``report`` (``offset_times``: see
    :class:`Columns`)."""
    for threads in (True, False):
        reader = BatchReader(layout, options, places, report, file_label, offset_times)
        snapshot = ImportReport.from_dict(report.to_dict())
        try:
            with reading_memory() as pool:
                return reader.run(threads, control, pool)
        except _RetrySingleThreaded:
            report.__dict__.update(snapshot.__dict__)
    raise AssertionError("unreachable: the single-threaded pass never retries")


class BatchReader:
    """Reads one file's batches, converting and validating each; kept rows accumulate in ``out``."""

    def __init__(
        self,
        layout: FileLayout,
        options: ReaderOptions,
        places: Places | None,
        report: ImportReport,
        file_label: str | None,
        offset_times: bool = False,
    ) -> None:
        self.layout = layout
        self.places = places
        self.report = report
        self.file_label = file_label
        self.lines = _LineMap(layout.first_line)
        self.threads = True
        self.invalid: list[tuple[int | None, str]] = []
        self.out = Columns(_expected_rows(layout), offset_times=offset_times)
        r = layout.roles
        self.parsers = {
            role: TimeParser(options.tz, options.dayfirst, options.monthfirst, r[role], layout.path)
            for role in ("time", "start", "end")
            if role in r
        }
        self.location_role = (
            "location" if "location" in r else ("merchant" if layout.fmt == "transactions" else None)
        )

    def run(self, threads: bool, control: TaskControl, pool: pa.MemoryPool | None = None) -> Columns:
        """Every batch converted and kept; ``pool`` gets freed memory back to the system as batches go."""
        self.threads = threads
        size = max(os.path.getsize(self.layout.path), 1)
        per_row = max(len(self.layout.sniffed.sample) / max(self.layout.sniffed.sample.count("\n"), 1), 8.0)
        if self.layout.sniffed.compression:
            size *= 5  # a rough inflation factor: progress only
        rows = 0
        for i, batch in enumerate(self._batches()):
            self._convert(batch, rows)
            rows += batch.num_rows
            del batch
            if pool is not None and i % RELEASE_EVERY == RELEASE_EVERY - 1:
                pool.release_unused()
            control.report(min(rows * per_row / size, 0.99), f"read {rows:,} rows")
        if self.invalid:
            lines = np.asarray([n for n, _ in self.invalid], dtype=np.int64)
            self.report.reject(
                f"wrong number of fields (expected {len(self.layout.names)})", lines, self.file_label
            )
            self.report.rows_read += len(self.invalid)
        return self.out

    # -- reading ---------------------------------------------------------------------------------
    def _batches(self) -> Iterator[pa.RecordBatch]:
        lay = self.layout
        if lay.sniffed.kind == "parquet":
            try:
                file = pq.ParquetFile(lay.path, read_dictionary=parquet_id_columns(lay))
                # decoded by a thread ahead of the conversion (decoding releases the interpreter lock)
                batches = file.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=lay.used_columns)
                yield from prefetched(batches)
            except (pa.ArrowException, OSError) as exc:
                raise ReaderError(f"damaged Parquet file ({_arrow_message(exc)})", lay.path) from None
            return
        read, parse, convert = csv_options(lay, self.threads, self._on_invalid_row)
        try:
            reader = pacsv.open_csv(to_stream(lay.path, lay.sniffed), read, parse, convert)
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                yield batch
        except pa.ArrowInvalid as exc:
            if self.threads and self.invalid and self.invalid[-1][0] is None:
                raise _RetrySingleThreaded from None
            if "straddl" in str(exc):
                line = first_long_line(lay.path, lay.sniffed, BLOCK_SIZE)
                raise ReaderError(
                    f"the line is longer than the limit of {BLOCK_SIZE:,} bytes", lay.path, line=line
                ) from None
            raise ReaderError(f"cannot parse the file ({_arrow_message(exc)})", lay.path) from None
        except (OSError, EOFError) as exc:
            raise ReaderError(f"cannot read the file ({exc})", lay.path) from None

    def feed(self, batch: pa.RecordBatch, row0: int) -> None:
        """Validate and keep one batch whose first row is data row ``row0`` (0-based)."""
        self._convert(batch, row0)

    def _on_invalid_row(self, row: pacsv.InvalidRow) -> str:
        self.invalid.append((row.number, row.text))
        if row.number is None:
            return "error"
        self.lines.skipped.append(row.number)
        return "skip"

    # -- converting ------------------------------------------------------------------------------
    def _convert(self, batch: pa.RecordBatch, row0: int) -> None:
        r = self.layout.roles
        n = batch.num_rows
        col = {role: batch.column(batch.schema.get_field_index(name)) for role, name in r.items()}
        bad: list[tuple[str, np.ndarray]] = []
        kept: dict[str, object] = {}

        if self.layout.user_from_name is None:
            kept["user"], ok_user = to_ids(col["user"])
        else:
            kept["user"] = pa.DictionaryArray.from_arrays(
                pa.array(np.zeros(n, dtype=np.int32)), pa.array([self.layout.user_from_name])
            )
            ok_user = np.ones(n, dtype=bool)
        time, ok_time = self._times(col, kept, bad)
        blank = self._blank(batch) if not ok_time.all() else np.zeros(n, dtype=bool)
        bad.insert(0, ("blank line", blank))
        bad.insert(1, ("missing user id", ~ok_user))
        kept["time"] = time
        self._locations(col, kept, bad)
        self._coordinates(col, kept, bad)
        for role in ("amount", "duration"):
            if role in col:
                kept[role], ok = to_float(col[role])
                if role == "amount" and self.layout.fmt == "transactions":
                    bad.append(("missing or invalid price", ~ok))
        if "merchant" in col:
            kept["merchant"], _ = to_ids(col["merchant"])
        if "interaction" in col:
            kept["interaction"], _ = to_ids(col["interaction"])
        if "direction" in col:
            kept["direction"] = to_direction(col["direction"])
        self._keep(kept, bad, n, row0)

    def _blank(self, batch: pa.RecordBatch) -> np.ndarray:
        blank = np.ones(batch.num_rows, dtype=bool)
        for column in batch.columns:
            values = column.dictionary_decode() if pa.types.is_dictionary(column.type) else column
            if pa.types.is_string(values.type):
                blank &= pc.fill_null(pc.equal(pc.utf8_trim_whitespace(values), ""), True).to_numpy(
                    zero_copy_only=False
                )
            else:
                blank &= ~values.is_valid().to_numpy(zero_copy_only=False)
        return blank

    def _times(self, col: dict, kept: dict, bad: list) -> tuple[np.ndarray, np.ndarray]:
        if self.layout.fmt == "sessions":
            start, ok_s = self.parsers["start"].parse(col["start"])
            end, ok_e = self.parsers["end"].parse(col["end"])
            bad.append(("unparsable start time", ~ok_s))
            bad.append(("unparsable end time", ~ok_e))
            far = outside_supported_range(start, ok_s) | outside_supported_range(end, ok_e)
            bad.append((OUT_OF_RANGE, far))
            bad.append(("session ends before it starts", ok_s & ok_e & (end < start)))
            if "duration" not in col:
                kept["duration"] = (end - start).astype(np.float64)
            time = start + (end - start) // 2
            return time, ok_s & ok_e
        time, ok = self.parsers["time"].parse(col["time"])
        bad.append(("unparsable time", ~ok))
        far = outside_supported_range(time, ok)
        bad.append((OUT_OF_RANGE, far))
        return time, ok & ~far

    def _locations(self, col: dict, kept: dict, bad: list) -> None:
        role = self.location_role
        if role is None:
            return
        ids, ok = to_ids(col[role])
        bad.append((f"missing {'shop' if role == 'merchant' else 'location'} id", ~ok))
        if self.places is None:
            kept["location"] = ids
            return
        codes = dictionary_codes(ids, self.places.allowed, self.places.allowed_codes)
        unknown = ok & (codes < 0)
        if unknown.any():
            entries = ids.dictionary.to_pylist()
            per_entry = np.asarray([self.places.rejection_reason(str(e)) for e in entries], dtype=object)
            reasons = per_entry[ids.indices.to_numpy(zero_copy_only=False)[unknown]]
            rows = np.flatnonzero(unknown)
            for reason in dict.fromkeys(reasons.tolist()):
                mask = np.zeros(len(codes), dtype=bool)
                mask[rows[reasons == reason]] = True
                bad.append((reason, mask))
        kept["location"] = codes

    def _coordinates(self, col: dict, kept: dict, bad: list) -> None:
        """Parse lat/lon (a missing pair taken from its place) and the file's own x_km/y_km (not filled)."""
        ok = None
        for names in (("lat", "lon"), ("x_km", "y_km")):
            if names[0] not in col:
                continue
            a, ok_a = to_float(col[names[0]])
            b, ok_b = to_float(col[names[1]])
            pair_ok = ok_a & ok_b
            if names[0] == "lat":
                pair_ok &= (np.abs(a) <= 90) & (np.abs(b) <= 180)
                a, b, pair_ok = self._fill_from_places(kept, a, b, pair_ok)
            ok = pair_ok if ok is None else ok & pair_ok
            kept[names[0]], kept[names[1]] = a, b
        if ok is not None:
            bad.append(("missing or invalid coordinate", ~ok))

    def _fill_from_places(
        self, kept: dict, lat: np.ndarray, lon: np.ndarray, ok: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rows without a valid lat/lon take their place's, when the side file gives it."""
        if self.places is None or "location" not in kept or ok.all():
            return lat, lon, ok
        codes = kept["location"]
        safe = np.maximum(codes, 0)
        fill = ~ok & (codes >= 0) & np.isfinite(self.places.lat[safe])
        lat, lon = np.where(fill, self.places.lat[safe], lat), np.where(fill, self.places.lon[safe], lon)
        return lat, lon, ok | fill

    def _keep(self, kept: dict, bad: list, n: int, row0: int) -> None:
        rejected = np.zeros(n, dtype=bool)
        for reason, mask in bad:
            new = mask & ~rejected
            if new.any():
                self.report.reject(reason, self.lines.lines(row0 + np.flatnonzero(new)), self.file_label)
                rejected |= new
        self.report.rows_read += n
        self.report.rows_kept += n - int(rejected.sum())
        keep = ~rejected
        everything = bool(keep.all())
        mask = None if everything else pa.array(keep)
        for role, value in kept.items():
            if isinstance(value, pa.Array):
                self.out.add(role, value if everything else value.filter(mask))
            else:
                self.out.add(role, value if everything else value[keep])


#: Rows of a Parquet file read at a time (a row group of more rows comes in several batches).
PARQUET_BATCH_ROWS = 1 << 20


def parquet_id_columns(layout: FileLayout) -> list[str]:
    """The used Parquet text columns holding ids: read as dictionaries (the file's own dictionary pages,
    no string per row, no hashing; 3.3x faster on the 1M-person month), as CSV reads them."""
    schema = pq.ParquetFile(layout.path).schema_arrow
    names = {layout.roles[r] for r in (*ID_ROLES, "direction") if r in layout.roles}
    text = (pa.types.is_string, pa.types.is_large_string)  # pandas and polars write large strings
    return [f.name for f in schema if f.name in names and any(is_text(f.type) for is_text in text)]


def _expected_rows(layout: FileLayout) -> int:
    """Rows a file probably holds, from its size and the sample's line length (a buffer size hint)."""
    sample = layout.sniffed.sample
    if layout.sniffed.kind == "parquet":
        return pq.ParquetFile(layout.path).metadata.num_rows
    if layout.sniffed.compression or not sample:
        return 0
    per_row = len(sample.encode()) / max(sample.count("\n"), 1)
    return int(os.path.getsize(layout.path) / max(per_row, 1.0) * 1.02) + 16


def csv_options(
    layout: FileLayout, threads: bool, on_invalid: object = None
) -> tuple[pacsv.ReadOptions, pacsv.ParseOptions, pacsv.ConvertOptions]:
    """pyarrow CSV options for the used columns: ids as dictionaries, everything else as text."""
    used = layout.used_columns
    id_columns = {layout.roles[r] for r in ID_ROLES if r in layout.roles}
    types = {n: (pa.dictionary(pa.int32(), pa.string()) if n in id_columns else pa.string()) for n in used}
    read = pacsv.ReadOptions(
        use_threads=threads, block_size=BLOCK_SIZE, column_names=None if layout.header else layout.names
    )
    parse = pacsv.ParseOptions(
        delimiter=layout.delimiter, ignore_empty_lines=False, invalid_row_handler=on_invalid
    )
    convert = pacsv.ConvertOptions(
        column_types=types, include_columns=used, strings_can_be_null=False, quoted_strings_can_be_null=False
    )
    return read, parse, convert


def _arrow_message(exc: Exception) -> str:
    text = str(exc).strip()
    return text.split("\n")[0][:300]


def merge_columns(into: Columns, other: Columns) -> None:
    """Append ``other``'s rows to ``into`` (files of a folder read one after another)."""
    for role, pieces in other.ids.items():
        into.ids.setdefault(role, []).extend(pieces)
    for role, buffer in other.numeric.items():
        into.add(role, buffer.epoch_view() if isinstance(buffer, OffsetTimes) else buffer.view())
