"""The risk estimator as relational work, on top of a small abstract SQL back end (DuckDB, Spark).

The back end does what SQL engines do well, out of core: it reads the events and generalizes them into a
profile's distinct (user, point) rows with their counts (``ps_gen``) -- once for the whole grid when every
profile coarsens from the locations in the finest time bins. Those rows, one per distinct user-point, never
one per event, are streamed into the in-memory engine's CSR traces (``fetch.py``); coarser profiles are
coarsened from them by the in-memory engine's ``coarsen``, and every profile is measured by its own numba
kernels (``runner``), so every engine gives the same numbers by construction (see docs/engines.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.backend import SqlBackend
from privacy_studio.core.engines.fetch import TraceShape, fetch_event_traces, fetch_traces
from privacy_studio.core.engines.ingest import Loaded, load_source, spatial_units_sql
from privacy_studio.core.generalize import PriceLayout, Profile, Traces, coordinate_label, price_edges
from privacy_studio.core.heap import return_freed_memory
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.knowledge import Explicit, parse_knowledge
from privacy_studio.core.progress import Cancelled, TaskControl, as_control
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.runner import (
    DerivationPlan,
    RiskSettings,
    base_profile,
    check_levels,
    from_pool,
    run_profile,
    sample_users,
)


def check_settings(settings: RiskSettings):
    """Validate ``settings`` for a relational engine and return its knowledge model; ``ValueError`` (one
    sentence pointing to the numba engine) for what only the numba engine computes."""
    settings.validate()
    model = parse_knowledge(settings.knowledge)
    if isinstance(model, Explicit) or model.kind is None:
        raise ValueError(
            f"knowledge {settings.knowledge!r} runs on the numba engine only; "
            "use --engine numba (or uniform, activity, top knowledge)"
        )
    if settings.exact:
        raise ValueError("exact mode runs on the numba engine only; use --engine numba or drop --exact")
    if settings.sensitive and "attribute_disclosure" in settings.measures:
        raise ValueError(
            "attribute disclosure (--sensitive) is computed by the numba engine only; use --engine numba"
        )
    return model


class RelationalEngine(SqlBackend):
    """A SQL back end plus the engine-neutral plan; subclasses implement :class:`SqlBackend`'s primitives.

    ``run_grid`` yields the same :class:`ProfileResult` objects as ``core.runner.run_grid`` (it ends in the
    same ``run_profile``), EM/KL and per-location EM included.
    """

    #: Rows read, kept and rejected by reason in the last run's input (None for an in-memory EventTable).
    import_report: ImportReport | None = None

    def check_capacity(self, source: object) -> None:
        """``ValueError`` in one sentence, before any work, when this engine's own estimate says the run
        on ``source`` cannot finish within the memory and disk it may use."""

    def release_memory(self) -> None:
        """Hand back what the back end can while the kernels measure a profile (nothing by default)."""

    # -- the plan ------------------------------------------------------------------------------------------

    def run_grid(
        self, source: object, settings: RiskSettings, control: TaskControl | None = None
    ) -> Iterator[ProfileResult]:
        """Evaluate every profile of ``settings`` on ``source``; yield each result as soon as it is done.

        ``source``: a ``core.io`` Dataset, an EventTable or :class:`~privacy_studio.core.engines.EventFiles`.
        Raises ``ValueError`` for what this engine cannot do, ``Cancelled`` between (and during) queries.
        """
        model = check_settings(settings)
        control = as_control(control)
        with _Watch(self, control):
            yield from self._grid(source, settings, model, control)

    def _grid(self, source: object, settings: RiskSettings, model, control: TaskControl):
        profiles = settings.profiles()
        self.check_capacity(source)
        control.report(0.0, "reading the events")
        keep_xy = any(p.spatial.kind == "grid" for p in profiles)
        loaded = load_source(self, source, control.sub(0.0, 0.05), keep_xy)
        self.import_report = loaded.report
        check_levels(profiles, loaded, loaded.hierarchy)
        if loaded.n_users == 0:
            raise ValueError("the dataset has no users: nothing to measure")
        events = _LoadedEvents(loaded)
        derivation = DerivationPlan(events, loaded.hierarchy)
        base = shared_base(loaded, profiles, derivation)
        pool = []  # traces kept for later profiles to coarsen from, as the in-memory engine keeps them
        if base is not None:  # one pass over the events for the whole grid; they are not needed again
            control.report(0.05, "generalizing the events once for the grid")
            pool = [self._base_traces(loaded, base)]
        users = sample_users(loaded.n_users, settings.samples, settings.seed)
        for i, profile in enumerate(profiles):
            step = control.sub(
                0.05 + 0.95 * i / len(profiles), 0.05 + 0.95 * (i + 1) / len(profiles), label=profile.label
            )
            step.report(0.0, "generalizing")
            t0 = time.perf_counter()
            traces, derived_from = from_pool(pool, profile, events, loaded.hierarchy)
            if pool:
                pool = derivation.keep(pool, traces, profiles[i + 1 :])
            result = self._profile(loaded, profile, settings, model, users, step, traces, derived_from, t0)
            del traces  # the pool keeps what later profiles need; the rest is freed now
            return_freed_memory()
            yield result
        control.report(1.0, "grid done")

    def _base_traces(self, loaded: Loaded, base: Profile) -> Traces:
        """The grid's ``base`` traces (its finest places in its finest time bins), generalized once in SQL
        and fetched into the client, which coarsens every profile from them as the in-memory engine does;
        the events and the back end's tables are then dropped."""
        if self.collects_whole:  # Spark: grouped in the cluster, its rows then collected whole
            shape = generalize_sql(self, loaded, base)
            traces = fetch_traces(self, base, loaded.n_users, loaded.n_events, shape)
        else:  # every event's point streamed, grouped on the client (fetch_event_traces says why)
            shape, args = profile_sql(self, loaded, base)
            sql = plan.points_sql(*args)
            traces = fetch_event_traces(self, base, loaded.n_users, loaded.n_events, shape, sql)
        self.drop("ps_gen")
        self.drop("ps_ev")
        self.release_memory()
        return traces

    def _profile(
        self,
        loaded: Loaded,
        profile: Profile,
        settings: RiskSettings,
        model,
        users: np.ndarray,
        control: TaskControl,
        traces: Traces | None,
        derived_from: str | None,
        t0: float,
    ) -> ProfileResult:
        """Measure ``profile``'s traces (coarsened since ``t0`` from ``derived_from``'s; None: generalize
        them out of core and fetch them now) with the in-memory kernels."""
        if traces is None:
            shape = generalize_sql(self, loaded, profile)
            control.report(0.02, "reading the generalized traces")
            traces = fetch_traces(self, profile, loaded.n_users, loaded.n_events, shape)
            self.drop("ps_gen")
            self.release_memory()
        timings = {"generalize": time.perf_counter() - t0}
        events = _LoadedEvents(loaded)
        return run_profile(
            events, loaded.hierarchy, profile, traces, derived_from, settings, model, users, control, timings
        )


