"""The sampled estimate of one profile: the sample pass in chunks of users, its class sizes per p summarized
through the catalogue, and the per-user and per-location details."""

from __future__ import annotations

import time

import numba
import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Traces,
)
from privacy_studio.core.index import PointIndex
from privacy_studio.core.knowledge import (
    GIVEN,
    parse_knowledge,
)
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.measures.setsizes import SetsAtP
from privacy_studio.core.measures.unicity import sample_sizes
from privacy_studio.core.measures.worstcase import search_budget, targeted_sizes, worst_lower_bounds
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.catalogue import EM_KL, RAREST_FIRST, UNICITY, needs, summarize
from privacy_studio.core.risk.results import PResult, float_or_none, json_floats
from privacy_studio.core.risk.settings import RiskSettings

#: Sampled users per kernel call: the granularity of progress reports and cancellation.
CHUNK_USERS = 2000


def sample_users(n_users: int, samples: int, seed: int) -> np.ndarray:
    """S = min(n, samples) users drawn without replacement (the same for every profile of a run)."""
    rng = np.random.default_rng(seed)
    return rng.choice(n_users, size=min(n_users, samples), replace=False).astype(np.int64)


# -- estimates ------------------------------------------------------------------------------------------


def sampled_sets(
    p: int | None,
    sizes_at_p: np.ndarray,
    em_at_p: np.ndarray,
    kl_at_p: np.ndarray,
    worst_at_p: np.ndarray,
    settings: RiskSettings,
) -> tuple[SetsAtP, int]:
    """The sets of the included people from (S, R) sizes (0 = excluded), EM/KL (NaN = not computed) and
    (S,) worst bounds; and how many sampled people were excluded (fewer than p points)."""
    included = sizes_at_p[:, 0] > 0
    sizes = sizes_at_p[included]
    weights = np.bincount(sizes.ravel()) if sizes.size else np.zeros(0, dtype=np.int64)
    sets = SetsAtP(
        p,
        False,
        sizes,
        None,
        None,
        weights,
        em_at_p[included],
        kl_at_p[included],
        worst_at_p[included],
        settings.records_at_risk_k,
    )
    return sets, int((~included).sum())


def _share_sum(total: float) -> float:
    """An exact-mode class size (a float sum of per-person shares) to 12 significant digits, so it does not
    depend on the order people happen to be listed in (a release's new pseudonyms reorder them)."""
    return float(f"{total:.12g}")


def presult(sets: SetsAtP, n_sampled: int, n_excluded: int, want: set[str]) -> PResult:
    """Every wanted measure at one p, summarized through the catalogue, with the class sizes U_k."""
    values = {k: float_or_none(v) if isinstance(v, float) else v for k, v in summarize(sets, want).items()}
    weights = sets.class_weights
    number = _share_sum if sets.exact else int
    return PResult(
        p=sets.p,
        n_sampled=n_sampled,
        n_excluded=n_excluded,
        class_sizes=None if weights is None else {int(k): number(c) for k, c in enumerate(weights) if c},
        n_draws=sets.n_draws,
        method="exact" if sets.exact else "sampled",
        **values,
    )


def em_by_location(index: PointIndex, traces: Traces, acc: np.ndarray, n_terms: int) -> dict:
    """EM_j estimated over the EM users, summed over time bins per spatial unit."""
    q = point_priors(index.list_len, index.n_users).q
    units = traces.point_unit(index.point_ids)
    per_unit = np.full(traces.n_units, np.nan)  # None in JSON: no user had reference_p points
    if n_terms:
        em_point = (acc + n_terms * q) / n_terms
        per_unit = np.bincount(units, weights=em_point, minlength=traces.n_units)
    xy = traces.unit_xy if traces.unit_xy is not None else np.full((traces.n_units, 2), np.nan)
    return {
        "unit_ids": [str(u) for u in traces.unit_ids[: traces.n_units]],
        "x_km": json_floats(xy[:, 0]),
        "y_km": json_floats(xy[:, 1]),
        "em": json_floats(per_unit),
    }


