"""The risk estimator as relational work, on top of a small abstract SQL back end (DuckDB, Spark).

The back end holds the events and the generalized (user, point) table; the client samples users, fetches
their traces, draws the knowledge orders with the numba ``order_trace`` (so they equal the in-memory
engine's), uploads them and asks for the anonymity-set sizes with an iterative semi-join, one query per
known-point position. The per-p summaries are the runner's own (see docs/engines.md).
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import numba as nb
import numpy as np
import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.sources import Loaded, load_source
from privacy_studio.core.generalize import Profile
from privacy_studio.core.kernels.rng import stream_key
from privacy_studio.core.knowledge import RAREST, Explicit, parse_knowledge
from privacy_studio.core.measures.kanonymity import THRESHOLDS
from privacy_studio.core.measures.unicity import order_trace
from privacy_studio.core.progress import Cancelled, TaskControl, as_control
from privacy_studio.core.runner import (
    ProfileResult,
    RiskSettings,
    check_levels,
    per_user_details,
    results_by_p,
    sample_users,
)


@dataclass(frozen=True)
class FileRead:
    """What a back end needs to expose data files as one relation (``RelationalEngine.read_files``)."""

    paths: list[str]
    kind: str  # "csv" (also gzip CSV/TSV) or "parquet"
    delimiter: str = ","
    header: bool = True
    names: list[str] | None = None  # column names when the file has no header


class RelationalEngine(ABC):
    """A SQL back end plus the engine-neutral plan; subclasses implement the six primitives below.

    Use as a context manager (``close`` on exit). ``run_grid`` yields the same :class:`ProfileResult`
    objects as ``core.runner.run_grid``; EM/KL are not computed here (they stay None).
    """

    dialect: plan.Dialect = plan.DUCKDB

    # -- the back end's primitives ----------------------------------------------------------------------

    @abstractmethod
    def execute(self, sql: str) -> pa.Table:
        """Run one query and return its whole result (the plan only fetches small results)."""

    @abstractmethod
    def register(self, name: str, table: pa.Table) -> None:
        """Make an Arrow table queryable as ``name`` (replacing any earlier relation of that name)."""

    @abstractmethod
    def create_table(self, name: str, sql: str) -> None:
        """Materialize the result of ``sql`` as table ``name`` (replacing any earlier one)."""

    @abstractmethod
    def drop(self, name: str) -> None:
        """Forget table or view ``name``; no error when it does not exist."""

    @abstractmethod
    def cancel(self) -> None:
        """Interrupt the running query, if any (called from another thread; must be thread-safe)."""

    @abstractmethod
    def read_files(self, name: str, files: FileRead) -> None:
        """Expose the data files as relation ``name`` with the files' column names.

        CSV columns must come as text (VARCHAR / string) so parsing stays the plan's job; Parquet
        columns keep their types.
        """

    def close(self) -> None:  # noqa: B027 - engines without resources need nothing
        """Release the back end's resources (connection, session)."""

    def __enter__(self) -> RelationalEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the plan ------------------------------------------------------------------------------------------

    def run_grid(
        self, source: object, settings: RiskSettings, control: TaskControl | None = None
    ) -> Iterator[ProfileResult]:
        """Evaluate every profile of ``settings`` on ``source``; yield each result as soon as it is done.

        ``source``: a ``core.io`` Dataset, an EventTable or :class:`~privacy_studio.core.engines.EventFiles`.
        Raises ``ValueError`` for what this engine cannot do, ``Cancelled`` between (and during) queries.
        """
        settings.validate()
        model = parse_knowledge(settings.knowledge)
        if isinstance(model, Explicit) or model.kind is None:
            raise ValueError(
                f"knowledge {settings.knowledge!r} runs on the numba engine only; "
                "use --engine numba (or uniform, activity, top knowledge)"
            )
        if settings.exact:
            raise ValueError("exact mode runs on the numba engine only; use --engine numba or drop --exact")
        control = as_control(control)
        with _Watch(self, control):
            yield from self._grid(source, settings, model, control)

    def _grid(self, source: object, settings: RiskSettings, model, control: TaskControl):
        profiles = settings.profiles()
        control.report(0.0, "reading the events")
        loaded = load_source(self, source, control.sub(0.0, 0.05))
        check_levels(profiles, loaded, loaded.hierarchy)
        if loaded.n_users == 0:
            raise ValueError("the dataset has no users: nothing to measure")
        users = sample_users(loaded.n_users, settings.samples, settings.seed)
        self.register("ps_samp", pa.table({"s": np.arange(len(users), dtype=np.int64), "u": users}))
        user_ids = loaded.user_ids(users)
        for i, profile in enumerate(profiles):
            step = control.sub(0.05 + 0.95 * i / len(profiles), 0.05 + 0.95 * (i + 1) / len(profiles))
            yield self._profile(loaded, profile, settings, model, users, user_ids, step)
        control.report(1.0, "grid done")

    def _profile(
        self,
        loaded: Loaded,
        profile: Profile,
        settings: RiskSettings,
        model,
        users: np.ndarray,
        user_ids: np.ndarray,
        control: TaskControl,
    ) -> ProfileResult:
        timings: dict[str, float] = {}
        want = set(settings.measures)
        control.report(0.0, f"{profile.label}: generalizing")
        t0 = time.perf_counter()
        n_units, n_bins = generalize_sql(self, loaded, profile)
        nnz = int(self.execute(plan.shape_sql()).column("nnz")[0].as_py())
        timings["generalize"] = time.perf_counter() - t0
        kanon = None
        if "kanon" in want:
            control.report(0.05, f"{profile.label}: full-fingerprint classes")
            t0 = time.perf_counter()
            kanon = kanon_summary(self._class_histogram(), loaded.n_users)
            timings["kanon"] = time.perf_counter() - t0
        if model.spatial_only:
            self.create_table("ps_gen_t", plan.spatial_only_sql(n_bins))
            self.drop("ps_gen")
            self.create_table("ps_gen", "SELECT * FROM ps_gen_t")
            self.drop("ps_gen_t")
        t0 = time.perf_counter()
        control.report(0.1, f"{profile.label}: sampled traces")
        pmax = max(max(settings.p_values), settings.reference_p)
        sizes, rare = self.class_sizes(
            model.kind, users, settings, pmax, "worst" in want, control.sub(0.1, 1.0)
        )
        timings["estimate"] = time.perf_counter() - t0
        nan = np.full(sizes.shape, np.nan)
        by_p, worst = results_by_p(sizes, rare, nan, nan, settings, want)
        per_user = per_user_details(sizes, nan, nan, worst, settings.reference_p - 1, user_ids, want)
        self.drop("ps_gen")
        return ProfileResult(
            spatial=profile.spatial.label,
            temporal=profile.temporal.label,
            label=profile.label,
            n_users=loaded.n_users,
            d=int(n_units * n_bins),
            nnz=nnz,
            fill_rate=float(nnz / (loaded.n_users * n_units * n_bins)) if n_units else 0.0,
            n_events=loaded.n_events,
            by_p=by_p,
            kanon=kanon,
            per_user=per_user,
            per_location={},
            timings={k: float(v) for k, v in timings.items()},
            knowledge=model.name,
            reference_p=settings.reference_p,
        )

    def _class_histogram(self) -> pa.Table:
        """Full-fingerprint class sizes by hashing each point set, verified member by member against the
        class's first user; on any collision, by grouping the sorted point lists themselves."""
        self.create_table("ps_fp", plan.fingerprints_sql(self.dialect))
        self.create_table("ps_cls", plan.fingerprint_classes_sql())
        bad = int(self.execute(plan.fingerprint_mismatches_sql()).column("bad")[0].as_py())
        hist = self.execute(plan.class_histogram_sql() if bad == 0 else plan.kanon_sql(self.dialect))
        self.drop("ps_cls")
        self.drop("ps_fp")
        return hist

    def class_sizes(
        self,
        kind: int,
        users: np.ndarray,
        settings: RiskSettings,
        pmax: int,
        worst: bool,
        control: TaskControl,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``sizes`` (S, R, pmax) and ``rare`` (S, pmax) exactly as ``sample_sizes`` returns them."""
        traces = self.execute(plan.sampled_traces_sql())
        s_col, points = traces.column("s").to_numpy(), traces.column("point").to_numpy()
        rows = np.lexsort((points, s_col))  # engines may return rows in any order
        traces, s_col, points = traces.take(rows), s_col[rows], points[rows]
        ptr = np.searchsorted(s_col, np.arange(len(users) + 1)).astype(np.int64)
        uniq, local = np.unique(points, return_inverse=True)  # compact ids keep the point order
        list_len = np.zeros(len(uniq), dtype=np.int64)
        list_len[local] = traces.column("n").to_numpy()
        cnt = traces.column("cnt").to_numpy().astype(np.int64)
        orders, rare_orders, m = draw_orders(
            kind,
            ptr,
            local.astype(np.int64),
            cnt,
            list_len,
            users,
            settings.seed,
            settings.draws,
            pmax,
            worst,
        )
        n_s, draws = len(users), settings.draws
        # Queries: (s, r) draws first, then the rarest-first order of every s.
        q_orders = orders.reshape(n_s * draws, pmax)
        q_m = np.repeat(m, draws)
        if worst:
            q_orders = np.concatenate([q_orders, rare_orders])
            q_m = np.concatenate([q_m, m])
        q_sizes = self._prefix_sizes(q_orders, q_m, uniq, list_len, control)
        sizes = q_sizes[: n_s * draws].reshape(n_s, draws, pmax)
        rare = q_sizes[n_s * draws :] if worst else np.zeros((n_s, pmax), dtype=np.int64)
        return sizes, rare

    def _prefix_sizes(
        self, orders: np.ndarray, m: np.ndarray, uniq: np.ndarray, list_len: np.ndarray, control: TaskControl
    ) -> np.ndarray:
        """|E| of every prefix of every order (0 past the order's length) by iterative semi-joins."""
        n_q, pmax = orders.shape
        sizes = np.zeros((n_q, pmax), dtype=np.int64)
        has = m > 0
        sizes[has, 0] = list_len[orders[has, 0]]
        rows = np.arange(n_q)
        self._fill_unique(sizes, rows[has & (sizes[:, 0] == 1)], 0, m)
        open_q = rows[has & (sizes[:, 0] > 1) & (m > 1)]
        if len(open_q) == 0:
            return sizes
        pos = np.arange(pmax)
        q, k = np.nonzero(pos[None, :] < m[open_q, None])
        q = open_q[q]
        self.register(
            "ps_k",
            pa.table({"q": q.astype(np.int64), "pos": k.astype(np.int64), "point": uniq[orders[q, k]]}),
        )
        first, second = uniq[orders[open_q, 0]], uniq[orders[open_q, 1]]
        swap = list_len[orders[open_q, 1]] < list_len[orders[open_q, 0]]
        self.register(
            "ps_first",
            pa.table(
                {
                    "q": open_q.astype(np.int64),
                    "a": np.where(swap, second, first),
                    "b": np.where(swap, first, second),
                }
            ),
        )
        cand = "ps_cand0"
        for p in range(1, pmax):
            control.report(p / pmax, f"known points: {p + 1} ({len(open_q):,} open sets)")
            self.register("ps_open", pa.table({"q": open_q.astype(np.int64)}))
            nxt = f"ps_cand{p % 2}"
            self.create_table(
                nxt, plan.first_candidates_sql() if p == 1 else plan.next_candidates_sql(cand, p)
            )
            if p > 1:
                self.drop(cand)
            cand = nxt
            counts = self.execute(plan.candidate_counts_sql(cand))
            cq = counts.column("q").to_numpy()
            sizes[cq, p] = counts.column("n").to_numpy()
            self._fill_unique(sizes, cq[sizes[cq, p] == 1], p, m)
            open_q = cq[(sizes[cq, p] > 1) & (m[cq] > p + 1)]
            if len(open_q) == 0:
                break
        for name in (cand, "ps_k", "ps_first", "ps_open"):
            self.drop(name)
        return sizes

    @staticmethod
    def _fill_unique(sizes: np.ndarray, queries: np.ndarray, p: int, m: np.ndarray) -> None:
        """Once only the user is left, the size stays 1 up to the order's length (as the kernel stops)."""
        for qi in queries:
            sizes[qi, p + 1 : m[qi]] = 1


def generalize_sql(engine: RelationalEngine, loaded: Loaded, profile: Profile) -> tuple[int, int]:
    """Build ``ps_gen`` for ``profile``; return (n_units, n_bins) as ``generalize`` has them."""
    from privacy_studio.core.engines.sources import spatial_units_sql

    unit_kind, km, n_units = spatial_units_sql(engine, loaded, profile.spatial)
    width = profile.temporal.seconds
    origin, n_bins = plan.bins_of_range(*loaded.local_range, width) if loaded.n_events else (0, 1)
    bin_sql = plan.bin_expr(loaded.with_tz, width, origin)
    engine.create_table("ps_gen", plan.gen_sql(unit_kind, km, n_bins, bin_sql, loaded.with_tz))
    return n_units, n_bins


def kanon_summary(hist: pa.Table, n_users: int) -> dict:
    """``kanonymity_summary`` from a histogram of class sizes (``size``, ``users`` in classes of it)."""
    size = hist.column("size").to_numpy()
    users = hist.column("users").to_numpy()
    if n_users == 0 or len(size) == 0:
        return {"k": 0, "share_below": {str(k): 0.0 for k in THRESHOLDS}}
    return {
        "k": int(size.min()),
        "share_below": {str(k): float(users[size < k].sum() / n_users) for k in THRESHOLDS},
    }


@nb.njit(cache=True, nogil=True)
def draw_orders(
    kind: int,
    ptr: np.ndarray,
    pts: np.ndarray,
    cnt: np.ndarray,
    list_len: np.ndarray,
    users: np.ndarray,
    seed: int,
    draws: int,
    pmax: int,
    worst: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sampled user's knowledge orders (S, R, pmax), rarest-first order (S, pmax) and length m."""
    n_s = len(users)
    orders = np.zeros((n_s, draws, pmax), dtype=np.int64)
    rare = np.zeros((n_s, pmax), dtype=np.int64)
    m = np.zeros(n_s, dtype=np.int64)
    longest = 1
    for s in range(n_s):
        longest = max(longest, ptr[s + 1] - ptr[s])
    keys = np.empty(longest)
    out = np.empty(pmax, dtype=np.int64)
    for s in range(n_s):
        a, b = ptr[s], ptr[s + 1]
        mm = min(pmax, b - a)
        m[s] = mm
        for r in range(draws):
            order_trace(kind, pts[a:b], cnt[a:b], list_len, stream_key(seed, users[s], r), mm, keys, out)
            orders[s, r, :mm] = out[:mm]
        if worst and mm > 0:
            order_trace(RAREST, pts[a:b], cnt[a:b], list_len, stream_key(seed, users[s], 0), mm, keys, out)
            rare[s, :mm] = out[:mm]
    return orders, rare, m


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
