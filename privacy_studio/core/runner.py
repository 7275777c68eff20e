"""Grid runs of the risk engine: every profile x p value, yielded profile by profile as each is done.

Work is reused across the grid: the finest requested profile is generalized from the events once and the
others are derived from its traces when the hierarchy nests and the time widths divide; one index per
profile serves every p; the same users are sampled for every profile. Progress is reported and
cancellation honoured between chunks of sampled users.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Profile,
    SpatialLevel,
    TemporalLevel,
    Traces,
    coarsen,
    generalize,
    price_label,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.index import PointIndex, build_index
from privacy_studio.core.knowledge import (
    GIVEN,
    Activity,
    Explicit,
    KnowledgeModel,
    MatchingModel,
    TopLocations,
    Uniform,
    combined_table,
    parse_knowledge,
    read_known_events,
)
from privacy_studio.core.measures.attribute_sets import SetDraws, attribute_disclosure
from privacy_studio.core.measures.attributes import Sensitive, read_attributes, sensitive_attributes
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.measures.exact import (
    ExactEstimate,
    cheap_p_values,
    estimate_exact,
    exact_pass,
    total_subsets,
)
from privacy_studio.core.measures.kanonymity import class_sizes, kanonymity_summary
from privacy_studio.core.measures.knowledge_match import Matcher, UserPoints, match_sizes
from privacy_studio.core.measures.setsizes import SetsAtP
from privacy_studio.core.measures.unicity import sample_sizes, whole_trace_sizes
from privacy_studio.core.measures.worstcase import targeted_sizes, worst_lower_bounds
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.risk.catalogue import ATTRIBUTES, EM_KL, RAREST_FIRST, TRACES, needs, summarize
from privacy_studio.core.risk.results import PResult, ProfileResult, float_or_none, json_floats
from privacy_studio.core.risk.settings import RiskSettings

#: Sampled users per kernel call: the granularity of progress reports and cancellation.
CHUNK_USERS = 2000


# -- helpers ---------------------------------------------------------------------------------------------


def check_levels(profiles: list[Profile], events: EventTable, hierarchy: Hierarchy | None) -> None:
    """Fail early, before any heavy work, on a spatial level the data cannot provide."""
    for profile in profiles:
        level = profile.spatial
        if level.kind == "level":
            if hierarchy is None:
                raise ValueError(f"spatial level {level.name!r} needs a hierarchy file (none was loaded)")
            if not hierarchy.has_level(str(level.name)):
                known = ", ".join((hierarchy.location_level, *hierarchy.levels))
                raise ValueError(
                    f"unknown spatial level {level.name!r}; the hierarchy has: {known}, or raw / grid:<km>"
                )
        elif level.kind == "grid" and not events.has_coordinates():
            raise ValueError("a km grid needs coordinates (x_km/y_km or lat/lon) for the events")


def _level_codes(level: SpatialLevel, hierarchy: Hierarchy | None) -> np.ndarray | None:
    """Unit code of every location code at ``level`` (None when the level is not location-based)."""
    if level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels:
        return hierarchy.unit_codes[str(level.name)]
    return None


def unit_map(
    fine_level: SpatialLevel,
    fine_n_units: int,
    target: SpatialLevel,
    events: EventTable,
    hierarchy: Hierarchy | None,
) -> np.ndarray | None:
    """fine unit -> target unit when every fine unit lies in exactly one target unit, else None."""
    if fine_level == target:
        return np.arange(fine_n_units, dtype=np.int64)
    coarse_codes = _level_codes(target, hierarchy)
    if coarse_codes is None or events.n_locations == 0 or (events.location < 0).any():
        return None
    raw = fine_level.kind == "raw" or (
        fine_level.kind == "level" and hierarchy is not None and fine_level.name == hierarchy.location_level
    )
    if raw:
        return coarse_codes.astype(np.int64)
    fine_codes = _level_codes(fine_level, hierarchy)
    if fine_codes is None:
        return None
    mapping = np.full(fine_n_units, -1, dtype=np.int64)
    mapping[fine_codes] = coarse_codes
    if (mapping[fine_codes] != coarse_codes).any():
        return None  # a fine unit spans several target units: the levels do not nest
    return np.maximum(mapping, 0)


def derive_traces(
    base: Traces, profile: Profile, events: EventTable, hierarchy: Hierarchy | None
) -> Traces | None:
    """``profile``'s traces coarsened from ``base`` when possible (nested units, dividing widths)."""
    fine_s, coarse_s = base.profile.temporal.seconds, profile.temporal.seconds
    if base.n_price_bins != 1 or profile.price is not None:
        return None
    if coarse_s is not None and (fine_s is None or coarse_s % fine_s):
        return None
    mapping = unit_map(base.profile.spatial, base.n_units, profile.spatial, events, hierarchy)
    if mapping is None:
        return None
    if profile.spatial == base.profile.spatial:
        n_units, ids, xy = base.n_units, base.unit_ids, base.unit_xy
    else:
        ids = hierarchy.unit_ids[str(profile.spatial.name)]
        n_units = len(ids)
        xy = None
        if base.unit_xy is not None:
            xy = np.full((n_units, 2), np.nan)
            ok = np.isfinite(base.unit_xy).all(axis=1)
            for k in range(2):
                sums = np.bincount(mapping[ok], weights=base.unit_xy[ok, k], minlength=n_units)
                counts = np.bincount(mapping[ok], minlength=n_units)
                with np.errstate(invalid="ignore", divide="ignore"):
                    xy[:, k] = sums / counts
    return coarsen(base, profile, mapping, n_units, ids, xy)