def _chunk_orders(
    given: tuple[np.ndarray, np.ndarray] | None, start: int, n: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """The given orders (ptr, points) of the ``n`` sampled people from ``start`` on (None: the model's)."""
    if given is None:
        return None
    ptr, pts = given
    return ptr[start : start + n + 1] - ptr[start], pts[ptr[start] : ptr[start + n]]


def _sampled_run(
    index: PointIndex,
    users: np.ndarray,
    kind: int,
    settings: RiskSettings,
    want: set[str],
    control: TaskControl,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    pmax: int | None = None,
    timings: dict[str, float] | None = None,
) -> dict[str, np.ndarray]:
    """The sample pass in chunks of users (progress, cancellation), concatenated in sampling order; its
    seconds in the draws and in the targeted search are added to ``timings`` (``draws``, ``search``)."""
    timings = {} if timings is None else timings
    timings.setdefault("draws", 0.0)
    timings.setdefault("search", 0.0)
    pmax = pmax or max(max(settings.p_values), settings.reference_p)
    draws = settings.draws if kind != GIVEN else 1
    em_p = sorted(set(settings.p_values) | {settings.reference_p}) if needs(want, EM_KL) else []
    if kind == GIVEN and em_p:
        em_p = list(range(1, pmax + 1))  # each user's own set length decides which prefix counts
    priors = point_priors(index.list_len, index.n_users) if em_p else None
    budget = search_budget(settings.search_budget, len(users), numba.get_num_threads())
    parts: list[dict[str, np.ndarray]] = []
    acc = None
    for start in range(0, len(users), CHUNK_USERS):
        end = min(start + CHUNK_USERS, len(users))
        control.report(start / max(1, len(users)), f"sampled users {start + 1:,}–{end:,} of {len(users):,}")
        chunk = users[start : start + CHUNK_USERS]
        chunk_given = _chunk_orders(given, start, len(chunk))
        em_users = max(0, min(len(chunk), settings.em_samples - start))
        t0 = time.perf_counter()
        r = sample_sizes(
            index,
            chunk,
            kind=kind,
            pmax=pmax,
            draws=draws,
            seed=settings.seed,
            em_p=em_p if em_users else [],
            em_users=em_users,
            ref_p=settings.reference_p,
            worst=needs(want, RAREST_FIRST),
            given=chunk_given,
            priors=priors,
        )
        timings["draws"] += time.perf_counter() - t0
        if em_users:
            acc = r["acc"] if acc is None else acc + r["acc"]
        r["cut"] = np.zeros(len(chunk), dtype=np.int64)
        t0 = time.perf_counter()
        if needs(want, RAREST_FIRST) and kind != GIVEN:  # the numba engine's targeted worst-case search
            r["rare"], r["cut"] = targeted_sizes(index, chunk, pmax, r["rare"], budget)
        timings["search"] += time.perf_counter() - t0
        parts.append(r)
    control.report(1.0, "done")
    out = {k: np.concatenate([r[k] for r in parts]) for k in ("sizes", "em", "kl", "rare", "cut")}
    out["acc"] = acc if acc is not None else np.zeros(index.n_points)
    return out


def results_by_p(
    sizes: np.ndarray,
    rare: np.ndarray,
    em: np.ndarray,
    kl: np.ndarray,
    settings: RiskSettings,
    want: set[str],
    cut: np.ndarray | None = None,
) -> tuple[list[PResult], np.ndarray]:
    """One PResult per p of ``settings`` from the sample pass's arrays, and the worst-case bounds (S, pmax).
    ``cut`` (S,): the first p at which each person's targeted search was cut short by its budget (0: none).

    Every engine's class sizes end here (in-memory and relational), so the summaries are computed once.
    A model without randomness (``top``) has one knowledge per user: its worst case is that knowledge's risk.
    With ``short_traces = all-points`` the sizes of people with fewer than p points are filled in place.
    """
    short = (
        fill_short_traces(sizes)
        if settings.short_traces == "all-points"
        else np.zeros(sizes.shape[::2], bool)
    )
    fixed = not parse_knowledge(settings.knowledge).random
    worst = _fixed_worst(sizes) if fixed else worst_lower_bounds(sizes, rare)
    by_p = []
    for p in settings.p_values:
        sets, n_excluded = sampled_sets(
            p, sizes[:, :, p - 1], em[:, :, p - 1], kl[:, :, p - 1], worst[:, p - 1], settings
        )
        row = presult(sets, len(sizes), n_excluded, want)
        row.worst_exact = row.worst_exact or (fixed and "worst_case" in want)
        row.n_short = int(short[:, p - 1].sum())
        if cut is not None and "worst_case" in want:  # below risk 1 (the maximum) a cut search may miss some
            row.worst_search_cut = int(((cut > 0) & (cut <= p) & (worst[:, p - 1] < 1)).sum())
        by_p.append(row)
    return by_p, worst


def fill_short_traces(sizes: np.ndarray) -> np.ndarray:
    """Give people with fewer than p points, at every such p, the sizes of knowing all their points.

    Draws are nested, so a person's first L points of every order are their whole trace of L points: the
    size at p = L is the all-points size, carried to every larger p. Returns (S, pmax) True where filled.
    """
    short = np.zeros(sizes.shape[::2], dtype=bool)
    for k in range(1, sizes.shape[2]):
        missing = (sizes[:, 0, k] == 0) & (sizes[:, 0, k - 1] > 0)
        sizes[missing, :, k] = sizes[missing, :, k - 1]
        short[missing, k] = True
    return short


def _fixed_worst(sizes: np.ndarray) -> np.ndarray:
    """(S, pmax) risk 1/|E| of each user's one knowledge (NaN where excluded)."""
    with np.errstate(divide="ignore"):
        return np.where(sizes[:, 0, :] > 0, 1.0 / sizes[:, 0, :], np.nan)


def all_points_unicity(sizes: np.ndarray, p_values: list[int]) -> dict[int, float]:
    """Sampled unicity at each p with people of fewer than p points evaluated on all their points."""
    filled = sizes.copy()
    fill_short_traces(filled)
    out = {}
    for p in p_values:
        at = filled[:, :, p - 1]
        at = at[at[:, 0] > 0]
        out[p] = float((at == 1).mean()) if at.size else float("nan")
    return out


def per_user_details(
    sizes: np.ndarray,
    em: np.ndarray,
    kl: np.ndarray,
    worst: np.ndarray,
    ref_k: int | np.ndarray,
    user_ids: np.ndarray,
    want: set[str],
) -> dict:
    """Per sampled user at index ``ref_k`` of p (one for all, or one per user): the ProfileResult details."""
    rows = np.arange(len(sizes))
    ref_k = np.broadcast_to(np.asarray(ref_k), rows.shape)
    at_ref = sizes[rows, :, ref_k]
    keep = at_ref[:, 0] > 0
    return {
        "user_ids": [str(x) for x in np.asarray(user_ids)[keep]],
        "unique_rate": json_floats((at_ref[keep] == 1).mean(axis=1)),
        "em": json_floats(em[rows, :, ref_k][keep].mean(axis=1)) if needs(want, EM_KL) else None,
        "kl": json_floats(kl[rows, :, ref_k][keep].mean(axis=1)) if needs(want, EM_KL) else None,
        "worst": json_floats(worst[rows, ref_k][keep]) if "worst_case" in want else None,
    }


def evaluate_sampled(
    index: PointIndex,
    traces: Traces,
    events: EventTable,
    users: np.ndarray,
    kind: int,
    settings: RiskSettings,
    control: TaskControl,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    explicit: bool = False,
    timings: dict[str, float] | None = None,
) -> tuple[list[PResult], dict, dict]:
    want = set(settings.measures)
    pmax = int(np.diff(given[0]).max(initial=1)) if explicit else None
    r = _sampled_run(index, users, kind, settings, want, control, given, pmax, timings)
    sizes, em, kl = r["sizes"], r["em"], r["kl"]
    rows = np.arange(len(users))
    if explicit:
        worst = worst_lower_bounds(sizes, r["rare"])
        ref_k = np.diff(given[0]) - 1  # each user's size at the length of its own known set
        sets, n_excluded = sampled_sets(
            None, sizes[rows, :, ref_k], em[rows, :, ref_k], kl[rows, :, ref_k], worst[rows, ref_k], settings
        )
        by_p = [presult(sets, len(users), n_excluded, want)]
    else:
        if settings.short_traces == "exclude" and UNICITY in want:
            conservative = all_points_unicity(sizes, settings.p_values)
        by_p, worst = results_by_p(sizes, r["rare"], em, kl, settings, want, r["cut"])
        for row in by_p if settings.short_traces == "exclude" and UNICITY in want else []:
            row.unicity_all_points = float_or_none(conservative[row.p])
        ref_k = np.full(len(users), settings.reference_p - 1)
    control.check()
    per_user = per_user_details(sizes, em, kl, worst, ref_k, events.user_ids[users], want)
    n_terms = 0 if explicit else int((~np.isnan(em[rows, 0, ref_k])).sum()) * sizes.shape[1]
    control.check()
    per_location = em_by_location(index, traces, r["acc"], n_terms) if "em_disclosure" in want else {}
    return by_p, per_user, per_location
