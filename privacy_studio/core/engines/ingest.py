"""SQL ingestion of the relational engines: the events become the relation ``ps_ev(u, t, loc, x, y)`` (see
``plan.py``) plus the small dictionaries (user ids of the sampled users, location ids, hierarchy) that a
:class:`Loaded` describes.

Either an in-memory table is registered as Arrow, or data files (CSV/TSV, gzip CSV, Parquet) are read by
the engine itself and coded exactly as ``load_dataset`` codes them: the layout (delimiter, header, column
roles) comes from the reader's own ``inspect_file`` and the side files (antennas, locations, hierarchy)
are read by the reader's ``read_places`` on the client, so location codes, hierarchy units and the
projection to km are the in-memory ones. User codes are the rank of the user id (as ``np.unique`` sorts
them). Rejected rows are counted by reason in the report: missing user id, unparsable time, missing
location id, location not in a side file, missing or invalid coordinate. Times must be ISO 8601 (with an
offset, or wall-clock in the ``tz`` option) or epoch seconds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.backend import FileRead, SqlBackend
from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.engines.wallclock import utc_of_wall_clock, wall_clock_table
from privacy_studio.core.events import EventTable, hourly_offset_pieces
from privacy_studio.core.generalize import SpatialLevel
from privacy_studio.core.geo import EARTH_RADIUS_KM, LocalProjection
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io import timeparse
from privacy_studio.core.io.assemble import own_km_note, projection_note
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.load import describe_layout
from privacy_studio.core.io.places import Places, read_places
from privacy_studio.core.io.report import ImportReport, RejectedRows
from privacy_studio.core.io.source import inspect_file
from privacy_studio.core.io.timeparse import TimeParser, check_tz
from privacy_studio.core.progress import TaskControl


@dataclass
class Loaded:
    """What the plan needs to know about ``ps_ev`` once the source is registered or read."""

    n_users: int
    n_events: int
    tz: str
    location_ids: np.ndarray  # str, index = location code
    hierarchy: Hierarchy | None
    coordinates: bool  # the events have km x, y (in ps_ev unless located and no km grid is asked)
    located: bool  # every event has a location code
    locations_xy: bool  # ps_loc(loc, x, y) lists the locations' km coordinates
    local_range: tuple[int, int]  # first and last wall-clock second of the events
    user_names: object  # callable: user codes -> their ids (str array)
    report: ImportReport | None = None
    place_tolerance_km: float = 0.0  # coordinate-only places: see ``generalize.coordinate_places``
    amounts: bool = False  # ps_ev.a holds an amount on every event (card transactions)

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


def load_source(engine: SqlBackend, source: object, control: TaskControl, keep_xy: bool = True) -> Loaded:
    """Register or read ``source`` (Dataset, EventTable or :class:`EventFiles`) as ``ps_ev``; files read
    without ``keep_xy`` leave the events' km coordinates out when locations place them (no km grid asked)."""
    if isinstance(source, EventFiles):
        return load_files(engine, source, control, keep_xy)
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


