"""Grid runs of the risk engine: every profile x p value, yielded profile by profile as each is done.

Work is reused across the grid: the finest requested profile is generalized from the events once and the
others are derived from its traces when the hierarchy nests and the time widths divide; one index per
profile serves every p; the same users are sampled for every profile. Progress is reported and
cancellation honoured between chunks of sampled users.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Profile,
    SpatialLevel,
    TemporalLevel,
    Traces,
    coarsen,
    generalize,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.index import PointIndex, build_index
from privacy_studio.core.knowledge import (
    GIVEN,
    Explicit,
    KnowledgeModel,
    combined_table,
    parse_knowledge,
    read_known_events,
)
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.measures.exact import exact_sizes
from privacy_studio.core.measures.kanonymity import class_sizes, kanonymity_summary
from privacy_studio.core.measures.unicity import sample_sizes
from privacy_studio.core.measures.wilson import wilson_interval
from privacy_studio.core.measures.worstcase import worst_lower_bounds
from privacy_studio.core.progress import TaskControl, as_control

MEASURES = ("unicity", "kdisc", "kanon", "em", "kl", "worst")
#: Sampled users per kernel call: the granularity of progress reports and cancellation.
CHUNK_USERS = 2000


@dataclass
class RiskSettings:
    """What to compute: the grid (spatial x temporal, or checked cells), p values, knowledge and measures."""

    spatial: list[str]
    temporal: list[str]
    cells: list[tuple[str, str]] | None = None
    p_values: list[int] = field(default_factory=lambda: list(range(1, 11)))
    knowledge: str = "uniform"
    measures: list[str] = field(default_factory=lambda: list(MEASURES))
    samples: int = 10000
    draws: int = 1
    seed: int = 0
    exact: bool = False
    reference_p: int = 4
    em_samples: int = 1000  # EM/KL are computed on the first em_samples sampled users

    def validate(self) -> None:
        """Raise ``ValueError`` with a readable message for any impossible setting."""
        if not self.cells and (not self.spatial or not self.temporal):
            raise ValueError("the grid is empty: choose at least one spatial level and one time width")
        if self.cells is not None and not self.cells:
            raise ValueError("the grid is empty: no cell is checked")
        if not self.p_values:
            raise ValueError("no p value given: choose at least one number of known points (e.g. 1-10)")
        for p in self.p_values:
            if isinstance(p, bool) or not isinstance(p, int | np.integer) or not 1 <= p < 2**31:
                raise ValueError(f"p values must be whole numbers of known points ≥ 1, got {p!r}")
        unknown = [m for m in self.measures if m not in MEASURES]
        if unknown or not self.measures:
            raise ValueError(
                f"unknown measure(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(MEASURES)}"
            )
        for name in ("samples", "draws", "reference_p", "em_samples"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 1 <= value < 2**31:
                raise ValueError(f"{name} must be a whole number from 1 to {2**31 - 1}, got {value!r}")
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be a whole number from 0 to {2**63 - 1}, got {self.seed!r}")
        model = parse_knowledge(self.knowledge)
        if self.exact and model.name != "uniform":
            raise ValueError(
                "exact mode averages over all p-subsets, which is the uniform knowledge model only"
            )
        for spatial, temporal in self.cell_labels():
            Profile.parse(spatial, temporal)

    def cell_labels(self) -> list[tuple[str, str]]:
        if self.cells is not None:
            return [(str(s), str(t)) for s, t in self.cells]
        return [(s, t) for s in self.spatial for t in self.temporal]

    def profiles(self) -> list[Profile]:
        """The profiles to evaluate, in grid order (checked cells, or spatial-major cartesian product); a
        profile given twice (``grid:1`` and ``grid:1.0``) is evaluated once."""
        return list(dict.fromkeys(Profile.parse(s, t) for s, t in self.cell_labels()))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cells"] = None if self.cells is None else [list(c) for c in self.cells]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> RiskSettings:
        """Build and validate settings from a dict (e.g. a project file); unknown keys are an error."""
        names = {f.name for f in fields(cls)}
        extra = sorted(set(d) - names)
        if extra:
            raise ValueError(f"unknown risk setting(s): {', '.join(extra)}")
        missing = [k for k in ("spatial", "temporal") if k not in d]
        if missing:
            raise ValueError(f"risk settings need {' and '.join(missing)}")
        kwargs = dict(d)
        if kwargs.get("cells") is not None:
            kwargs["cells"] = [tuple(c) for c in kwargs["cells"]]
        settings = cls(**kwargs)
        settings.validate()
        return settings


@dataclass
class PResult:
    """All measures at one p (p is None for explicit knowledge); None where a measure was not asked."""

    p: int | None
    unicity: float | None = None
    unicity_ci: tuple[float, float] | None = None
    k_disclosure: float | None = None
    em: float | None = None
    kl: float | None = None
    n_sampled: int = 0
    n_excluded: int = 0
    worst_mean: float | None = None
    worst_share_at_1: float | None = None
    worst_exact: bool = False
    class_sizes: dict[int, int] | None = None  # U_k over the draws: anonymity-set size -> number of draws
    n_draws: int = 0  # draws that entered the estimate (included users x draws, or subsets in exact mode)
    em_users: int = 0  # users on whom EM / KL were computed

    def to_dict(self) -> dict:
        d = asdict(self)
        d["unicity_ci"] = None if self.unicity_ci is None else list(self.unicity_ci)
        d["class_sizes"] = (
            None if self.class_sizes is None else {str(k): v for k, v in self.class_sizes.items()}
        )
        return d

    @classmethod
    def from_dict(cls, d: dict) -> PResult:
        kwargs = {k: v for k, v in d.items() if k in {f.name for f in fields(cls)}}
        if kwargs.get("unicity_ci") is not None:
            kwargs["unicity_ci"] = tuple(kwargs["unicity_ci"])
        if kwargs.get("class_sizes") is not None:
            kwargs["class_sizes"] = {int(k): int(v) for k, v in kwargs["class_sizes"].items()}
        return cls(**kwargs)


@dataclass
class ProfileResult:
    """One profile's results over all p, plus detail arrays at the reference p for maps and histograms."""

    spatial: str
    temporal: str
    label: str
    n_users: int
    d: int
    nnz: int
    fill_rate: float
    n_events: int
    by_p: list[PResult]
    kanon: dict | None = None
    per_user: dict = field(default_factory=dict)
    per_location: dict = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    index_bytes: int = 0
    knowledge: str = "uniform"
    exact: bool = False
    reference_p: int | None = None
    derived_from: str | None = None  # profile whose traces this one was coarsened from

    def to_dict(self) -> dict:
        d = asdict(self)
        d["by_p"] = [r.to_dict() for r in self.by_p]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ProfileResult:
        kwargs = {k: v for k, v in d.items() if k in {f.name for f in fields(cls)}}
        kwargs["by_p"] = [PResult.from_dict(r) for r in d.get("by_p", [])]
        return cls(**kwargs)


