"""Side files about places: antennas (id + coordinates), the locations that exist, the spatial hierarchy.

They fix the events' location dictionary so that codes line up with the hierarchy, and every event must be
at a location each given file knows (others become rejected rows naming the file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io.columns import check_header
from privacy_studio.core.io.convert import to_float
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.options import ROLE_ALIASES
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.io.sniff import detect_delimiter, sample_lines, sniff, to_stream


def read_small_table(path: str) -> pa.Table:
    """A whole side file as strings (header required, delimiter detected)."""
    sniffed = sniff(path)
    if sniffed.kind == "parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
            return table.cast(pa.schema([pa.field(n, pa.string()) for n in table.column_names]))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as exc:
            raise ReaderError(f"damaged or unreadable Parquet table ({exc})", path) from None
    lines = sample_lines(sniffed.sample)
    delimiter = detect_delimiter(lines, path)
    names = lines[0].split(delimiter)
    check_header(names, path)
    try:
        return pacsv.read_csv(
            to_stream(path, sniffed),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}),
        )
    except pa.ArrowInvalid as exc:
        raise ReaderError(f"cannot read this table ({exc})", path) from None


def _column(table: pa.Table, role: str, path: str, required: bool = True) -> str | None:
    lower = {n.strip().lower(): n for n in table.column_names}
    for alias in ROLE_ALIASES[role]:
        if alias in lower:
            return lower[alias]
    if required:
        raise ReaderError(
            f"no {role} column (expected one of {', '.join(ROLE_ALIASES[role])}); columns: "
            + ", ".join(table.column_names),
            path,
        )
    return None


def _ids(table: pa.Table, column: str, path: str) -> np.ndarray:
    ids = np.asarray(
        [("" if v is None else str(v).strip()) for v in table.column(column).to_pylist()], dtype=str
    )
    blank = np.flatnonzero(ids == "")
    if len(blank):
        raise ReaderError("blank location id", path, line=int(blank[0]) + 2, column=column)
    uniq, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        raise ReaderError(f"location id {uniq[counts > 1][0]!r} is listed twice", path, column=column)
    return ids


@dataclass
class PlaceFile:
    """One side file's location ids with optional coordinates (NaN where unknown)."""

    label: str  # "antennas file", "locations file", "hierarchy file"
    path: str
    ids: np.ndarray
    lat: np.ndarray
    lon: np.ndarray
    levels: dict[str, np.ndarray] = field(default_factory=dict)  # hierarchy only
    location_level: str = "location"

    @cached_property
    def id_set(self) -> frozenset[str]:
        return frozenset(self.ids.tolist())

    @classmethod
    def read(cls, path: str, label: str) -> PlaceFile:
        table = read_small_table(path)
        if table.num_rows == 0:
            raise ReaderError(f"the {label} lists no locations", path)
        if label == "hierarchy file":
            if table.num_columns < 2:
                raise ReaderError(
                    "a hierarchy file needs location_id,level_1,... (at least two columns)", path
                )
            first = table.column_names[0]
            ids = _ids(table, first, path)
            levels = {
                name: np.asarray(table.column(name).fill_null("").to_pylist(), dtype=str)
                for name in table.column_names[1:]
            }
            for name, parents in levels.items():
                blank = np.flatnonzero(np.char.strip(parents) == "")
                if len(blank):
                    raise ReaderError(
                        f"blank {name} for location {str(ids[blank[0]])!r} ({len(blank)} such rows): every "
                        "location needs a unit at each level, blanks would be pooled into one unit",
                        path,
                        line=int(blank[0]) + 2,
                        column=name,
                    )
            nan = np.full(len(ids), np.nan)
            return cls(label, path, ids, nan, nan.copy(), levels, first)
        id_column = _column(table, "location", path, required=False) or _column(table, "merchant", path)
        ids = _ids(table, id_column, path)
        lat_col = _column(table, "lat", path, required=label == "antennas file")
        lon_col = _column(table, "lon", path, required=lat_col is not None)
        if lat_col is None or lon_col is None:
            nan = np.full(len(ids), np.nan)
            return cls(label, path, ids, nan, nan.copy())
        lat, lat_ok = to_float(table.column(lat_col))
        lon, lon_ok = to_float(table.column(lon_col))
        bad = np.flatnonzero(~(lat_ok & lon_ok & (np.abs(lat) <= 90) & (np.abs(lon) <= 180)))
        if len(bad):
            raise ReaderError("missing or invalid latitude/longitude", path, line=int(bad[0]) + 2)
        return cls(label, path, ids, lat, lon)


@dataclass
class Places:
    """The location dictionary fixed by the side files, and which ids events may use."""

    ids: np.ndarray  # sorted str, index = location code
    lat: np.ndarray
    lon: np.ndarray
    files: list[PlaceFile]
    allowed: pa.Array  # ids every given file lists ...
    allowed_codes: np.ndarray  # ... and their codes
    hierarchy_file: PlaceFile | None

    def rejection_reason(self, location_id: str) -> str:
        """Why an event at ``location_id`` cannot be kept (the first file that does not list it)."""
        for f in self.files:
            if location_id not in f.id_set:
                return f"location not in {f.label} ({os.path.basename(f.path)})"
        return "unknown location"

    def hierarchy(self) -> Hierarchy | None:
        h = self.hierarchy_file
        if h is None:
            return None
        pos = {v: i for i, v in enumerate(h.ids.tolist())}
        rows = np.asarray([pos[v] for v in self.ids.tolist()], dtype=np.int64)
        return Hierarchy.from_mapping(self.ids, h.location_level, {k: v[rows] for k, v in h.levels.items()})


def read_places(
    antennas: str | None, locations: str | None, hierarchy: str | None, report: ImportReport
) -> Places | None:
    """Read the given side files and fix the location dictionary (None when none is given)."""
    files = [
        PlaceFile.read(p, label)
        for p, label in (
            (antennas, "antennas file"),
            (locations, "locations file"),
            (hierarchy, "hierarchy file"),
        )
        if p
    ]
    if not files:
        return None
    h = next((f for f in files if f.label == "hierarchy file"), None)
    if h is not None:
        ids = np.unique(h.ids)
        for f in files:
            extra = np.setdiff1d(f.ids, ids)
            if f is not h and len(extra):
                report.note(
                    f"{len(extra)} location(s) of the {f.label} are not in the hierarchy file "
                    f"(e.g. {extra[0]!r}); "
                    "events there are rejected"
                )
    else:
        ids = np.unique(np.concatenate([f.ids for f in files]))
    lat = np.full(len(ids), np.nan)
    lon = np.full(len(ids), np.nan)
    allowed = np.ones(len(ids), dtype=bool)
    for f in files:
        pos = np.searchsorted(ids, f.ids)
        inside = (pos < len(ids)) & (ids[np.minimum(pos, len(ids) - 1)] == f.ids)
        has = np.isfinite(f.lat[inside])
        lat[pos[inside][has]] = f.lat[inside][has]
        lon[pos[inside][has]] = f.lon[inside][has]
        listed = np.zeros(len(ids), dtype=bool)
        listed[pos[inside]] = True
        allowed &= listed
    codes = np.flatnonzero(allowed).astype(np.int32)
    return Places(ids.astype(str), lat, lon, files, pa.array(ids[codes].tolist(), pa.string()), codes, h)
