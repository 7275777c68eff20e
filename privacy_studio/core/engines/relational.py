"""The risk estimator as relational work, on top of a small abstract SQL back end (DuckDB, Spark).

The back end holds the events and the generalized (user, point) table; the client samples users, fetches
their traces, draws the knowledge orders with the numba ``order_trace`` (so they equal the in-memory
engine's), uploads them and asks for the anonymity-set sizes with an iterative semi-join, one query per
known-point position. The per-p summaries are the runner's own (see docs/engines.md).
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
from privacy_studio.core.engines.ingest import Loaded, load_source, spatial_units_sql
from privacy_studio.core.generalize import PriceLayout, Profile, coordinate_label, price_edges
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.kernels.sample_pass import draw_orders
from privacy_studio.core.knowledge import Explicit, parse_knowledge
from privacy_studio.core.measures.kanonymity import THRESHOLDS
from privacy_studio.core.progress import Cancelled, TaskControl, as_control
from privacy_studio.core.risk.catalogue import EM_KL, RAREST_FIRST, TRACES, needs
from privacy_studio.core.risk.results import ProfileResult, json_floats, profile_result
from privacy_studio.core.runner import (
    RiskSettings,
    check_levels,
    per_user_details,
    results_by_p,
    sample_users,
)


@dataclass
class EmPlan:
    """EM/KL work of one profile: which queries and prefixes, the closed-form sums, and the results.

    Queries ``q < n_q`` are the draws of the first ``em_samples`` sampled users (q = s * draws + r).
    """

    levels: set[int]  # prefix indices k = p - 1 to evaluate
    ref_k: int  # the prefix whose per-point EM feeds ``per_location``
    n_q: int
    draws: int
    q_user: np.ndarray  # user code of every EM query (its set once it is alone)
    n_users: int
    d: int  # points of the generalized space the estimate runs on (divides the sums)
    n_bins: int  # point // n_bins = spatial unit
    q_all: float  # Σ prior over all points
    g_all: float  # Σ -ln(1 - prior) over all points
    em: np.ndarray  # (S, R, pmax) per-user means, NaN where not computed
    kl: np.ndarray
    unit_acc: np.ndarray  # per unit Σ (EM_uj - prior_j) over the queries at ref_k and their visited points
    n_terms: int = 0  # queries evaluated at ref_k


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

    ``run_grid`` yields the same :class:`ProfileResult` objects as ``core.runner.run_grid``, EM/KL and
    per-location EM included.
    """

    #: Rows read, kept and rejected by reason in the last run's input (None for an in-memory EventTable).
    import_report: ImportReport | None = None

    def check_capacity(self, source: object) -> None:
        """``ValueError`` in one sentence, before any work, when this engine's own estimate says the run
        on ``source`` cannot finish within the memory and disk it may use."""

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
        base = grid_base(loaded, profiles)
        if base is not None:  # one pass over the events for the whole grid; they are not needed again
            control.report(0.05, "generalizing the events once for the grid")
            bins = plan.bin_expr(loaded.with_tz, base.width, base.origin)
            self.create_table("ps_base", plan.gen_sql("loc", None, base.n_bins, bins, loaded.with_tz))
            self.drop("ps_ev")
        if loaded.n_users == 0:
            raise ValueError("the dataset has no users: nothing to measure")
        users = sample_users(loaded.n_users, settings.samples, settings.seed)
        self.register("ps_samp", pa.table({"s": np.arange(len(users), dtype=np.int64), "u": users}))
        user_ids = loaded.user_ids(users)
        for i, profile in enumerate(profiles):
            step = control.sub(
                0.05 + 0.95 * i / len(profiles), 0.05 + 0.95 * (i + 1) / len(profiles), label=profile.label
            )
            yield self._profile(loaded, profile, settings, model, users, user_ids, step, base)
        self.drop("ps_base")
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
        base: plan.BinAxis | None = None,
    ) -> ProfileResult:
        timings: dict[str, float] = {}
        want = set(settings.measures)
        control.report(0.0, "generalizing")
        t0 = time.perf_counter()
        n_units, n_bins, labels = generalize_sql(self, loaded, profile, base)
        nnz = int(self.execute(plan.shape_sql()).column("nnz")[0].as_py())
        timings["generalize"] = time.perf_counter() - t0
        kanon = None
        if needs(want, TRACES):
            control.report(0.05, "full-fingerprint classes")
            t0 = time.perf_counter()
            kanon = kanon_summary(self._class_histogram(), loaded.n_users)
            timings["kanon"] = time.perf_counter() - t0
        if model.spatial_only:
            self.create_table("ps_gen_t", plan.spatial_only_sql(n_bins))
            self.drop("ps_gen")
            self.create_table("ps_gen", "SELECT * FROM ps_gen_t")
            self.drop("ps_gen_t")
        t0 = time.perf_counter()
        control.report(0.1, "sampled traces")
        pmax = max(max(settings.p_values), settings.reference_p)
        work_bins = 1 if model.spatial_only else n_bins
        em = None
        if needs(want, EM_KL):
            em = self._em_plan(users, settings, pmax, loaded.n_users, n_units, work_bins)
        sizes, rare = self.class_sizes(
            model.kind, users, settings, pmax, needs(want, RAREST_FIRST), control.sub(0.1, 1.0), em
        )
        timings["estimate"] = time.perf_counter() - t0
        em_arr = em.em if em is not None else np.full(sizes.shape, np.nan)
        kl_arr = em.kl if em is not None else em_arr
        by_p, worst = results_by_p(sizes, rare, em_arr, kl_arr, settings, want)
        per_user = per_user_details(sizes, em_arr, kl_arr, worst, settings.reference_p - 1, user_ids, want)
        per_location = {}
        if em is not None and "em_disclosure" in want:
            per_location = self._per_location(em, loaded, profile, labels)
        self.drop("ps_freq")
        self.drop("ps_gen")
        return profile_result(
            profile,
            settings,
            n_users=loaded.n_users,
            d=n_units * n_bins,
            nnz=nnz,
            n_events=loaded.n_events,
            by_p=by_p,
            kanon=kanon,
            per_user=per_user,
            per_location=per_location,
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
        em: EmPlan | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``sizes`` (S, R, pmax) and ``rare`` (S, pmax) exactly as ``sample_sizes`` returns them; with
        ``em``, its EM/KL arrays are filled from the same candidate sets."""
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
        q_sizes = self._prefix_sizes(q_orders, q_m, uniq, list_len, control, em)
        sizes = q_sizes[: n_s * draws].reshape(n_s, draws, pmax)
        rare = q_sizes[n_s * draws :] if worst else np.zeros((n_s, pmax), dtype=np.int64)
        return sizes, rare

    def _prefix_sizes(
        self,
        orders: np.ndarray,
        m: np.ndarray,
        uniq: np.ndarray,
        list_len: np.ndarray,
        control: TaskControl,
        em: EmPlan | None = None,
    ) -> np.ndarray:
        """|E| of every prefix of every order (0 past the order's length) by iterative semi-joins."""
        n_q, pmax = orders.shape
        sizes = np.zeros((n_q, pmax), dtype=np.int64)
        has = m > 0
        sizes[has, 0] = list_len[orders[has, 0]]
        rows = np.arange(n_q)
        self._fill_unique(sizes, rows[has & (sizes[:, 0] == 1)], 0, m)
        if em is not None:
            self._em_level(em, 0, sizes, m, first=uniq[orders[: em.n_q, 0]])
        done = 0  # the last prefix whose candidate sets were built
        open_q = rows[has & (sizes[:, 0] > 1) & (m > 1)]
        if len(open_q):
            done = self._semi_joins(orders, m, uniq, list_len, sizes, open_q, control, em)
        for k in range(done + 1, pmax):  # every set is down to its user: no join left but EM's
            if em is not None:
                self._em_level(em, k, sizes, m)
        return sizes

    def _semi_joins(
        self,
        orders: np.ndarray,
        m: np.ndarray,
        uniq: np.ndarray,
        list_len: np.ndarray,
        sizes: np.ndarray,
        open_q: np.ndarray,
        control: TaskControl,
        em: EmPlan | None,
    ) -> int:
        """Fill ``sizes`` from p = 2 on while some set is open; return the last prefix index reached."""
        pmax = orders.shape[1]
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
        done = 0
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
            if em is not None:
                self._em_level(em, p, sizes, m, cand=cand, held=open_q)
            done = p
            open_q = cq[(sizes[cq, p] > 1) & (m[cq] > p + 1)]
            if len(open_q) == 0:
                break
        for name in (cand, "ps_k", "ps_first", "ps_open"):
            self.drop(name)
        return done

    def _em_plan(
        self, users: np.ndarray, settings: RiskSettings, pmax: int, n_users: int, n_units: int, n_bins: int
    ) -> EmPlan:
        """Point frequencies (``ps_freq``) and the closed-form sums over all points, for ``ps_gen``."""
        self.create_table("ps_freq", plan.point_frequencies_sql())
        hist = self.execute(plan.frequency_histogram_sql())
        n = hist.column("n").to_numpy().astype(np.float64)
        points = hist.column("points").to_numpy().astype(np.float64)
        q = n / n_users
        below = q < 1.0
        n_em = min(len(users), settings.em_samples)
        draws = settings.draws
        shape = (len(users), draws, pmax)
        return EmPlan(
            levels={p - 1 for p in set(settings.p_values) | {settings.reference_p}},
            ref_k=settings.reference_p - 1,
            n_q=n_em * draws,
            draws=draws,
            q_user=np.repeat(users[:n_em], draws),
            n_users=n_users,
            d=n_units * n_bins,
            n_bins=n_bins,
            q_all=float((points * q).sum()),
            g_all=float((points[below] * -np.log1p(-q[below])).sum()),
            em=np.full(shape, np.nan),
            kl=np.full(shape, np.nan),
            unit_acc=np.zeros(n_units),
        )

    def _em_level(
        self,
        em: EmPlan,
        k: int,
        sizes: np.ndarray,
        m: np.ndarray,
        first: np.ndarray | None = None,
        cand: str | None = None,
        held: np.ndarray | None = None,
    ) -> None:
        """EM/KL of the EM queries' sets at prefix ``k``: the posting list of ``first`` (k = 0), the
        candidates of the queries ``held`` in ``cand``, or the user alone for the sets already closed."""
        if k not in em.levels:
            return
        qs = np.arange(em.n_q)
        alive = m[: em.n_q] > k
        if not alive.any():
            return
        parts = []
        if first is not None:
            listed = alive & (sizes[: em.n_q, 0] > 1)
            if listed.any():
                self.register("ps_emf", pa.table({"q": qs[listed], "point": first[listed]}))
                parts.append(plan.first_members_sql())
        else:
            listed = np.zeros(em.n_q, dtype=bool)
            if held is not None:
                listed[held[held < em.n_q]] = True
                if listed.any():
                    parts.append(plan.held_members_sql(cand, em.n_q))
        alone = alive & ~listed
        if alone.any():
            self.register("ps_ems", pa.table({"q": qs[alone], "v": em.q_user[alone]}))
            parts.append("SELECT q, v FROM ps_ems")
        self.create_table("ps_emt", plan.em_terms_sql(" UNION ALL ".join(parts), em.n_users))
        sums = self.execute(plan.em_sums_sql())
        q = sums.column("q").to_numpy()
        s, r = np.divmod(q, em.draws)
        rest_em = np.maximum(em.q_all - sums.column("prior").to_numpy(), 0.0)
        rest_kl = np.maximum(em.g_all - sums.column("g").to_numpy(), 0.0)
        em.em[s, r, k] = (sums.column("e").to_numpy() + rest_em) / em.d
        em.kl[s, r, k] = (sums.column("kl").to_numpy() + rest_kl) / em.d
        if k == em.ref_k:
            units = self.execute(plan.em_units_sql(em.n_bins))
            np.add.at(em.unit_acc, units.column("unit").to_numpy(), units.column("acc").to_numpy())
            em.n_terms = int(alive.sum())
        for name in ("ps_emt", "ps_emf", "ps_ems"):
            self.drop(name)

    def _per_location(self, em: EmPlan, loaded: Loaded, profile: Profile, labels: tuple) -> dict:
        """EM_j over the EM queries at the reference p, summed over time bins per spatial unit."""
        n_units = len(em.unit_acc)
        ids, xy = unit_labels(self, loaded, profile, *labels, n_units)
        per_unit = np.full(n_units, np.nan)  # None in JSON: no user had reference_p points
        if em.n_terms:
            freq = self.execute(plan.unit_frequencies_sql(em.n_bins))
            prior = np.zeros(n_units)
            prior[freq.column("unit").to_numpy()] = freq.column("n").to_numpy() / em.n_users
            per_unit = (em.unit_acc + em.n_terms * prior) / em.n_terms
        return {
            "unit_ids": [str(u) for u in ids],
            "x_km": json_floats(xy[:, 0]),
            "y_km": json_floats(xy[:, 1]),
            "em": json_floats(per_unit),
        }

    @staticmethod
    def _fill_unique(sizes: np.ndarray, queries: np.ndarray, p: int, m: np.ndarray) -> None:
        """Once only the user is left, the size stays 1 up to the order's length (as the kernel stops)."""
        for qi in queries:
            sizes[qi, p + 1 : m[qi]] = 1


def generalize_sql(
    engine: RelationalEngine, loaded: Loaded, profile: Profile, base: plan.BinAxis | None = None
) -> tuple[int, int, tuple[str, float | None]]:
    """Build ``ps_gen`` for ``profile``, coarsened from ``ps_base`` when ``base`` gives its bins, else from
    the events; return n_units and the points per unit (time bins x price bins) as ``generalize`` has
    them, and the unit kind and grid size (:func:`unit_labels` names the units)."""
    unit_kind, km, n_units = spatial_units_sql(engine, loaded, profile.spatial)
    axis = time_axis(loaded, profile.temporal.seconds)
    if base is not None:
        if unit_kind == "loc" and axis == base:
            engine.create_alias("ps_gen", "ps_base")
        else:
            engine.create_table("ps_gen", plan.derived_gen_sql(unit_kind, base, axis))
        return n_units, axis.n_bins, (unit_kind, km)
    bin_sql = plan.bin_expr(loaded.with_tz, axis.width, axis.origin)
    price = None if profile.price is None else price_axis_sql(engine, loaded, profile.price.per_decade)
    engine.create_table("ps_gen", plan.gen_sql(unit_kind, km, axis.n_bins, bin_sql, loaded.with_tz, price))
    engine.drop("ps_pedge")
    return n_units, axis.n_bins * (1 if price is None else price.n_bins), (unit_kind, km)


def time_axis(loaded: Loaded, width: int | None) -> plan.BinAxis:
    """The time bins of width ``width`` over the events' local period, as ``time_bins`` aligns them."""
    origin, n_bins = plan.bins_of_range(*loaded.local_range, width) if loaded.n_events else (0, 1)
    return plan.BinAxis(width, origin, n_bins)


def grid_base(loaded: Loaded, profiles: list[Profile]) -> plan.BinAxis | None:
    """The bins of ``ps_base`` (the locations in the grid's finest time bins) when every profile can be
    coarsened from it: located events, locations or hierarchy levels, no price, every width a multiple of
    the finest (or one bin); None when some profile must be generalized from the events themselves."""
    if len(profiles) < 2 or not loaded.located or not loaded.n_events:
        return None
    if any(p.price is not None or p.spatial.kind not in ("raw", "level") for p in profiles):
        return None
    widths = {p.temporal.seconds for p in profiles} - {None}
    finest = min(widths, default=None)
    if finest is not None and any(w % finest for w in widths):
        return None
    return time_axis(loaded, finest)


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
