"""Where the relational engines get their events: an in-memory table registered as Arrow, or data files
read by the engine itself (CSV/TSV, gzip CSV, Parquet), coded exactly as the in-memory reader codes them.

Either way the result is the relation ``ps_ev(u, t, loc, x, y)`` (see ``plan.py``) plus the small
dictionaries (user ids of the sampled users, location ids, hierarchy), described by a :class:`Loaded`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.events import EventTable, hourly_offset_pieces
from privacy_studio.core.generalize import SpatialLevel
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.progress import TaskControl

if TYPE_CHECKING:
    from privacy_studio.core.engines.relational import RelationalEngine


@dataclass
class EventFiles:
    """Data files for an engine to read itself: one file (CSV/TSV, .gz, Parquet) and the reader options."""

    path: str
    options: ReaderOptions = field(default_factory=ReaderOptions)


@dataclass
class Loaded:
    """What the plan needs to know about ``ps_ev`` once the source is registered or read."""

    n_users: int
    n_events: int
    tz: str
    location_ids: np.ndarray  # str, index = location code
    hierarchy: Hierarchy | None
    coordinates: bool  # ps_ev has x, y (NULL where an event has none)
    located: bool  # every event has a location code
    locations_xy: bool  # ps_loc(loc, x, y) lists the locations' km coordinates
    local_range: tuple[int, int]  # first and last wall-clock second of the events
    user_names: object  # callable: user codes -> their ids (str array)
    report: ImportReport | None = None
    place_tolerance_km: float = 0.0  # coordinate-only places: see ``generalize.coordinate_places``

    @property
    def with_tz(self) -> bool:
        return not is_utc(self.tz)

    def has_coordinates(self) -> bool:
        """As ``EventTable.has_coordinates`` (``check_levels`` asks it)."""
        return self.coordinates

    def user_ids(self, codes: np.ndarray) -> np.ndarray:
        return np.asarray(self.user_names(codes), dtype=str)


def is_utc(tz: str) -> bool:
    return tz in ("UTC", "utc", "Z", "")


def load_source(engine: RelationalEngine, source: object, control: TaskControl) -> Loaded:
    """Register or read ``source`` (Dataset, EventTable or :class:`EventFiles`) as ``ps_ev``."""
    if isinstance(source, EventFiles):
        from privacy_studio.core.engines.files import load_files

        return load_files(engine, source, control)
    events = getattr(source, "events", source)
    if not isinstance(events, EventTable):
        raise ValueError("the engine needs a Dataset, an EventTable or EventFiles(path, options)")
    loaded = load_events(engine, events, getattr(source, "hierarchy", None))
    loaded.report = getattr(source, "report", None)  # a Dataset's reader already counted its rejections
    return loaded


def _floats(values: np.ndarray | None, n: int) -> pa.Array:
    """float64 column with NaN as NULL (SQL compares NULLs as unknown, never as a coordinate)."""
    if values is None:
        return pa.nulls(n, pa.float64())
    return pa.array(np.asarray(values, dtype=np.float64), from_pandas=True)


def load_events(engine: RelationalEngine, events: EventTable, hierarchy: Hierarchy | None) -> Loaded:
    """Register an in-memory EventTable: its codes are already the reader's."""
    n = events.n_events
    engine.expect_rows(n)
    engine.register(
        "ps_ev",
        pa.table(
            {
                "u": events.user.astype(np.int64),
                "t": events.time.astype(np.int64),
                "loc": events.location.astype(np.int64),
                "x": _floats(events.x_km, n),
                "y": _floats(events.y_km, n),
            }
        ),
    )
    locs = events.locations
    if locs is not None:
        register_locations(engine, locs.x_km, locs.y_km)
    loaded = Loaded(
        n_users=events.n_users,
        n_events=n,
        tz=events.tz,
        location_ids=events.location_ids,
        hierarchy=hierarchy,
        coordinates=events.has_coordinates(),
        located=bool(events.n_locations and (events.location >= 0).all()),
        locations_xy=locs is not None,
        local_range=(0, 0),
        user_names=lambda codes: events.user_ids[codes],
        place_tolerance_km=events.place_tolerance_km,
    )
    if n:
        t0, t1 = int(events.time.min()), int(events.time.max())
        loaded.local_range = local_range(engine, loaded.tz, t0, t1)
    return loaded