def generalize_sql(engine: RelationalEngine, loaded: Loaded, profile: Profile) -> TraceShape:
    """Build ``ps_gen`` for ``profile`` from the events; return the traces' shape (units with their ids and
    centres, time and price bins) as ``generalize`` has it."""
    shape, args = profile_sql(engine, loaded, profile)
    engine.create_fetched("ps_gen", plan.gen_sql(plan.points_sql(*args)))
    engine.drop("ps_pedge")
    return shape


def profile_sql(engine: RelationalEngine, loaded: Loaded, profile: Profile) -> tuple[TraceShape, tuple]:
    """``profile``'s unit tables prepared, its traces' shape, and the arguments of ``plan.points_sql`` that
    place an event of ``ps_ev`` in it."""
    unit_kind, km, n_units = spatial_units_sql(engine, loaded, profile.spatial)
    axis = time_axis(loaded, profile.temporal.seconds)
    bin_sql = plan.bin_expr(loaded.with_tz, axis.width, axis.origin)
    price = None if profile.price is None else price_axis_sql(engine, loaded, profile.price.per_decade)
    n_price = 1 if price is None else price.n_bins
    ids, xy = unit_labels(engine, loaded, profile, unit_kind, km, n_units)
    shape = TraceShape(n_units, axis.n_bins, n_price, ids, xy, axis.origin)
    return shape, (unit_kind, km, axis.n_bins, bin_sql, loaded.with_tz, price)