# -- helpers ---------------------------------------------------------------------------------------------


def _float(x: float) -> float | None:
    """A JSON-safe float (None for NaN)."""
    x = float(x)
    return None if np.isnan(x) else x


def json_floats(a: np.ndarray) -> list[float | None]:
    """A JSON-safe list of floats (None for NaN); every engine writes per-unit values with it."""
    return [None if np.isnan(v) else float(v) for v in np.asarray(a, dtype=np.float64)]


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
    fine: Traces, target: SpatialLevel, events: EventTable, hierarchy: Hierarchy | None
) -> np.ndarray | None:
    """fine unit -> target unit when every fine unit lies in exactly one target unit, else None."""
    fine_level = fine.profile.spatial
    if fine_level == target:
        return np.arange(fine.n_units, dtype=np.int64)
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
    mapping = np.full(fine.n_units, -1, dtype=np.int64)
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
    mapping = unit_map(base, profile.spatial, events, hierarchy)
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


def _summaries(
    sizes_at_p: np.ndarray, em_at_p: np.ndarray, kl_at_p: np.ndarray, worst_at_p: np.ndarray
) -> dict:
    """Per-p aggregates from (S, R) sizes (0 = excluded), EM/KL (NaN = not computed) and (S,) worst bounds."""
    included = sizes_at_p[:, 0] > 0
    sz = sizes_at_p[included]
    trials = int(sz.size)
    uniq = int((sz == 1).sum())
    ems = em_at_p[included]
    computed = ~np.isnan(ems[:, 0]) if len(ems) else np.zeros(0, dtype=bool)
    worst = worst_at_p[included]
    hist = np.bincount(sz.ravel()) if trials else np.zeros(0, dtype=np.int64)
    return {
        "n_excluded": int((~included).sum()),
        "trials": trials,
        "unique": uniq,
        "kdisc": float(np.mean(1.0 / sz)) if trials else float("nan"),
        "em": float(np.mean(ems[computed])) if computed.any() else float("nan"),
        "kl": float(np.mean(kl_at_p[included][computed])) if computed.any() else float("nan"),
        "em_users": int(computed.sum()),
        "worst_mean": float(np.mean(worst)) if len(worst) else float("nan"),
        "worst_share": float(np.mean(worst == 1.0)) if len(worst) else float("nan"),
        "hist": {int(k): int(c) for k, c in enumerate(hist) if c},
    }