class DerivationPlan:
    """Which traces a grid must keep: a profile derives from kept traces when its units nest in theirs and
    its time width is a multiple of theirs, and traces are dropped as soon as no later profile needs them."""

    def __init__(self, events: EventTable, hierarchy: Hierarchy | None) -> None:
        self.events, self.hierarchy = events, hierarchy
        self._memo: dict[tuple[Profile, Profile], bool] = {}

    def derivable(self, fine: Profile, coarse: Profile) -> bool:
        """Whether ``coarse``'s traces can be coarsened from ``fine``'s (as :func:`derive_traces` does)."""
        key = (fine, coarse)
        if key not in self._memo:
            self._memo[key] = fine == coarse or self._nests(fine, coarse)
        return self._memo[key]

    def _nests(self, fine: Profile, coarse: Profile) -> bool:
        fine_s, coarse_s = fine.temporal.seconds, coarse.temporal.seconds
        if fine.price is not None or coarse.price is not None:
            return False
        if coarse_s is not None and (fine_s is None or coarse_s % fine_s):
            return False
        level, hierarchy = fine.spatial, self.hierarchy
        in_hierarchy = level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels
        n_units = hierarchy.n_units(str(level.name)) if in_hierarchy else self.events.n_locations
        return unit_map(level, n_units, coarse.spatial, self.events, hierarchy) is not None

    def needed(self, kept: Profile, pool: list[Profile], later: list[Profile]) -> bool:
        """Whether ``kept`` must stay in the ``pool`` (traces kept so far, in the order they were made): some
        ``later`` profile's source is it, the source being the last made of the traces that can derive it
        (the pool's, then the later profiles' made before it), so each profile has a source still kept."""
        for j, target in enumerate(later):
            sources = [s for s in (*pool, *later[:j]) if self.derivable(s, target)]
            if sources and sources[-1] == kept:
                return True
        return False


def base_profile(profiles: list[Profile], hierarchy: Hierarchy | None) -> Profile:
    """The profile to generalize from the events first: finest spatial level, a width dividing the others."""

    def rank(level: SpatialLevel) -> int:
        if level.kind == "raw" or (hierarchy is not None and level.name == hierarchy.location_level):
            return -1
        if level.kind == "level" and hierarchy is not None and level.name in hierarchy.levels:
            return hierarchy.levels.index(str(level.name))
        return 1_000

    spatial = min((p.spatial for p in profiles), key=rank)
    widths = sorted({p.temporal.seconds for p in profiles if p.temporal.seconds is not None})
    dividing = [w for w in widths if all(o % w == 0 for o in widths)]
    target = (dividing or widths or [None])[0]
    temporal = next(p.temporal for p in profiles if p.temporal.seconds == target)
    return Profile(spatial, temporal)