def load_events(engine: SqlBackend, events: EventTable, hierarchy: Hierarchy | None) -> Loaded:
    """Register an in-memory EventTable: its codes are already the reader's."""
    n = events.n_events
    engine.expect_rows(n)
    engine.register(
        "ps_ev",
        pa.table(
            {
                "u": events.user.astype(np.int64),
                "t": events.utc_seconds(),
                "loc": events.location.astype(np.int64),
                "x": _floats(events.x_km, n),
                "y": _floats(events.y_km, n),
                "a": _floats(events.amount, n),
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
        amounts=events.amount is not None and bool(np.isfinite(events.amount).all()),
    )
    if n:
        t0, t1 = events.period()
        loaded.local_range = local_range(engine, loaded.tz, t0, t1)
    return loaded


def register_locations(engine: SqlBackend, x: np.ndarray, y: np.ndarray) -> None:
    """``ps_loc(loc, x, y)``: km coordinates of every location code (NULL where unknown)."""
    engine.register(
        "ps_loc",
        pa.table(
            {"loc": np.arange(len(x), dtype=np.int64), "x": _floats(x, len(x)), "y": _floats(y, len(y))}
        ),
    )


def local_range(engine: SqlBackend, tz: str, t0: int, t1: int) -> tuple[int, int]:
    """Register the offsets of ``tz`` over the period (``ps_tz``); first and last local second."""
    slack = 0
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
        offsets = np.concatenate([pieces.before, pieces.after])
        slack = int(offsets.max() - offsets.min())
    row = engine.execute(plan.local_range_sql(not is_utc(tz), t0, t1, slack))
    return int(row.column("lo")[0].as_py()), int(row.column("hi")[0].as_py())


def spatial_units_sql(
    engine: SqlBackend, loaded: Loaded, level: SpatialLevel
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


def _count(engine: SqlBackend, table: str, where: str = "TRUE") -> int:
    return int(engine.execute(f"SELECT count(*) AS n FROM {table} WHERE {where}").column("n")[0].as_py())


def file_size(path: str) -> int:
    """Bytes of ``path`` (a file, or every file under a folder)."""
    if os.path.isdir(path):
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    return os.path.getsize(path)


# -- data files read by the engine itself --------------------------------------------------------------

#: A time written as a number: epoch seconds.
NUMBER_PATTERN = r"^\s*-?[0-9]+(\.[0-9]*)?\s*$"


def refuse_unsupported(files: EventFiles) -> None:
    """One clear ``ValueError`` for inputs or options only the in-memory reader handles."""
    path, options = files.path, files.options
    if not os.path.exists(path):
        raise ValueError(f"{path}: file not found")
    if os.path.isdir(path):
        raise ValueError(f"{path}: folders of per-user files are read by the numba engine only")
    if path.lower().endswith(".zip"):
        raise ValueError(f"{path}: zip archives are read by the numba engine only (unzip it, or use .gz)")
    if options.format not in ("auto", "events", "cdr", "transactions"):
        raise ValueError(f"the {options.format} format is read by the numba engine only")
    if options.dayfirst or options.monthfirst:
        raise ValueError("dayfirst/monthfirst dates are read by the numba engine only; use ISO 8601 times")


def _inspect(files: EventFiles) -> tuple:
    """The file's layout, a fresh import report, the side files' places, the column of every role and
    whether places are shops; ``ValueError`` in one sentence for what the relational engines cannot read."""
    refuse_unsupported(files)
    options = files.options
    try:
        check_tz(options.tz)
        layout = inspect_file(files.path, options)
        report = ImportReport(source=files.path)
        describe_layout(layout, report, False, 1)
        places = read_places(options.antennas, options.locations, options.hierarchy, report)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None
    if layout.fmt not in ("events", "cdr", "transactions") or layout.user_from_name is not None:
        raise ValueError(f"{files.path}: {layout.fmt} files are read by the numba engine only")
    roles = dict(layout.roles)
    shops = layout.fmt == "transactions" and "location" not in roles and "merchant" in roles
    if shops:  # as the reader: a card payment's place is its shop
        roles["location"] = roles["merchant"]
    if "time" not in roles or "user" not in roles:
        raise ValueError(f"{files.path}: the relational engines need a user and a time column")
    return layout, report, places, roles, shops


def load_files(engine: SqlBackend, files: EventFiles, control: TaskControl, keep_xy: bool = True) -> Loaded:
    """Read ``files`` in the engine as ``ps_ev`` and the users' ids as ``ps_users``."""
    options = files.options
    layout, report, places, roles, shops = _inspect(files)
    kind = "parquet" if layout.sniffed.kind == "parquet" else "csv"
    names = None if layout.header or kind == "parquet" else layout.names
    engine.read_files("ps_raw", FileRead([files.path], kind, layout.delimiter, layout.header, names))
    control.report(0.1, "parsing the events")
    schema = engine.execute("SELECT * FROM ps_raw LIMIT 0").schema
    for role, column in roles.items():
        if column not in schema.names:
            raise ValueError(f"{files.path}: column {column!r} ({role}) is not in the file")
    proj, place_xy = _projection(engine, roles, places)
    coordinates = _coordinates(roles, proj, place_xy)[0] != "CAST(NULL AS DOUBLE)"
    located = "location" in roles
    if places is not None:
        engine.register(
            "ps_places", pa.table({"lid": places.allowed, "loc": places.allowed_codes.astype(np.int64)})
        )
    if place_xy is not None:
        register_locations(engine, *place_xy)
    priced = layout.fmt == "transactions" and "amount" in roles
    rows = _rows_sql(engine, files.path, roles, schema, options.tz, places, proj, place_xy, shops, priced)
    engine.create_scan("ps_rows", kind, rows)
    engine.create_table("ps_by_user", plan.by_user_sql())  # one pass: rejections, users and period
    kept = _count_rejections(engine, report, places)
    engine.expect_rows(report.rows_read)
    control.report(0.5, "coding users and locations")
    engine.create_ranked("ps_users", "SELECT uid FROM ps_by_user WHERE reason IS NULL", "uid", "u")
    engine.drop("ps_by_user")
    location_ids, loc, joins, (x, y, locations_xy) = _code_locations(
        engine, roles, places, place_xy, proj, coordinates, report
    )
    # Narrow columns: ps_ev is the largest table (4 + 8 + 4 bytes an event without coordinates or amounts).
    xy = f", {x} AS x, {y} AS y" if keep_xy or not located else ""
    engine.create_table(
        "ps_ev",
        f"SELECT CAST(s.u AS INTEGER) AS u, r.t AS t, CAST({loc} AS INTEGER) AS loc{xy}"
        f"{', r.a AS a' if priced else ''} FROM ps_rows r "
        f"JOIN ps_users s ON s.uid = r.uid{joins} WHERE r.reason IS NULL",
    )
    engine.drop("ps_rows")
    control.report(0.9, "finding the period and the local times")
    loaded = Loaded(
        n_users=0,
        n_events=0,
        tz=options.tz,
        location_ids=location_ids,
        hierarchy=places.hierarchy() if places is not None else None,
        coordinates=coordinates,
        located=located,
        locations_xy=locations_xy,
        local_range=(0, 0),
        user_names=lambda codes: _user_names(engine, codes),
        report=report,
        place_tolerance_km=options.place_tolerance_m / 1000.0,
        amounts=priced,
    )
    return _with_period(engine, loaded, kept)


def _code_locations(
    engine: SqlBackend, roles: dict, places, place_xy, proj, coordinates: bool, report: ImportReport
) -> tuple[np.ndarray, str, str, tuple[str, str, bool]]:
    """Location ids by code, the SQL of an event's location code and the join it needs, and the SQL of its
    km x, y with whether ``ps_loc`` lists the locations' km coordinates (notes go to ``report``)."""
    located = "location" in roles
    location_ids = places.ids if places is not None else np.asarray([], dtype=str)
    loc = "r.loc" if places is not None else "CAST(-1 AS BIGINT)"
    joins = ""
    if located and places is None:
        engine.create_ranked("ps_lids", "SELECT DISTINCT lid FROM ps_rows WHERE reason IS NULL", "lid", "loc")
        ids = engine.execute("SELECT lid, loc FROM ps_lids")
        location_ids = np.asarray(ids.column("lid").to_pylist(), dtype=str)[
            np.argsort(ids.column("loc").to_numpy())
        ]
        loc, joins = "l.loc", " JOIN ps_lids l ON l.lid = r.lid"
    x, y, locations_xy = "r.x", "r.y", place_xy is not None
    if _own_km(roles):
        report.note(own_km_note(place_xy is not None))
        if place_xy is None and located and "lat" in roles:  # as the reader: places at their events' mean km
            register_locations(engine, *_location_means(engine, loc, joins, len(location_ids)))
            locations_xy = True
    elif coordinates and proj is None:
        x, y, proj = _by_location(engine, loc, joins, len(location_ids))
        locations_xy = True
    if proj is not None:
        report.note(projection_note(proj))
    return location_ids, loc, joins, (x, y, locations_xy)


def _with_period(engine: SqlBackend, loaded: Loaded, kept: dict) -> Loaded:
    """``loaded`` with ``ps_ev``'s numbers of users and events and its local period, from the kept rows'."""
    loaded.n_events, loaded.n_users = int(kept["n"] or 0), int(kept["users"] or 0)
    loaded.located = loaded.located and loaded.n_events > 0
    if loaded.n_events:
        loaded.local_range = local_range(engine, loaded.tz, int(kept["t0"]), int(kept["t1"]))
    return loaded


def _user_names(engine: SqlBackend, codes: np.ndarray) -> np.ndarray:
    engine.register("ps_want", pa.table({"u": np.asarray(codes, dtype=np.int64)}))
    rows = engine.execute("SELECT s.u AS u, s.uid AS uid FROM ps_users s JOIN ps_want w ON w.u = s.u")
    engine.drop("ps_want")
    by_code = dict(zip(rows.column("u").to_pylist(), rows.column("uid").to_pylist(), strict=True))
    return np.asarray([by_code[int(c)] for c in codes], dtype=str)


def _projection(
    engine: SqlBackend, roles: dict, places: Places | None
) -> tuple[LocalProjection | None, tuple[np.ndarray, np.ndarray] | None]:
    """The reader's projection and the places' km: centred on the side file's places when they have
    coordinates; else on the events, unless every event has a location (None: see :func:`_by_location`)."""
    place_lat = places.lat if places is not None and np.isfinite(places.lat).any() else None
    if place_lat is not None:
        proj = LocalProjection.centred_on(places.lat, places.lon)
        return proj, proj.forward(places.lat, places.lon)
    if _own_km(roles) or "lat" not in roles or "lon" not in roles or "location" in roles:
        return None, None
    lat, lon = plan.ident(roles["lat"]), plan.ident(roles["lon"])
    ok = f"abs(TRY_CAST({lat} AS DOUBLE)) <= 90 AND abs(TRY_CAST({lon} AS DOUBLE)) <= 180"
    row = engine.execute(
        f"SELECT avg(TRY_CAST({lat} AS DOUBLE)) AS a, avg(TRY_CAST({lon} AS DOUBLE)) AS b "
        f"FROM ps_raw WHERE {ok}"
    )
    a, b = row.column("a")[0].as_py(), row.column("b")[0].as_py()
    return LocalProjection(a or 0.0, b or 0.0), None


def _by_location(
    engine: SqlBackend, loc: str, joins: str, n_locations: int
) -> tuple[str, str, LocalProjection]:
    """As the reader: each location at the mean of its kept events' coordinates, the projection centred on
    those locations. ``ps_rows`` holds degrees in x (lon) and y (lat); returns the km x, y expressions of
    a row ``r`` and the projection, and registers ``ps_loc``."""
    lon, lat = _location_means(engine, loc, joins, n_locations)
    proj = LocalProjection.centred_on(lat, lon)
    register_locations(engine, *proj.forward(lat, lon))
    return *_projected("r.x", "r.y", proj), proj


def _location_means(
    engine: SqlBackend, loc: str, joins: str, n_locations: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per location code the mean x and y of its kept rows in ``ps_rows`` (NaN for a code without rows)."""
    means = engine.execute(
        f"SELECT {loc} AS loc, avg(r.x) AS x, avg(r.y) AS y FROM ps_rows r{joins} "
        "WHERE r.reason IS NULL GROUP BY 1"
    )
    x, y = np.full(n_locations, np.nan), np.full(n_locations, np.nan)
    codes = means.column("loc").to_numpy()
    x[codes] = means.column("x").to_numpy(zero_copy_only=False)
    y[codes] = means.column("y").to_numpy(zero_copy_only=False)
    return x, y


def _own_km(roles: dict) -> bool:
    """Whether the file gives its own projected coordinates (they win over lat/lon and the places)."""
    return "x_km" in roles and "y_km" in roles


def _projected(lon: str, lat: str, proj: LocalProjection) -> tuple[str, str]:
    """SQL of ``LocalProjection.forward``, operation for operation (same rounding as numpy)."""
    k = np.pi / 180.0 * EARTH_RADIUS_KM
    c = float(np.cos(np.radians(proj.lat0)))
    return f"(({lon} - {proj.lon0!r}) * {k!r}) * {c!r}", f"({lat} - {proj.lat0!r}) * {k!r}"


def _text(schema: pa.Schema, column: str) -> str:
    """The column as trimmed text, NULL when blank."""
    expr = plan.ident(column)
    if not pa.types.is_string(schema.field(column).type):
        expr = f"CAST({expr} AS STRING)"
    return f"NULLIF({expr}, '')"


def _time(engine: SqlBackend, schema: pa.Schema, column: str, tz: str, path: str) -> tuple[str, str | None]:
    """SQL of the time column as (UTC epoch seconds of times that say their instant, wall-clock seconds of
    times without an offset), in the one style the reader would pick for the column; NULL where neither."""
    kind = schema.field(column).type
    expr = plan.ident(column)
    dialect = engine.dialect
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return _in_epoch_range(f"CAST(floor({expr}) AS BIGINT)"), None
    if pa.types.is_timestamp(kind):
        seconds = plan.floor_div(dialect.epoch_ms(expr), 1000)
        return (seconds, None) if kind.tz is not None else ("CAST(NULL AS BIGINT)", seconds)
    text = f"trim({expr})"
    sample = engine.execute(
        f"SELECT {expr} AS v FROM ps_raw WHERE {expr} IS NOT NULL AND {text} <> '' LIMIT 2000"
    ).column("v")
    parser = TimeParser(tz, False, False, column, path)
    try:
        style = parser.decide_style(pa.array(sample.to_pylist(), pa.string()), 1)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None
    if style == "slashed":
        raise ValueError(f"{path}: dd/mm or mm/dd dates are read by the numba engine only; use ISO 8601")
    if style == "epoch":
        number = dialect.matches(text, NUMBER_PATTERN)
        return f"CASE WHEN {number} THEN {_in_epoch_range(dialect.epoch_seconds(text))} END", None
    return dialect.iso_seconds(text)


def _wall_clock(engine: SqlBackend, naive: str | None, tz: str) -> str | None:
    """Register ``ps_wall`` for the local hours of the naive times (None when there is nothing to convert)."""
    if naive is None or is_utc(tz):
        return None
    hours = engine.execute(
        f"SELECT DISTINCT {plan.floor_div(naive, 3600)} AS lh FROM ps_raw WHERE ({naive}) IS NOT NULL"
    ).column("lh")
    if len(hours) == 0:
        return None
    try:
        table = wall_clock_table(hours.to_numpy(), tz)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None
    engine.register("ps_wall", table)
    return f" LEFT JOIN ps_wall w ON w.lh = {plan.floor_div('r.tl', 3600)}"


def _in_epoch_range(seconds: str) -> str:
    """Epoch seconds the reader accepts (1900-2200; larger numbers are usually milliseconds), else NULL."""
    lo, hi = timeparse.EPOCH_RANGE
    return f"CASE WHEN {seconds} >= {lo} AND {seconds} < {hi} THEN {seconds} END"


def _rows_sql(
    engine: SqlBackend,
    path: str,
    roles: dict,
    schema: pa.Schema,
    tz: str,
    places: Places | None,
    proj: LocalProjection | None,
    place_xy: tuple | None,
    shops: bool = False,
    priced: bool = False,
) -> str:
    """Every raw row parsed, with the first reason (in the reader's order) it would be rejected for;
    ``shops``: the location is a card payment's shop, ``priced``: a transaction needs its amount."""
    uid = _text(schema, roles["user"])
    aware, naive = _time(engine, schema, roles["time"], tz, path)
    wall_join = _wall_clock(engine, naive, tz)
    local = utc_of_wall_clock("r.tl") if wall_join else "r.tl"
    t = "r.ta" if naive is None else f"COALESCE(r.ta, {local})"
    lid = _text(schema, roles["location"]) if "location" in roles else "CAST(NULL AS STRING)"
    x, y, bad_xy = _coordinates(roles, proj, place_xy)
    lo, hi = timeparse.TIME_RANGE
    reasons = [
        ("r.uid IS NULL", "missing user id"),
        (f"({t}) IS NULL", "unparsable time"),
        (f"({t}) < {lo} OR ({t}) >= {hi}", timeparse.OUT_OF_RANGE),  # as the reader: never wrapped
    ]
    if "location" in roles:
        reasons.append(("r.lid IS NULL", "missing shop id" if shops else "missing location id"))
        if places is not None:
            reasons.append(("pl.loc IS NULL", "unknown location"))
    if bad_xy is not None:
        reasons.append((bad_xy, "missing or invalid coordinate"))
    amount = "CAST(NULL AS DOUBLE)"
    if "amount" in roles:
        raw = f"TRY_CAST(r.{plan.ident(roles['amount'])} AS DOUBLE)"
        largest = float(np.finfo(np.float64).max)
        amount = f"CASE WHEN abs({raw}) <= {largest!r} THEN {raw} END"  # NaN and inf become NULL
        if priced:
            reasons.append((f"({amount}) IS NULL", "missing or invalid price"))
    case = " ".join(f"WHEN {cond} THEN {plan.quote(reason)}" for cond, reason in reasons)
    join = wall_join or ""
    if places is not None:
        join += " LEFT JOIN ps_places pl ON pl.lid = r.lid"
    loc = "pl.loc" if places is not None else "CAST(-1 AS BIGINT)"
    if place_xy is not None and "location" in roles:
        join += " LEFT JOIN ps_loc pxy ON pxy.loc = pl.loc"
    return (
        f"SELECT r.uid AS uid, {t} AS t, r.lid AS lid, {loc} AS loc, {x} AS x, {y} AS y, {amount} AS a, "
        f"CASE {case} ELSE NULL END AS reason FROM "
        f"(SELECT *, {uid} AS uid, {aware} AS ta, {naive or 'CAST(NULL AS BIGINT)'} AS tl, {lid} AS lid "
        f"FROM ps_raw) r{join}"
    )


def _coordinates(
    roles: dict, proj: LocalProjection | None, place_xy: tuple | None
) -> tuple[str, str, str | None]:
    """x, y km expressions and the invalid-coordinate condition, as the reader fills and projects them
    (lon, lat in degrees when ``proj`` is None: :func:`_by_location` projects them once it is known)."""
    null = "CAST(NULL AS DOUBLE)"
    if _own_km(roles):  # the file's own km, never filled; a row needs valid lat/lon too when it has them
        x, y = (f"TRY_CAST(r.{plan.ident(roles[k])} AS DOUBLE)" for k in ("x_km", "y_km"))
        degrees = {k: v for k, v in roles.items() if k not in ("x_km", "y_km")}
        bad_degrees = _coordinates(degrees, proj, place_xy)[2]
        bad = f"({x} IS NULL OR {y} IS NULL)"
        return x, y, bad if bad_degrees is None else f"({bad} OR {bad_degrees})"
    by_place = place_xy is not None and "location" in roles
    if "lat" in roles and "lon" in roles:
        lat, lon = (f"TRY_CAST(r.{plan.ident(roles[k])} AS DOUBLE)" for k in ("lat", "lon"))
        ok = f"({lat} IS NOT NULL AND {lon} IS NOT NULL AND abs({lat}) <= 90 AND abs({lon}) <= 180)"
        x, y = _projected(lon, lat, proj) if proj is not None else (lon, lat)  # degrees, projected later
        if by_place:  # the reader fills a row's missing coordinates from its place
            x = f"CASE WHEN {ok} THEN {x} ELSE pxy.x END"
            y = f"CASE WHEN {ok} THEN {y} ELSE pxy.y END"
            return x, y, f"NOT {ok} AND pxy.x IS NULL"
        return f"CASE WHEN {ok} THEN {x} END", f"CASE WHEN {ok} THEN {y} END", f"NOT {ok}"
    if by_place:  # no event coordinates: the places' projected coordinates
        return "pxy.x", "pxy.y", None
    return null, null, None


def _count_rejections(engine: SqlBackend, report: ImportReport, places: Places | None) -> dict:
    """Rows read, kept, rejected by reason (unknown locations named by the side file); the kept rows'."""
    counts = engine.execute(
        "SELECT reason, CAST(sum(n) AS BIGINT) AS n, CAST(count(*) AS BIGINT) AS users, min(t0) AS t0, "
        "max(t1) AS t1 FROM ps_by_user GROUP BY reason"
    ).to_pylist()
    kept: dict = {"n": 0, "users": 0}
    for row in counts:
        report.rows_read += row["n"]
        if row["reason"] is None:
            report.rows_kept += row["n"]
            kept = row
        elif row["reason"] != "unknown location" or places is None:
            _reject(report, row["reason"], row["n"])
    if places is not None and any(row["reason"] == "unknown location" for row in counts):
        sql = "SELECT lid, count(*) AS n FROM ps_rows WHERE reason = 'unknown location' GROUP BY lid"
        for row in engine.execute(sql).to_pylist():
            _reject(report, places.rejection_reason(str(row["lid"])), row["n"])
    return kept


def _reject(report: ImportReport, reason: str, n: int) -> None:
    """Count ``n`` rejected rows (their line numbers are not tracked by the engines)."""
    report.rejected.setdefault(reason, RejectedRows()).count += int(n)
