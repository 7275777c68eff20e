"""Anonymizability (Gramaglia & Fiore, spec §5): how much aggregation would hide each user among k-1 others.

Works on raw samples: per user the distinct (x_km, y_km, minute) triples. ``anonymizability`` gives, per
target user and k, ``Δ_a^k`` plus the Gini coefficient and tail weight index of the spatial and temporal parts
of the matched sample distances to the k-1 nearest users and their temporal/spatial ratio.
``aggregation_study`` repeats it on data generalized to coarser cells and time bins.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import unique_pairs
from privacy_studio.core.kernels import anonymizability as kern
from privacy_studio.core.kernels.gil_free import cumsum64, repeat
from privacy_studio.core.progress import TaskControl, as_control

MODES = {"plain": kern.MODE_PLAIN, "merge": kern.MODE_MERGE, "prune": kern.MODE_PRUNE}

#: Targets per kernel call: small enough for frequent progress and cancellation, large enough to keep
#: every thread busy.
TARGET_CHUNK = 128

_PER_K_KEYS = ("delta", "spatial_gini", "temporal_gini", "spatial_tail", "temporal_tail", "ratio")


@dataclass(frozen=True)
class DistanceParams:
    """Weights and saturation thresholds of the sample distance (spec defaults: 1/2, 1/2, 20 km, 8 h)."""

    ws: float = 0.5
    wt: float = 0.5
    smax_km: float = 20.0
    tmax_h: float = 8.0

    def __post_init__(self) -> None:
        for name in ("ws", "wt", "smax_km", "tmax_h"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value}")
        if self.smax_km == 0 or self.tmax_h == 0:
            raise ValueError("the thresholds smax_km and tmax_h must be > 0")

    def kernel_args(self) -> tuple[float, float, float, float]:
        """(w_s, w_t, δs_max in km, δt_max in minutes), the trailing arguments of every kernel."""
        return (float(self.ws), float(self.wt), float(self.smax_km), float(self.tmax_h) * 60.0)

    def to_dict(self) -> dict[str, float]:
        return {"ws": self.ws, "wt": self.wt, "smax_km": self.smax_km, "tmax_h": self.tmax_h}


_SPACE_UNITS = {"m": 0.001, "km": 1.0}
_TIME_UNITS = {"min": 1.0, "h": 60.0, "d": 1440.0}


@dataclass(frozen=True)
class AggregationLevel:
    """Square cells of ``space_km`` and time bins of ``time_min`` (aligned to local midnight); 0 = raw."""

    space_km: float
    time_min: float

    @classmethod
    def parse(cls, text: str) -> AggregationLevel:
        """``"1km/20min"``, ``"500m/1h"``, ``"raw"``; a side may be ``raw`` to keep that dimension as is."""
        text = text.strip().lower()
        if text == "raw":
            return cls(0.0, 0.0)
        parts = text.split("/")
        if len(parts) != 2:
            raise ValueError(f"aggregation level {text!r} is not SPACE/TIME, e.g. 1km/20min or 20km/8h")
        return cls(_parse_amount(parts[0], _SPACE_UNITS, text), _parse_amount(parts[1], _TIME_UNITS, text))

    @property
    def label(self) -> str:
        if self.space_km == 0 and self.time_min == 0:
            return "raw"
        space = "raw" if self.space_km == 0 else f"{self.space_km:g}km"
        if self.time_min == 0:
            time = "raw"
        elif self.time_min % 60 == 0:
            time = f"{self.time_min / 60:g}h"
        else:
            time = f"{self.time_min:g}min"
        return f"{space}/{time}"


def _parse_amount(text: str, units: dict[str, float], whole: str) -> float:
    if text == "raw":
        return 0.0
    match = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*([a-z]+)", text)
    if match is None or match.group(2) not in units or float(match.group(1)) <= 0:
        raise ValueError(
            f"aggregation level {whole!r}: {text!r} must be a positive number with a unit in {sorted(units)}"
        )
    return float(match.group(1)) * units[match.group(2)]


@dataclass
class Fingerprints:
    """Per user the distinct samples (minutes, x_km, y_km), sorted by time then space, in CSR form.

    Users listed in the data but without any event cannot be compared: they are left out and counted in
    ``n_without_samples`` (reported with every result), so codes here index ``user_ids`` of this object.
    """

    user_ids: np.ndarray
    offsets: np.ndarray  # int64, n_users + 1
    t: np.ndarray  # float64 minutes since the epoch (UTC)
    x: np.ndarray  # float64 km
    y: np.ndarray  # float64 km
    n_without_samples: int = 0
    _places: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def n_users(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @classmethod
    def from_events(cls, events: EventTable, level: AggregationLevel | None = None) -> Fingerprints:
        """Distinct samples of every user, optionally generalized to cell centres and bin middles."""
        x, y = event_coordinates(events)
        # the input's full resolution (seconds), never rounded (metrics.md §5)
        minute = events.utc_seconds() / 60.0
        if level is not None and level.space_km > 0:
            x = (np.floor(x / level.space_km) + 0.5) * level.space_km
            y = (np.floor(y / level.space_km) + 0.5) * level.space_km
        if level is not None and level.time_min > 0:
            shift = (events.local_time() - events.utc_seconds()) / 60.0
            local = minute + shift
            minute = (np.floor(local / level.time_min) + 0.5) * level.time_min - shift
        return cls.from_arrays(events.user, minute, x, y, events.user_ids)

    @classmethod
    def from_arrays(
        cls, user: np.ndarray, minute: np.ndarray, x: np.ndarray, y: np.ndarray, user_ids: np.ndarray
    ) -> Fingerprints:
        """Deduplicate and sort samples given as parallel arrays with user codes 0..len(user_ids)-1."""
        user = np.asarray(user, dtype=np.int64)
        minute, x, y = (np.asarray(v, dtype=np.float64) for v in (minute, x, y))
        order = np.lexsort((y, x, minute, user))
        user, minute, x, y = user[order], minute[order], x[order], y[order]
        keep = np.ones(len(user), dtype=bool)
        keep[1:] = (np.diff(user) != 0) | (np.diff(minute) != 0) | (np.diff(x) != 0) | (np.diff(y) != 0)
        counts = np.bincount(user[keep], minlength=len(user_ids))
        present = counts > 0
        offsets = np.zeros(int(present.sum()) + 1, dtype=np.int64)
        np.cumsum(counts[present], out=offsets[1:])
        return cls(
            np.asarray(user_ids)[present],
            offsets,
            minute[keep],
            x[keep],
            y[keep],
            n_without_samples=int((~present).sum()),
        )

    def places(self) -> tuple[np.ndarray, ...]:
        """Distinct (x, y) places per user and of the whole data: sample -> user place, CSR offsets per user,
        user place coordinates x and y, user place -> data place, data place coordinates x and y."""
        if self._places is None:
            user = repeat(np.arange(self.n_users), self.lengths())
            order = np.lexsort((self.y, self.x, user))
            new = np.ones(len(order), dtype=bool)
            new[1:] = (
                (np.diff(user[order]) != 0) | (np.diff(self.x[order]) != 0) | (np.diff(self.y[order]) != 0)
            )
            place_of_sorted = cumsum64(new) - 1
            loc = np.empty(len(order), dtype=np.int64)
            loc[order] = place_of_sorted
            first = order[new]
            loc_off = np.zeros(self.n_users + 1, dtype=np.int64)
            np.cumsum(np.bincount(user[first], minlength=self.n_users), out=loc_off[1:])
            loc_x, loc_y = self.x[first], self.y[first]
            coords, loc_g = unique_pairs(loc_x, loc_y)
            g_x, g_y = np.ascontiguousarray(coords[:, 0]), np.ascontiguousarray(coords[:, 1])
            self._places = (loc, loc_off, loc_x, loc_y, loc_g, g_x, g_y)
        return self._places


def event_coordinates(events: EventTable) -> tuple[np.ndarray, np.ndarray]:
    """Projected km coordinates of every event: its own, else those of its location; ValueError if missing."""
    if events.n_events == 0:
        raise ValueError("the dataset has no events")
    if events.has_coordinates():
        x, y = np.asarray(events.x_km, dtype=np.float64), np.asarray(events.y_km, dtype=np.float64)
    elif events.locations is not None and len(events.locations) > 0 and (events.location >= 0).all():
        x = np.asarray(events.locations.x_km, dtype=np.float64)[events.location]
        y = np.asarray(events.locations.y_km, dtype=np.float64)[events.location]
    else:
        raise ValueError(
            "anonymizability needs coordinates: give x/y or lat/lon columns or an antenna file with positions"
        )
    missing = ~(np.isfinite(x) & np.isfinite(y))
    if missing.any():
        raise ValueError(
            f"anonymizability needs coordinates for every event, but {int(missing.sum())} of "
            f"{events.n_events} events have none (fix the input or drop them before the analysis)"
        )
    return x, y


@dataclass
class AnonymizabilityResult:
    """Per k (rows) and target user (columns): ``Δ_a^k`` and the dispersion of its spatial/temporal parts."""

    ks: tuple[int, ...]
    users: np.ndarray  # target user codes
    user_ids: np.ndarray  # their original ids
    delta: np.ndarray  # (len(ks), T)
    spatial_gini: np.ndarray
    temporal_gini: np.ndarray
    spatial_tail: np.ndarray
    temporal_tail: np.ndarray
    ratio: np.ndarray  # Σ temporal parts / Σ spatial parts
    neighbours: np.ndarray  # (T, max(ks) - 1) user codes, nearest first
    neighbour_distance: np.ndarray  # (T, max(ks) - 1) Δ_ab
    params: DistanceParams = field(default_factory=DistanceParams)
    level: str = "raw"
    mode: str = "prune"
    n_candidates: int = 0
    n_without_samples: int = 0

    def row(self, k: int) -> int:
        """Row of ``k`` in the per-k arrays."""
        if k not in self.ks:
            raise ValueError(f"k={k} was not computed; available: {list(self.ks)}")
        return self.ks.index(k)

    def to_dict(self) -> dict:
        """JSON-ready: ``{"level", "params", "mode", "n_candidates", "results": [{"k", "users", ...}]}``.

        Undefined values (a tail index with a flat centre, a ratio with no spatial part) become ``null``.
        """
        results = []
        for i, k in enumerate(self.ks):
            entry: dict = {"k": k, "users": [str(u) for u in self.user_ids]}
            for key in _PER_K_KEYS:
                entry[key] = [float(v) if math.isfinite(v) else None for v in getattr(self, key)[i].tolist()]
            results.append(entry)
        return {
            "level": self.level,
            "params": self.params.to_dict(),
            "mode": self.mode,
            "n_candidates": self.n_candidates,
            "users_without_samples": self.n_without_samples,
            "user_codes": self.users.tolist(),
            "neighbours": self.neighbours.tolist(),
            "neighbour_distance": self.neighbour_distance.tolist(),
            "results": results,
        }

    @classmethod
    def from_dict(cls, d: dict) -> AnonymizabilityResult:
        """Inverse of :meth:`to_dict` (``null`` values come back as NaN)."""
        rows = d["results"]

        def per_k(key: str) -> np.ndarray:
            return np.array([[np.nan if v is None else v for v in r[key]] for r in rows], dtype=np.float64)

        return cls(
            ks=tuple(int(r["k"]) for r in rows),
            users=np.asarray(d["user_codes"], dtype=np.int64),
            user_ids=np.asarray(rows[0]["users"] if rows else [], dtype=str),
            **{key: per_k(key) for key in _PER_K_KEYS},
            neighbours=np.asarray(d["neighbours"], dtype=np.int64),
            neighbour_distance=np.asarray(d["neighbour_distance"], dtype=np.float64),
            params=DistanceParams(**d["params"]),
            level=d["level"],
            mode=d["mode"],
            n_candidates=int(d["n_candidates"]),
            n_without_samples=int(d["users_without_samples"]),
        )


def anonymizability(
    data: EventTable | Fingerprints,
    ks: Sequence[int] = (2, 5, 10),
    *,
    targets: int | None = None,
    seed: int = 0,
    params: DistanceParams | None = None,
    mode: str = "prune",
    level: str = "raw",
    control: TaskControl | None = None,
) -> AnonymizabilityResult:
    """``Δ_a^k`` for every k in ``ks`` from one nearest-neighbour pass, for all users or ``targets`` of them.

    ``targets`` users are drawn without replacement with ``seed`` and compared with every user. ``mode``
    "prune" (default), "merge" and "plain" give identical results; they differ in speed only.
    """
    control = as_control(control)
    params = params or DistanceParams()
    fp = data if isinstance(data, Fingerprints) else Fingerprints.from_events(data)
    ks_arr = _check_ks(ks, fp.n_users)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {sorted(MODES)}")
    chosen = select_targets(fp.n_users, targets, seed)
    m = int(ks_arr.max()) - 1
    args = params.kernel_args()
    places = fp.places()
    neighbours = np.empty((len(chosen), m), dtype=np.int64)
    distance = np.empty((len(chosen), m))
    stats = np.empty((5, len(ks_arr), len(chosen)))
    control.report(0.0, "anonymizability: nearest fingerprints")
    for start in range(0, len(chosen), TARGET_CHUNK):
        part = chosen[start : start + TARGET_CHUNK]
        idx, dist = kern.nearest_neighbours(part, fp.offsets, fp.t, fp.x, fp.y, places, m, MODES[mode], *args)
        neighbours[start : start + len(part)] = idx
        distance[start : start + len(part)] = dist
        stats[:, :, start : start + len(part)] = kern.dispersion(
            part, idx, ks_arr, fp.offsets, fp.t, fp.x, fp.y, places, *args
        )
        control.report((start + len(part)) / len(chosen), f"anonymizability: {start + len(part)} users done")
    cumulative = np.cumsum(distance, axis=1)
    delta = np.stack([cumulative[:, k - 2] / (k - 1) for k in ks_arr.tolist()])
    return AnonymizabilityResult(
        ks=tuple(ks_arr.tolist()),
        users=chosen,
        user_ids=fp.user_ids[chosen],
        delta=delta,
        spatial_gini=stats[0],
        temporal_gini=stats[1],
        spatial_tail=stats[2],
        temporal_tail=stats[3],
        ratio=stats[4],
        neighbours=neighbours,
        neighbour_distance=distance,
        params=params,
        level=level,
        mode=mode,
        n_candidates=fp.n_users,
        n_without_samples=fp.n_without_samples,
    )


def aggregation_study(
    events: EventTable,
    levels: Sequence[AggregationLevel],
    ks: Sequence[int] = (2,),
    *,
    targets: int | None = None,
    seed: int = 0,
    params: DistanceParams | None = None,
    mode: str = "prune",
    control: TaskControl | None = None,
) -> Iterator[AnonymizabilityResult]:
    """One result per aggregation level (same targets each time), yielded as each level finishes."""
    control = as_control(control)
    if not levels:
        raise ValueError("give at least one aggregation level, e.g. raw or 1km/20min")
    for i, level in enumerate(levels):
        fp = Fingerprints.from_events(events, level)
        yield anonymizability(
            fp,
            ks,
            targets=targets,
            seed=seed,
            params=params,
            mode=mode,
            level=level.label,
            control=control.sub(i / len(levels), (i + 1) / len(levels)),
        )


def select_targets(n_users: int, targets: int | None, seed: int) -> np.ndarray:
    """All user codes, or ``targets`` of them drawn without replacement with ``seed`` (ascending)."""
    if targets is None:
        return np.arange(n_users, dtype=np.int64)
    if targets < 1 or targets > n_users:
        raise ValueError(f"targets must be between 1 and the number of users ({n_users}), got {targets}")
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n_users, size=targets, replace=False)).astype(np.int64)


def _check_ks(ks: Sequence[int], n_users: int) -> np.ndarray:
    values = sorted({int(k) for k in ks})
    if not values:
        raise ValueError("give at least one k, e.g. 2")
    if values[0] < 2:
        raise ValueError(f"k must be >= 2 (hiding a user among k-1 others), got {values[0]}")
    if values[-1] > n_users:
        raise ValueError(f"k={values[-1]} needs at least {values[-1]} users, the data has {n_users}")
    return np.asarray(values, dtype=np.int64)


def sample_distances(
    fp: Fingerprints, user: int, neighbours: Sequence[int], params: DistanceParams | None = None
) -> dict[str, np.ndarray]:
    """The matched sample distances of ``user`` to ``neighbours`` split into parts (for one user's CDF)."""
    params = params or DistanceParams()
    args = params.kernel_args()
    total = sum(int(kern.matched_count(user, b, fp.offsets)) for b in neighbours)
    spatial = np.empty(total)
    temporal = np.empty(total)
    pos = 0
    for b in neighbours:
        pos = kern.matched_parts(
            user, int(b), fp.offsets, fp.t, fp.x, fp.y, fp.places(), spatial, temporal, pos, *args
        )
    return {"total": spatial + temporal, "spatial": spatial, "temporal": temporal}


def fingerprint_distance(fp: Fingerprints, a: int, b: int, params: DistanceParams | None = None) -> float:
    """``Δ_ab`` between users with codes ``a`` and ``b`` (symmetric)."""
    params = params or DistanceParams()
    places = fp.places()
    far = np.empty(int(np.diff(places[1]).max()))
    args = (fp.offsets, fp.t, fp.x, fp.y, places, far, np.empty(0), kern.MODE_MERGE, np.inf)
    return float(kern.fingerprint_distance(a, b, *args, *params.kernel_args()))


def gini(values: np.ndarray) -> float:
    """Gini coefficient of the spec (0 for equal values, 1 - 1/N for one non-zero among N)."""
    return float(kern.gini(np.sort(np.asarray(values, dtype=np.float64))))


def tail_weight_index(values: np.ndarray) -> float:
    """Tail weight index of the spec (about 1.6 for an exponential, 14 for a Pareto of shape 1)."""
    return float(kern.tail_weight(np.sort(np.asarray(values, dtype=np.float64))))


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF of the finite values: sorted values and the fraction of values <= each."""
    v = np.sort(np.asarray(values, dtype=np.float64)[np.isfinite(values)])
    return v, np.arange(1, len(v) + 1) / max(len(v), 1)