def sample_users(n_users: int, samples: int, seed: int) -> np.ndarray:
    """S = min(n, samples) users drawn without replacement (the same for every profile of a run)."""
    rng = np.random.default_rng(seed)
    return rng.choice(n_users, size=min(n_users, samples), replace=False).astype(np.int64)


# -- estimates ------------------------------------------------------------------------------------------


def _sampled_sets(
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


def _presult(sets: SetsAtP, n_sampled: int, n_excluded: int, want: set[str]) -> PResult:
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


def _per_location(index: PointIndex, traces: Traces, acc: np.ndarray, n_terms: int) -> dict:
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


def _sampled_run(
    index: PointIndex,
    users: np.ndarray,
    kind: int,
    settings: RiskSettings,
    want: set[str],
    control: TaskControl,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    pmax: int | None = None,
) -> dict[str, np.ndarray]:
    """The sample pass in chunks of users (progress, cancellation), concatenated in sampling order."""
    pmax = pmax or max(max(settings.p_values), settings.reference_p)
    draws = settings.draws if kind != GIVEN else 1
    em_p = sorted(set(settings.p_values) | {settings.reference_p}) if needs(want, EM_KL) else []
    if kind == GIVEN and em_p:
        em_p = list(range(1, pmax + 1))  # each user's own set length decides which prefix counts
    priors = point_priors(index.list_len, index.n_users) if em_p else None
    parts: list[dict[str, np.ndarray]] = []
    acc = None
    for start in range(0, len(users), CHUNK_USERS):
        end = min(start + CHUNK_USERS, len(users))
        control.report(start / max(1, len(users)), f"sampled users {start + 1:,}–{end:,} of {len(users):,}")
        chunk = users[start : start + CHUNK_USERS]
        chunk_given = None
        if given is not None:
            ptr, pts = given
            chunk_given = (
                ptr[start : start + len(chunk) + 1] - ptr[start],
                pts[ptr[start] : ptr[start + len(chunk)]],
            )
        em_users = max(0, min(len(chunk), settings.em_samples - start))
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
        if em_users:
            acc = r["acc"] if acc is None else acc + r["acc"]
        if needs(want, RAREST_FIRST) and kind != GIVEN:  # the numba engine's targeted worst-case search
            r["rare"] = targeted_sizes(index, chunk, pmax, r["rare"])
        parts.append(r)
    control.report(1.0, "done")
    out = {k: np.concatenate([r[k] for r in parts]) for k in ("sizes", "em", "kl", "rare")}
    out["acc"] = acc if acc is not None else np.zeros(index.n_points)
    return out


def results_by_p(
    sizes: np.ndarray,
    rare: np.ndarray,
    em: np.ndarray,
    kl: np.ndarray,
    settings: RiskSettings,
    want: set[str],
) -> tuple[list[PResult], np.ndarray]:
    """One PResult per p of ``settings`` from the sample pass's arrays, and the worst-case bounds (S, pmax).

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
        sets, n_excluded = _sampled_sets(
            p, sizes[:, :, p - 1], em[:, :, p - 1], kl[:, :, p - 1], worst[:, p - 1], settings
        )
        row = _presult(sets, len(sizes), n_excluded, want)
        row.worst_exact = row.worst_exact or (fixed and "worst_case" in want)
        row.n_short = int(short[:, p - 1].sum())
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


def _evaluate_sampled(
    index: PointIndex,
    traces: Traces,
    events: EventTable,
    users: np.ndarray,
    kind: int,
    settings: RiskSettings,
    control: TaskControl,
    given: tuple[np.ndarray, np.ndarray] | None = None,
    explicit: bool = False,
) -> tuple[list[PResult], dict, dict]:
    want = set(settings.measures)
    pmax = int(np.diff(given[0]).max(initial=1)) if explicit else None
    r = _sampled_run(index, users, kind, settings, want, control, given, pmax)
    sizes, em, kl = r["sizes"], r["em"], r["kl"]
    rows = np.arange(len(users))
    if explicit:
        worst = worst_lower_bounds(sizes, r["rare"])
        ref_k = np.diff(given[0]) - 1  # each user's size at the length of its own known set
        sets, n_excluded = _sampled_sets(
            None, sizes[rows, :, ref_k], em[rows, :, ref_k], kl[rows, :, ref_k], worst[rows, ref_k], settings
        )
        by_p = [_presult(sets, len(users), n_excluded, want)]
    else:
        if settings.short_traces == "exclude" and "unicity" in want:
            conservative = all_points_unicity(sizes, settings.p_values)
        by_p, worst = results_by_p(sizes, r["rare"], em, kl, settings, want)
        for row in by_p if settings.short_traces == "exclude" and "unicity" in want else []:
            row.unicity_all_points = float_or_none(conservative[row.p])
        ref_k = np.full(len(users), settings.reference_p - 1)
    control.check()
    per_user = per_user_details(sizes, em, kl, worst, ref_k, events.user_ids[users], want)
    n_terms = 0 if explicit else int((~np.isnan(em[rows, 0, ref_k])).sum()) * sizes.shape[1]
    control.check()
    per_location = _per_location(index, traces, r["acc"], n_terms) if "em_disclosure" in want else {}
    return by_p, per_user, per_location


def _evaluate_exact(
    index: PointIndex, traces: Traces, events: EventTable, settings: RiskSettings, control: TaskControl
) -> tuple[list[PResult], dict, dict]:
    """Every measure over all p-subsets, per person; class sizes U_k count people (each person's subsets
    share one unit), so U_1 / n is the unicity and Σ_k U_k / (n k) the k-disclosure, as in the sampled mode.
    """
    want = set(settings.measures)
    with_em = needs(want, EM_KL)
    worst_only = want <= {"worst_case", "k_anonymity"}  # each person can stop at the first |E(A)| = 1
    by_p: list[PResult] = []
    per_user: dict = {}
    per_location: dict = {}
    ps = exact_p_values(settings)
    sizes = [total_subsets(np.diff(index.trace_ptr), p) for p in ps]
    done = 0
    for p, size in zip(ps, sizes, strict=True):
        step = control.sub(done / max(1, sum(sizes)), (done + size) / max(1, sum(sizes)))
        r = exact_pass(index, p, with_em, stop_at_one=worst_only, control=step)
        done += size
        n = len(r.users)
        if p in settings.p_values:
            sets = SetsAtP(
                p,
                True,
                None,
                r.unique_rate,
                r.k_disclosure,
                r.class_shares,
                r.em,
                r.kl,
                r.worst,
                settings.records_at_risk_k,
            )
            by_p.append(_presult(sets, index.n_users, index.n_users - n, want))
        if p == settings.reference_p:
            per_user = {
                "user_ids": [str(x) for x in events.user_ids[r.users]],
                "unique_rate": json_floats(r.unique_rate),
                "em": json_floats(r.em) if r.em is not None else None,
                "kl": json_floats(r.kl) if r.kl is not None else None,
                "worst": json_floats(r.worst) if "worst_case" in want else None,
            }
            if "em_disclosure" in want:
                per_location = _per_location(index, traces, r.em_acc, n)
    control.report(1.0, "done")
    return by_p, per_user, per_location


def _exact_where_cheap(
    index: PointIndex, by_p: list[PResult], settings: RiskSettings, control: TaskControl
) -> list[PResult]:
    """``by_p`` with every p whose enumeration fits the exact budget replaced by its exact figures over all
    the people in the file (EM / KL stay those of the sampled people: they are not enumerated)."""
    import numba

    cheap = cheap_p_values(index, settings.p_values, settings.exact_budget, numba.get_num_threads())
    want = set(settings.measures) - {"em_disclosure", "kl_disclosure"}
    out = []
    for row in by_p:
        if row.p not in cheap:
            out.append(row)
            continue
        step = control.sub(cheap.index(row.p) / len(cheap), (cheap.index(row.p) + 1) / len(cheap))
        r = exact_pass(index, row.p, with_em=False, control=step)
        sets = SetsAtP(row.p, True, None, r.unique_rate, r.k_disclosure, r.class_shares, None, None, r.worst,
                       settings.records_at_risk_k)  # fmt: skip
        exact = _presult(sets, index.n_users, index.n_users - len(r.users), want)
        exact.em, exact.kl, exact.em_users = row.em, row.kl, row.em_users
        out.append(exact)
    return out


def add_file_populations(index: PointIndex, by_p: list[PResult], with_unicity: bool) -> None:
    """Give every row the people in the file with fewer than p points and, for exact rows, the unicity with
    them evaluated on all their points, from everyone's whole-trace sets (sampled rows have theirs from the
    sampled draws: :func:`all_points_unicity`)."""
    lengths = np.diff(index.trace_ptr)
    short_people = np.flatnonzero((lengths > 0) & (lengths < max((r.p or 0 for r in by_p), default=0)))
    unique_whole = whole_trace_sizes(index, short_people) == 1
    for row in by_p:
        if row.p is None:
            continue
        row.n_excluded_in_file = int((lengths < row.p).sum())
        included = index.n_users - row.n_excluded_in_file
        if row.method == "exact" and with_unicity:
            short = lengths[short_people] < row.p
            total = (row.unicity or 0.0) * included + int(unique_whole[short].sum())  # None: nobody included
            row.unicity_all_points = total / max(1, included + int(short.sum()))


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


def exact_when_cheap(model: KnowledgeModel, settings: RiskSettings) -> bool:
    """Whether a sampled run may enumerate its cheap p values: uniform knowledge (the one exact mode
    averages over), people with fewer than p points left out, and a budget above zero."""
    return (
        not settings.exact
        and settings.exact_budget > 0
        and model.name == "uniform"
        and settings.short_traces == "exclude"
    )


def exact_p_values(settings: RiskSettings) -> list[int]:
    """The p values exact mode evaluates: the requested ones and the reference p of the details."""
    return sorted(set(settings.p_values) | {settings.reference_p})


def estimate_exact_run(
    dataset_or_events: object, settings: RiskSettings, hierarchy: Hierarchy | None = None
) -> ExactEstimate:
    """The subsets an exact run of ``settings`` will enumerate and a rough duration, before it starts."""
    import numba

    events = getattr(dataset_or_events, "events", dataset_or_events)
    hierarchy = hierarchy if hierarchy is not None else getattr(dataset_or_events, "hierarchy", None)
    settings.validate()
    profiles = settings.profiles()
    check_levels(profiles, events, hierarchy)
    lengths = {pr.label: np.diff(generalize(events, pr, hierarchy).indptr) for pr in profiles}
    with_em = needs(settings.measures, EM_KL)
    return estimate_exact(lengths, exact_p_values(settings), with_em, numba.get_num_threads())


# -- explicit knowledge ---------------------------------------------------------------------------------


def _explicit_orders(
    model: Explicit, events: EventTable, profile: Profile, hierarchy: Hierarchy | None
) -> tuple[Traces, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Generalize data and known events together (same bins); the known points of each listed user."""
    combined = combined_table(events, model.table)
    traces_all = generalize(combined, profile, hierarchy)
    n = events.n_users
    traces = Traces(
        profile,
        traces_all.indptr[: n + 1].copy(),
        traces_all.points[: traces_all.indptr[n]],
        traces_all.counts[: traces_all.indptr[n]],
        traces_all.n_units,
        traces_all.n_bins,
        traces_all.n_price_bins,
        traces_all.unit_ids,
        traces_all.unit_xy,
        traces_all.bin_origin,
    )
    listed = np.flatnonzero(np.diff(traces_all.indptr[n:]) > 0)
    ptr = np.zeros(len(listed) + 1, dtype=np.int64)
    chunks = []
    missing = 0
    for i, k in enumerate(listed):
        pts = traces_all.trace(n + k)
        own = traces.trace(k)
        inside = np.isin(pts, own)
        missing += int((~inside).sum())
        chunks.append(pts)
        ptr[i + 1] = ptr[i] + len(pts)
    if missing:
        raise ValueError(
            f"the knowledge file lists {missing} point(s) under {profile.label} that the user never visits "
            "in the data: known points must be events of the user's own trace"
        )
    pts = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    return traces, listed.astype(np.int64), (ptr, pts)