def time_axis(loaded: Loaded, width: int | None) -> plan.BinAxis:
    """The time bins of width ``width`` over the events' local period, as ``time_bins`` aligns them."""
    origin, n_bins = plan.bins_of_range(*loaded.local_range, width) if loaded.n_events else (0, 1)
    return plan.BinAxis(width, origin, n_bins)


def grid_base(loaded: Loaded, profiles: list[Profile]) -> plan.BinAxis | None:
    """The bins of the grid's base traces (its finest places in its finest time bins) when every profile can
    be coarsened from them: located events, locations or hierarchy levels, no price, every width a multiple
    of the finest (or one bin); None when some profile must be generalized from the events themselves."""
    if len(profiles) < 2 or not loaded.located or not loaded.n_events:
        return None
    if any(p.price is not None or p.spatial.kind not in ("raw", "level") for p in profiles):
        return None
    widths = {p.temporal.seconds for p in profiles} - {None}
    finest = min(widths, default=None)
    if finest is not None and any(w % finest for w in widths):
        return None
    return time_axis(loaded, finest)


def shared_base(loaded: Loaded, profiles: list[Profile], derivation: DerivationPlan) -> Profile | None:
    """The profile generalized once for the whole grid (the in-memory engine's ``base_profile``) when every
    profile coarsens from it (:func:`grid_base`, nested levels); None: each is generalized from the events."""
    if grid_base(loaded, profiles) is None:
        return None
    base = base_profile(profiles, loaded.hierarchy)
    return base if all(derivation.derivable(base, p) for p in profiles) else None


def price_axis_sql(engine: RelationalEngine, loaded: Loaded, per_decade: int) -> plan.PriceSql:
    """The price bins of ``ps_ev`` computed in SQL exactly as ``generalize.price_bins`` computes them: the
    guessed classes' exact edges as ``ps_pedge``, then the layout of the bins; ``ValueError`` as it."""
    if not loaded.amounts:
        raise ValueError("price bins need an amount column (card transactions: a price or amount column)")
    guess = engine.execute(plan.price_guess_sql(per_decade))
    if int(guess.column("missing")[0].as_py() or 0):
        raise ValueError("price bins need an amount on every event; some events have none")
    lo, hi = (guess.column(c)[0].as_py() for c in ("lo", "hi"))
    ks = np.arange(lo, hi + 1, dtype=np.int64) if lo is not None else np.zeros(0, dtype=np.int64)
    edges = price_edges(int(ks[0]), int(ks[-1]) + 1, per_decade) if len(ks) else np.zeros(1)
    engine.register("ps_pedge", pa.table({"k": ks, "lo": edges[:-1], "hi": edges[1:]}))
    row = engine.execute(plan.price_layout_sql(per_decade))
    value = {c: row.column(c)[0].as_py() for c in ("pos_lo", "pos_hi", "neg_lo", "neg_hi", "zeros")}
    layout = PriceLayout(
        per_decade,
        None if value["neg_lo"] is None else (int(value["neg_lo"]), int(value["neg_hi"])),
        bool(value["zeros"]),
        None if value["pos_lo"] is None else (int(value["pos_lo"]), int(value["pos_hi"])),
    )
    pos_lo = 0 if layout.pos is None else layout.pos[0]
    neg_hi = 0 if layout.neg is None else layout.neg[1]
    expr = plan.price_bin_expr(layout.n_negative, layout.zero, pos_lo, neg_hi)
    return plan.PriceSql(per_decade, layout.n_bins, expr)