def register_locations(engine: RelationalEngine, x: np.ndarray, y: np.ndarray) -> None:
    """``ps_loc(loc, x, y)``: km coordinates of every location code (NULL where unknown)."""
    engine.register(
        "ps_loc",
        pa.table(
            {"loc": np.arange(len(x), dtype=np.int64), "x": _floats(x, len(x)), "y": _floats(y, len(y))}
        ),
    )


def local_range(engine: RelationalEngine, tz: str, t0: int, t1: int) -> tuple[int, int]:
    """Register the offsets of ``tz`` over the period (``ps_tz``); first and last local second."""
    if not is_utc(tz):
        first, last = t0 // 3600, t1 // 3600
        pieces = hourly_offset_pieces(first, last, tz)
        hours = np.arange(first, last + 1, dtype=np.int64)
        engine.register(
            "ps_tz",
            pa.table(
                {"h": hours, "split": pieces.split, "off_before": pieces.before, "off_after": pieces.after}
            ),
        )
    row = engine.execute(plan.local_range_sql(not is_utc(tz)))
    return int(row.column("lo")[0].as_py()), int(row.column("hi")[0].as_py())


def spatial_units_sql(
    engine: RelationalEngine, loaded: Loaded, level: SpatialLevel
) -> tuple[str, float | None, int]:
    """Prepare the unit tables of ``level`` as ``spatial_units`` defines the units.

    Returns the plan's unit kind (``loc``, ``level``, ``grid``, ``xy``), grid size and number of units.
    """
    hierarchy = loaded.hierarchy
    if level.kind == "level" and hierarchy is not None and level.name == hierarchy.location_level:
        level = SpatialLevel("raw")
    if level.kind == "raw":
        if loaded.located:
            return "loc", None, len(loaded.location_ids)
        if not loaded.coordinates:
            raise ValueError(
                "the data has neither location ids nor coordinates: no spatial level is possible"
            )
        if loaded.place_tolerance_km > 0:
            raise ValueError(
                "a place tolerance above 0 m is applied by the numba engine only; use --engine numba"
            )
        engine.create_table("ps_cells", plan.raw_cells_sql())
        return "xy", None, _count(engine, "ps_cells")
    if level.kind == "grid":
        if not loaded.coordinates:
            raise ValueError(
                "a km grid needs coordinates (x_km/y_km or lat/lon) for the events or their locations"
            )
        missing = _count(engine, "ps_ev", "x IS NULL OR y IS NULL")
        if missing:
            raise ValueError("a km grid needs coordinates on every event; some events have none")
        km = float(level.km or 1.0)
        engine.create_table("ps_cells", plan.grid_cells_sql(km, loaded.locations_xy))
        return "grid", km, _count(engine, "ps_cells")
    if hierarchy is None:
        raise ValueError(f"spatial level {level.name!r} needs a hierarchy file (none was loaded)")
    if not loaded.located:
        raise ValueError(f"level {level.name!r} needs a location id on every event")
    codes = hierarchy.unit_codes[str(level.name)]
    engine.register(
        "ps_units", pa.table({"loc": np.arange(len(codes), dtype=np.int64), "unit": codes.astype(np.int64)})
    )
    return "level", None, hierarchy.n_units(str(level.name))


def _count(engine: RelationalEngine, table: str, where: str = "TRUE") -> int:
    return int(engine.execute(f"SELECT count(*) AS n FROM {table} WHERE {where}").column("n")[0].as_py())


def file_size(path: str) -> int:
    """Bytes of ``path`` (a file, or every file under a folder)."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path)