def _compact_given(
    index: PointIndex, given: tuple[np.ndarray, np.ndarray], shortest_first: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Known profile points -> compact index points; for whole known sets, shortest posting lists first."""
    ptr, pts = given
    compact = np.searchsorted(index.point_ids, pts).astype(np.int64)
    if not shortest_first:  # a model's order: its prefixes are the knowledge for each p
        return ptr, compact
    lengths = index.list_len[compact]
    out = compact.copy()
    for i in range(len(ptr) - 1):
        a, b = ptr[i], ptr[i + 1]
        out[a:b] = compact[a:b][np.argsort(lengths[a:b], kind="stable")]
    return ptr, out


# -- attribute disclosure ---------------------------------------------------------------------------------


def load_sensitive(settings: RiskSettings, events: EventTable) -> list[Sensitive]:
    """The sensitive attributes of ``settings`` per user of the data (none when not asked)."""
    if not settings.sensitive or not needs(settings.measures, ATTRIBUTES):
        return []
    if not settings.attributes:
        raise ValueError("--sensitive needs --attributes FILE: the user attributes that hold those columns")
    return sensitive_attributes(
        read_attributes(settings.attributes), events.user_ids, settings.sensitive, settings.ordered
    )


def _set_draws(model: KnowledgeModel, users: np.ndarray, settings: RiskSettings) -> SetDraws | None:
    """The draws of the anonymity-set figures: the sampled people under the run's kernel model at the
    reference p, or every p-subset in exact mode; None for models without one (explicit and matching)."""
    if model.kind is None or isinstance(model, MatchingModel):
        return None
    all_points = settings.short_traces == "all-points"
    p, draws, seed, exact = settings.reference_p, settings.draws, settings.seed, settings.exact
    return SetDraws(users, model.kind, p, draws, seed, all_points, exact)


# -- the grid -------------------------------------------------------------------------------------------


def _profile_traces(
    events: EventTable, hierarchy: Hierarchy | None, profile: Profile, pool: list[Traces]
) -> tuple[Traces, str | None]:
    """The profile's traces, coarsened from the smallest kept traces that allow it, else from the events."""
    for fine in sorted(pool, key=lambda t: t.nnz):
        if fine.profile == profile:
            return fine, None
        derived = derive_traces(fine, profile, events, hierarchy)
        if derived is not None:
            return derived, fine.profile.label
    return generalize(events, profile, hierarchy), None


def _run_profile(
    events: EventTable,
    hierarchy: Hierarchy | None,
    profile: Profile,
    traces: Traces,
    derived_from: str | None,
    settings: RiskSettings,
    model: KnowledgeModel,
    users: np.ndarray,
    control: TaskControl,
    timings: dict[str, float],
    sensitive: tuple[Sensitive, ...] | list[Sensitive] = (),
) -> ProfileResult:
    """Index one profile's traces and compute every requested measure for every p."""
    want = set(settings.measures)
    kanon = None
    if needs(want, TRACES):  # between stages a cancellation takes effect (each is one uninterruptible pass)
        control.report(0.0, "k-anonymity")
        t0 = time.perf_counter()
        kanon = kanonymity_summary(class_sizes(traces))
        timings["kanon"] = time.perf_counter() - t0
    given = None
    if isinstance(model, Explicit):
        traces, users, given = _explicit_orders(model, events, profile, hierarchy)
    work = traces
    if model.spatial_only:  # top locations: anonymity sets over spatial units, time ignored
        all_time = Profile(profile.spatial, TemporalLevel(None))
        work = coarsen(
            traces, all_time, np.arange(traces.n_units), traces.n_units, traces.unit_ids, traces.unit_xy
        )
    control.report(0.0, "indexing")
    t0 = time.perf_counter()
    index = build_index(work)
    timings["index"] = time.perf_counter() - t0
    control.check()
    t0 = time.perf_counter()
    if settings.exact:
        by_p, per_user, per_location = _evaluate_exact(index, work, events, settings, control)
    elif isinstance(model, MatchingModel):
        by_p, per_user = _evaluate_matching(events, hierarchy, profile, model, users, settings, control)
        per_location = {}
    else:
        kind = model.kind if model.kind is not None else GIVEN
        if given is None and model.kind is None:
            given = python_orders(model, work, users, settings)
        if given is not None:
            given = _compact_given(index, given, shortest_first=isinstance(model, Explicit))
        cheap = exact_when_cheap(model, settings) and not isinstance(model, Explicit)
        sampled = control.sub(0.0, 0.5) if cheap else control
        by_p, per_user, per_location = _evaluate_sampled(
            index, work, events, users, kind, settings, sampled, given, isinstance(model, Explicit)
        )
        if cheap:
            by_p = _exact_where_cheap(index, by_p, settings, control.sub(0.5, 1.0))
    if settings.short_traces == "exclude" and not isinstance(model, Explicit | MatchingModel):
        add_file_populations(index, by_p, "unicity" in settings.measures)
    timings["estimate"] = time.perf_counter() - t0
    attributes = None
    if sensitive:
        control.report(1.0, "attribute disclosure")
        t0 = time.perf_counter()
        draws = _set_draws(model, users, settings)
        l_div, t_close = settings.l_diversity, settings.t_closeness
        attributes = attribute_disclosure(
            traces.indptr, traces.points, sensitive, index, draws, l_div, t_close
        )
        timings["attributes"] = time.perf_counter() - t0
    return ProfileResult(
        spatial=profile.spatial.label,
        temporal=profile.temporal.label,
        label=profile.label,
        n_users=traces.n_users,
        d=int(traces.d),
        nnz=traces.nnz,
        fill_rate=float(traces.fill_rate()),
        n_events=events.n_events,
        by_p=by_p,
        kanon=kanon,
        per_user=per_user,
        per_location=per_location,
        timings={k: float(v) for k, v in timings.items()},
        index_bytes=int(index.nbytes()),
        knowledge=_knowledge_label(model),
        short_traces=settings.short_traces,
        exact=settings.exact,
        reference_p=None if isinstance(model, Explicit) or _one_row(model) else settings.reference_p,
        derived_from=derived_from,
        price=price_label(profile.price),
        attributes=attributes,
    )


def _knowledge_label(model: KnowledgeModel) -> str:
    """The model as the option that selects it (``explicit:FILE``, ``frequency:0.5``, ``top`` …)."""
    if isinstance(model, Explicit):
        return f"explicit:{model.path}"
    return model.label if isinstance(model, MatchingModel) else model.name


def _one_row(model: KnowledgeModel) -> bool:
    """Models whose knowledge does not depend on p (homework): one result row with p = None."""
    return isinstance(model, MatchingModel) and model.name == "homework"


def _evaluate_matching(
    events: EventTable,
    hierarchy: Hierarchy | None,
    profile: Profile,
    model: MatchingModel,
    users: np.ndarray,
    settings: RiskSettings,
    control: TaskControl,
) -> tuple[list[PResult], dict]:
    """Unicity, k-disclosure and worst case under a scikit-mobility-style model (no EM/KL: not defined)."""
    want = set(settings.measures) - {"em_disclosure", "kl_disclosure"}
    ps: list[int | None] = [None] if _one_row(model) else list(settings.p_values)
    pmax = 1 if _one_row(model) else max(max(settings.p_values), settings.reference_p)
    points = UserPoints.build(events, profile, hierarchy, model.spatial_only)
    all_points = settings.short_traces == "all-points"
    m = match_sizes(Matcher(model, points), users, pmax, settings.draws, settings.seed, all_points, control)
    nan = np.full(m.sizes.shape, np.nan)
    by_p = []
    for p in ps:
        k = 0 if p is None else p - 1
        sizes_k = m.sizes[:, :, k]
        sets, n_excluded = _sampled_sets(p, sizes_k, nan[:, :, k], nan[:, :, k], m.worst[:, k], settings)
        row = _presult(sets, len(users), n_excluded, want)
        included = m.sizes[:, 0, k] > 0
        row.worst_exact = "worst_case" in want and bool(m.enumerated[included, k].all())
        row.n_short = int(m.short[included, k].sum())
        by_p.append(row)
    ref_k = 0 if _one_row(model) else settings.reference_p - 1
    per_user = per_user_details(m.sizes, nan, nan, m.worst, ref_k, events.user_ids[users], want)
    return by_p, per_user


def python_orders(
    model: KnowledgeModel, traces: Traces, users: np.ndarray, settings: RiskSettings
) -> tuple[np.ndarray, np.ndarray]:
    """Orders from a model's Python ``draw`` (models without a kernel fast path), one per user."""
    pmax = max(max(settings.p_values), settings.reference_p)
    ptr = np.zeros(len(users) + 1, dtype=np.int64)
    chunks = []
    for i, u in enumerate(users):
        pts, cnt = traces.trace(int(u)), traces.counts[traces.indptr[u] : traces.indptr[u + 1]]
        rng = np.random.default_rng([settings.seed, int(u)])
        chosen = np.asarray(model.draw(pts, cnt, min(pmax, len(pts)), rng), dtype=np.int64)
        chunks.append(chosen)
        ptr[i + 1] = ptr[i] + len(chosen)
    return ptr, (np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64))


