"""Computing a :class:`DatasetOverview`: by the DuckDB engine straight from the files (the events stay in
the engine, which spills beyond its memory limit), or from a dataset already in memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.io.overview import HOUR, DatasetOverview, PlaceCounts
from privacy_studio.core.progress import TaskControl, as_control

if TYPE_CHECKING:
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.backend import SqlBackend
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset

#: The aggregates, each one pass over the coded events ``ps_ev(u, t, loc)`` of the engine.
PER_PERSON_SQL = (
    "SELECT n, CAST(count(*) AS BIGINT) AS people FROM "
    "(SELECT u, count(*) AS n FROM ps_ev GROUP BY u) GROUP BY n ORDER BY n"
)
PER_PLACE_SQL = "SELECT loc, CAST(count(*) AS BIGINT) AS n FROM ps_ev GROUP BY loc"
PER_HOUR_SQL = (
    f"SELECT CAST(floor(t / {HOUR}) AS BIGINT) AS h, CAST(count(*) AS BIGINT) AS n FROM ps_ev GROUP BY h"
)
PERIOD_SQL = "SELECT min(t) AS t0, max(t) AS t1 FROM ps_ev"


def overview_of_files(
    files: EventFiles, engine: EngineChoice | None = None, control: TaskControl | None = None
) -> DatasetOverview:
    """The overview of ``files`` computed by DuckDB with the project's memory limit and spill folder;
    ``ValueError`` (one sentence) for inputs only the in-memory reader handles."""
    from privacy_studio.core.engines.duckdb_engine import DuckDBEngine
    from privacy_studio.core.engines.ingest import load_files
    from privacy_studio.core.engines.relational import _Watch

    control = as_control(control)
    limit, temp = (engine.memory_limit, engine.temp_dir) if engine is not None else (None, None)
    db = DuckDBEngine(memory_limit=limit, temp_dir=temp)
    try:
        with _Watch(db, control):  # Cancel interrupts the running query
            loaded = load_files(db, files, control.sub(0.0, 0.7, "reading the events"), keep_xy=False)
            if not loaded.n_events:  # as the reader says it
                raise ValueError(f"{files.path}: no usable rows.\n{loaded.report.summary_text()}")
            control.report(0.7, "counting events per person, place and hour")
            overview = _aggregates(db, loaded, files.path)
    finally:
        db.close()
    control.report(1.0, "overview computed")
    overview.check()
    return overview


def _aggregates(db: SqlBackend, loaded: object, source: str) -> DatasetOverview:
    """The overview's counts, queried from the engine's coded events and place table."""
    per_person = db.execute(PER_PERSON_SQL)
    by_place = db.execute(PER_PLACE_SQL)
    codes = by_place.column("loc").to_numpy()
    counts = by_place.column("n").to_numpy()
    ids = np.asarray(loaded.location_ids, dtype=str)  # type: ignore[attr-defined]
    events = np.zeros(len(ids), dtype=np.int64)
    placed = codes >= 0
    events[codes[placed]] = counts[placed]
    x = y = np.full(len(ids), np.nan)
    if loaded.locations_xy:  # type: ignore[attr-defined]
        xy = db.execute("SELECT loc, x, y FROM ps_loc")
        at = xy.column("loc").to_numpy()
        x, y = np.full(len(ids), np.nan), np.full(len(ids), np.nan)
        x[at] = xy.column("x").to_numpy(zero_copy_only=False)
        y[at] = xy.column("y").to_numpy(zero_copy_only=False)
    hours = db.execute(PER_HOUR_SQL)
    first, hourly = _hour_series(hours.column("h").to_numpy(), hours.column("n").to_numpy())
    period = db.execute(PERIOD_SQL)
    t0, t1 = period.column("t0")[0].as_py(), period.column("t1")[0].as_py()
    hierarchy = loaded.hierarchy  # type: ignore[attr-defined]
    return DatasetOverview(
        source=source,
        people=int(loaded.n_users),  # type: ignore[attr-defined]
        events=int(loaded.n_events),  # type: ignore[attr-defined]
        period=None if t0 is None else (int(t0), int(t1)),
        tz=loaded.tz,  # type: ignore[attr-defined]
        per_person=(per_person.column("n").to_pylist(), per_person.column("people").to_pylist()),
        places=PlaceCounts(ids.tolist(), events.tolist(), x.tolist(), y.tolist()),
        unplaced_events=int(counts[~placed].sum()),
        first_hour=first,
        hourly=hourly,
        has_coordinates=bool(loaded.coordinates),  # type: ignore[attr-defined]
        hierarchy_levels=[] if hierarchy is None else list(hierarchy.levels),
        report=loaded.report,  # type: ignore[attr-defined]
        computed_by="duckdb",
    )


def _hour_series(hours: np.ndarray, counts: np.ndarray) -> tuple[int, list[int]]:
    """Events per hour as a dense series from the first hour with events (hours without are 0)."""
    if not len(hours):
        return 0, []
    first = int(hours.min())
    series = np.zeros(int(hours.max()) - first + 1, dtype=np.int64)
    series[hours - first] = counts
    return first, series.tolist()


def overview_of_dataset(dataset: Dataset) -> DatasetOverview:
    """The same overview from a dataset in memory (what the window shows of data that fits)."""
    ev = dataset.events
    per_user = np.diff(ev.user_offsets())
    values, people = np.unique(per_user, return_counts=True)
    located = ev.location >= 0
    events = np.bincount(ev.location[located], minlength=ev.n_locations).astype(np.int64)
    x = y = np.full(ev.n_locations, np.nan)
    if ev.locations is not None:
        x = np.asarray(ev.locations.x_km, dtype=float)[: ev.n_locations]
        y = np.asarray(ev.locations.y_km, dtype=float)[: ev.n_locations]
    hours = np.floor_divide(ev.utc_seconds(), HOUR)
    first = int(hours.min()) if len(hours) else 0
    hourly = np.bincount(hours - first).tolist() if len(hours) else []
    overview = DatasetOverview(
        source=dataset.report.source,
        people=ev.n_users,
        events=ev.n_events,
        period=ev.period() if ev.n_events else None,
        tz=ev.tz,
        per_person=(values.tolist(), people.tolist()),
        places=PlaceCounts([str(i) for i in ev.location_ids], events.tolist(), x.tolist(), y.tolist()),
        unplaced_events=int((~located).sum()),
        first_hour=first,
        hourly=hourly,
        has_coordinates=ev.has_coordinates(),
        hierarchy_levels=[] if dataset.hierarchy is None else list(dataset.hierarchy.levels),
        report=dataset.report,
        computed_by="memory",
    )
    overview.check()
    return overview