def unit_labels(
    engine: RelationalEngine, loaded: Loaded, profile: Profile, unit_kind: str, km: float | None, n_units: int
) -> tuple[np.ndarray, np.ndarray]:
    """Ids and km centres (NaN where unknown) of the units, as ``spatial_units`` gives them for maps."""
    xy = np.full((n_units, 2), np.nan)
    if unit_kind in ("grid", "xy"):
        cells = engine.execute("SELECT * FROM ps_cells")
        unit = cells.column("unit").to_numpy()
        if unit_kind == "grid":
            cx, cy = cells.column("cx").to_numpy(), cells.column("cy").to_numpy()
            xy[unit] = (np.column_stack([cx, cy]).astype(np.float64) + 0.5) * km
            ids = np.empty(n_units, dtype=object)
            ids[unit] = [f"cell({x},{y})" for x, y in zip(cx, cy, strict=True)]
        else:
            xy[unit] = np.column_stack([cells.column("rx").to_numpy(), cells.column("ry").to_numpy()])
            ids = np.asarray([coordinate_label(x, y) for x, y in xy], dtype=object)
        return ids.astype(str), xy
    if unit_kind == "loc":
        ids = loaded.location_ids
        sql = "SELECT loc AS unit, x, y FROM ps_loc"
    else:
        ids = loaded.hierarchy.unit_ids[str(profile.spatial.name)]
        sql = (
            "SELECT m.unit AS unit, avg(l.x) AS x, avg(l.y) AS y FROM ps_loc l JOIN ps_units m "
            "ON m.loc = l.loc WHERE l.x IS NOT NULL GROUP BY m.unit"
        )
    if loaded.locations_xy:
        rows = engine.execute(sql)
        unit = rows.column("unit").to_numpy()
        for k, col in enumerate(("x", "y")):
            xy[unit, k] = rows.column(col).to_numpy(zero_copy_only=False)
    return np.asarray(ids, dtype=str), xy


@dataclass(frozen=True)
class _UserNames:
    """User ids by code, looked up in the back end only for the codes asked (never all of them)."""

    loaded: Loaded

    def __getitem__(self, codes: np.ndarray) -> np.ndarray:
        return self.loaded.user_ids(np.asarray(codes))


@dataclass(frozen=True)
class _LoadedEvents:
    """What ``runner.run_profile`` reads of an EventTable for the sampled models the relational engines
    run (uniform, activity, top), the number of events and the ids of sampled users, and what the grid's
    derivation reads (``unit_map``): the number of locations and whether some event has none."""

    loaded: Loaded

    @property
    def n_events(self) -> int:
        return self.loaded.n_events

    @property
    def user_ids(self) -> _UserNames:
        return _UserNames(self.loaded)

    @property
    def n_locations(self) -> int:
        return len(self.loaded.location_ids)

    @property
    def location(self) -> np.ndarray:
        """A stand-in for the events' location codes (they stay in the back end): one -1 when some event
        has no location, else none, which is all ``unit_map`` asks of them."""
        return np.zeros(0 if self.loaded.located else 1, dtype=np.int64) - 1


class _Watch:
    """Interrupts the back end's running query as soon as the control is cancelled."""

    def __init__(self, engine: RelationalEngine, control: TaskControl) -> None:
        self.engine, self.control = engine, control
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.done.wait(0.05):
            if self.control.cancelled:
                self.engine.cancel()
                return

    def __enter__(self) -> _Watch:
        self.thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self.done.set()
        self.thread.join()
        if exc is not None and not isinstance(exc, Cancelled) and self.control.cancelled:
            raise Cancelled("cancelled by the user") from None
        return False