def rows_not_needed(
    events: EventTable,
    model: KnowledgeModel,
    settings: RiskSettings,
    plan: DerivationPlan,
    base: Profile,
    profiles: list[Profile],
) -> bool:
    """Whether a compact table's rows may be freed once ``base`` is generalized: sampled inclusion models
    (uniform, activity, top locations) only read traces, and every profile derives from ``base``."""
    if not events.coordinates_at_places or settings.exact or events.rows_dropped:
        return False
    if not isinstance(model, Uniform | Activity | TopLocations):
        return False
    return all(plan.derivable(base, profile) for profile in profiles)


def run_grid(
    dataset_or_events: object,
    settings: RiskSettings,
    hierarchy: Hierarchy | None = None,
    control: TaskControl | None = None,
    sensitive: list[Sensitive] | None = None,
) -> Iterator[ProfileResult]:
    """Evaluate every profile of ``settings``; yield each :class:`ProfileResult` as soon as it is done.
    ``sensitive`` (per user of the events) replaces the settings' attributes file, e.g. for a release whose
    people carry pseudonyms.

    Accepts a ``core.io`` Dataset (``.events``, ``.hierarchy``) or an EventTable plus ``hierarchy``.
    Raises ``ValueError`` for impossible settings before any heavy work; ``Cancelled`` between chunks.
    """
    events = getattr(dataset_or_events, "events", dataset_or_events)
    if hierarchy is None:
        hierarchy = getattr(dataset_or_events, "hierarchy", None)
    if not isinstance(events, EventTable):
        raise ValueError("run_grid needs a Dataset or an EventTable")
    settings.validate()
    control = as_control(control)
    profiles = settings.profiles()
    check_levels(profiles, events, hierarchy)
    if events.n_users == 0:
        raise ValueError("the dataset has no users: nothing to measure")
    model = parse_knowledge(settings.knowledge)
    if isinstance(model, Explicit):
        model = Explicit(path=model.path, table=read_known_events(model.path, events))
    sensitive = load_sensitive(settings, events) if sensitive is None else sensitive
    users = sample_users(events.n_users, settings.samples, settings.seed)
    plan = DerivationPlan(events, hierarchy)
    pool: list[Traces] = []  # traces kept for later profiles to derive from (none with explicit knowledge)
    for i, profile in enumerate(profiles):
        step = control.sub(i / len(profiles), (i + 1) / len(profiles), label=profile.label)
        step.report(0.0, "generalizing")
        t0 = time.perf_counter()
        if i == 0 and not isinstance(model, Explicit):
            pool.append(generalize(events, base_profile(profiles, hierarchy), hierarchy))
            if rows_not_needed(events, model, settings, plan, pool[0].profile, profiles):
                events.drop_rows()  # every later profile derives from these traces (issue #30)
            step.check()
        traces, derived_from = _profile_traces(events, hierarchy, profile, pool)
        if not isinstance(model, Explicit):
            kept = [t for t in pool if t is not traces] + [traces]
            made = [t.profile for t in kept]
            pool = [t for t in kept if plan.needed(t.profile, made, profiles[i + 1 :])]
            del kept  # or it would hold the dropped traces until the next profile
        timings = {"generalize": time.perf_counter() - t0}
        yield _run_profile(
            events, hierarchy, profile, traces, derived_from, settings, model, users, step, timings, sensitive
        )
        del traces  # the pool keeps what later profiles need; the rest is freed now
    control.report(1.0, "grid done")