def _presult(
    p: int | None, s: dict, n_sampled: int, want: set[str], exact: bool, unicity: float | None = None
) -> PResult:
    est = s["unique"] / s["trials"] if s["trials"] else float("nan")
    uni = est if unicity is None else unicity
    ci = (uni, uni) if exact else wilson_interval(s["unique"], s["trials"])
    return PResult(
        p=p,
        unicity=_float(uni) if "unicity" in want else None,
        unicity_ci=(float(ci[0]), float(ci[1])) if "unicity" in want and s["trials"] else None,
        k_disclosure=_float(s["kdisc"]) if "kdisc" in want else None,
        em=_float(s["em"]) if "em" in want else None,
        kl=_float(s["kl"]) if "kl" in want else None,
        n_sampled=n_sampled,
        n_excluded=s["n_excluded"],
        worst_mean=_float(s["worst_mean"]) if "worst" in want else None,
        worst_share_at_1=_float(s["worst_share"]) if "worst" in want else None,
        worst_exact=bool("worst" in want and (exact or p == 1 or s["worst_share"] == 1.0)),
        class_sizes=s["hist"],
        n_draws=s["trials"],
        em_users=s["em_users"] if want & {"em", "kl"} else 0,
    )


def _per_location(index: PointIndex, traces: Traces, acc: np.ndarray, n_terms: int) -> dict:
    """EM_j estimated over the EM users, summed over time bins per spatial unit."""
    q, _, _, _ = point_priors(index.list_len, index.n_users)
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
    em_p = sorted(set(settings.p_values) | {settings.reference_p}) if want & {"em", "kl"} else []
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
            worst="worst" in want,
            given=chunk_given,
            priors=priors,
        )
        if em_users:
            acc = r["acc"] if acc is None else acc + r["acc"]
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
    """
    worst = worst_lower_bounds(sizes, rare)
    by_p = []
    for p in settings.p_values:
        s = _summaries(sizes[:, :, p - 1], em[:, :, p - 1], kl[:, :, p - 1], worst[:, p - 1])
        by_p.append(_presult(p, s, len(sizes), want, False))
    return by_p, worst


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
        "em": json_floats(em[rows, :, ref_k][keep].mean(axis=1)) if want & {"em", "kl"} else None,
        "kl": json_floats(kl[rows, :, ref_k][keep].mean(axis=1)) if want & {"em", "kl"} else None,
        "worst": json_floats(worst[rows, ref_k][keep]) if "worst" in want else None,
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
        s = _summaries(sizes[rows, :, ref_k], em[rows, :, ref_k], kl[rows, :, ref_k], worst[rows, ref_k])
        by_p = [_presult(None, s, len(users), want, False)]
    else:
        by_p, worst = results_by_p(sizes, r["rare"], em, kl, settings, want)
        ref_k = np.full(len(users), settings.reference_p - 1)
    per_user = per_user_details(sizes, em, kl, worst, ref_k, events.user_ids[users], want)
    n_terms = 0 if explicit else int((~np.isnan(em[rows, 0, ref_k])).sum()) * sizes.shape[1]
    per_location = _per_location(index, traces, r["acc"], n_terms) if "em" in want else {}
    return by_p, per_user, per_location


def _evaluate_exact(
    index: PointIndex, traces: Traces, events: EventTable, settings: RiskSettings, control: TaskControl
) -> tuple[list[PResult], dict, dict]:
    want = set(settings.measures)
    with_em = bool(want & {"em", "kl"})
    by_p: list[PResult] = []
    per_user: dict = {}
    per_location: dict = {}
    ps = sorted(set(settings.p_values) | {settings.reference_p})
    for i, p in enumerate(ps):
        control.report(i / len(ps), f"exact p = {p}")
        r = exact_sizes(index, p, with_em)
        offsets, sizes = r["offsets"], r["sizes"]
        n_sub = np.diff(offsets)
        included = n_sub > 0
        starts = offsets[:-1][included]
        per_unique = (
            np.add.reduceat((sizes == 1).astype(np.float64), starts) / n_sub[included]
            if len(starts)
            else np.zeros(0)
        )
        per_inv = (
            np.add.reduceat(1.0 / np.maximum(sizes, 1), starts) / n_sub[included]
            if len(starts)
            else np.zeros(0)
        )
        worst = 1.0 / np.minimum.reduceat(sizes, starts) if len(starts) else np.zeros(0)
        em_u = (
            np.add.reduceat(r["em"], starts) / n_sub[included]
            if with_em and len(starts)
            else np.full(len(starts), np.nan)
        )
        kl_u = (
            np.add.reduceat(r["kl"], starts) / n_sub[included]
            if with_em and len(starts)
            else np.full(len(starts), np.nan)
        )
        hist = np.bincount(sizes) if len(sizes) else np.zeros(0, dtype=np.int64)
        s = {
            "n_excluded": int((~included).sum()),
            "trials": len(sizes),
            "unique": int((sizes == 1).sum()),
            "kdisc": float(per_inv.mean()) if len(starts) else float("nan"),
            "em": float(em_u.mean()) if len(starts) else float("nan"),
            "kl": float(kl_u.mean()) if len(starts) else float("nan"),
            "em_users": len(starts) if with_em else 0,
            "worst_mean": float(worst.mean()) if len(starts) else float("nan"),
            "worst_share": float(np.mean(worst == 1.0)) if len(starts) else float("nan"),
            "hist": {int(k): int(c) for k, c in enumerate(hist) if c},
        }
        uni = float(per_unique.mean()) if len(starts) else float("nan")
        if p in settings.p_values:
            by_p.append(_presult(p, s, index.n_users, want, True, unicity=uni))
        if p == settings.reference_p:
            per_user = {
                "user_ids": [str(x) for x in events.user_ids[np.flatnonzero(included)]],
                "unique_rate": json_floats(per_unique),
                "em": json_floats(em_u) if with_em else None,
                "kl": json_floats(kl_u) if with_em else None,
                "worst": json_floats(worst) if "worst" in want else None,
            }
            if "em" in want:
                per_location = _per_location(index, traces, r["acc"], len(starts))
    control.report(1.0, "done")
    return by_p, per_user, per_location


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
) -> ProfileResult:
    """Index one profile's traces and compute every requested measure for every p."""
    want = set(settings.measures)
    kanon = None
    if "kanon" in want:
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
    t0 = time.perf_counter()
    index = build_index(work)
    timings["index"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if settings.exact:
        by_p, per_user, per_location = _evaluate_exact(index, work, events, settings, control)
    else:
        kind = model.kind if model.kind is not None else GIVEN
        if given is None and model.kind is None:
            given = python_orders(model, work, users, settings)
        if given is not None:
            given = _compact_given(index, given, shortest_first=isinstance(model, Explicit))
        by_p, per_user, per_location = _evaluate_sampled(
            index, work, events, users, kind, settings, control, given, isinstance(model, Explicit)
        )
    timings["estimate"] = time.perf_counter() - t0
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
        knowledge=model.name if not isinstance(model, Explicit) else f"explicit:{model.path}",
        exact=settings.exact,
        reference_p=None if isinstance(model, Explicit) else settings.reference_p,
        derived_from=derived_from,
    )


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


def run_grid(
    dataset_or_events: object,
    settings: RiskSettings,
    hierarchy: Hierarchy | None = None,
    control: TaskControl | None = None,
) -> Iterator[ProfileResult]:
    """Evaluate every profile of ``settings``; yield each :class:`ProfileResult` as soon as it is done.

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
    users = sample_users(events.n_users, settings.samples, settings.seed)
    base: Traces | None = None
    previous: Traces | None = None
    for i, profile in enumerate(profiles):
        step = control.sub(i / len(profiles), (i + 1) / len(profiles), label=profile.label)
        step.report(0.0, "generalizing")
        t0 = time.perf_counter()
        if base is None and not isinstance(model, Explicit):
            base = generalize(events, base_profile(profiles, hierarchy), hierarchy)
        pool = [t for t in (base, previous) if t is not None]
        traces, derived_from = _profile_traces(events, hierarchy, profile, pool)
        previous = traces if base is not None else None
        timings = {"generalize": time.perf_counter() - t0}
        yield _run_profile(
            events, hierarchy, profile, traces, derived_from, settings, model, users, step, timings
        )
    control.report(1.0, "grid done")
